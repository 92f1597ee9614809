"""klinkctl.sim.validation.same_ranking: the simulator must order two policies as the real stack does only where the
real means differ beyond their CIs across runs."""

import pandas as pd

from klinkctl.sim.validation import same_ranking


def _cells(real: dict[str, tuple[float, float, float]], simulated: dict[str, float]) -> pd.DataFrame:
    return pd.DataFrame([{"variant": name, "rate": 1000, "mean_ms_real": mean, "mean_ci_low": low,
                          "mean_ci_high": high, "mean_ms_sim": simulated[name]}
                         for name, (mean, low, high) in real.items()])


def test_policies_the_real_stack_tells_apart_must_keep_their_order():
    real = {"default": (400, 380, 420), "klink": (540, 500, 580)}
    assert same_ranking(_cells(real, {"default": 420, "klink": 600}))
    assert not same_ranking(_cells(real, {"default": 600, "klink": 420}))
    assert not same_ranking(_cells(real, {"default": 420, "klink": 420}))  # a tie where the real ones differ


def test_policies_whose_real_cis_overlap_have_no_order_to_keep():
    real = {"default": (414, 382, 447), "klink": (403, 369, 436)}
    assert same_ranking(_cells(real, {"default": 336, "klink": 336}))
    assert same_ranking(_cells(real, {"default": 330, "klink": 350}))


def test_cells_told_apart_by_further_keys_are_matched_on_them_and_named_by_them():
    from klinkctl.sim.validation import agreement

    def sweep(means: dict[tuple[int, str], float]) -> pd.DataFrame:
        return pd.DataFrame([{"variant": "default", "watermark_bound_ms": bound, "delay": delay, "mean_ms": mean,
                              "mean_ci_low": mean - 10, "mean_ci_high": mean + 10, "p99_ms": mean * 1.2, "n": 5}
                             for (bound, delay), mean in means.items()])

    real = sweep({(200, "uniform:0-400ms"): 300, (1000, "uniform:0-400ms"): 1100})
    simulated = sweep({(1000, "uniform:0-400ms"): 1000, (200, "uniform:0-400ms"): 330})
    table = agreement("2q", real, simulated, ("watermark_bound_ms", "delay"))
    assert list(table["validation"]) == ["2q/watermark_bound_ms=200/delay=uniform:0-400ms",
                                         "2q/watermark_bound_ms=1000/delay=uniform:0-400ms"]
    assert list(table["mean_ms_sim"]) == [330, 1000]
    assert "delay" not in table and "watermark_bound_ms" not in table  # the table keeps its columns


def test_policies_are_ranked_within_each_cell_not_across_cells():
    cells = pd.concat([_cells({"default": (300, 290, 310)}, {"default": 300}).assign(validation="a/B=200"),
                       _cells({"klink": (1100, 1090, 1110)}, {"klink": 290}).assign(validation="a/B=1000")])
    assert same_ranking(cells)  # one policy per cell: nothing to order
