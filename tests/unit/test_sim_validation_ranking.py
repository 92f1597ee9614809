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
