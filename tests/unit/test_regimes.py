"""The regime map's table (klinkctl.results.regimes) on synthetic run rows: cells, excluded runs, Klink's share of
the ideal reduction and the "no room" cells."""

from __future__ import annotations

import math
import shutil

import pandas as pd
import pytest

from klinkctl.results import regimes

CELL = {"queries": 8, "load": 1.1, "watermark_bound_ms": 200, "delay": "uniform:0-400ms"}
ROOMY = {**CELL, "queries": 8}
CRAMPED = {**CELL, "queries": 1}


def runs_of(cell: dict, scheduler: str, means: list[float], invalid: int = 0) -> list[dict]:
    """Runs of a scheduler in a cell: per-run means (ms), p99 = 2 x mean; `invalid` more runs left out."""
    rows = [{**cell, "run": f"{scheduler}-{cell['queries']}-{i}", regimes.SCHEDULER: scheduler, "valid": True,
             "mean_latency_ms": mean, "p99_latency_ms": 2 * mean} for i, mean in enumerate(means)]
    rows += [{**cell, "run": f"{scheduler}-{cell['queries']}-bad{i}", regimes.SCHEDULER: scheduler, "valid": False,
              "mean_latency_ms": 10_000.0, "p99_latency_ms": 20_000.0} for i in range(invalid)]
    return rows


def ideal(cell: dict) -> tuple[float, float]:
    """The model's oracle/ps: half the latency with 8 queries, nothing to reorder with one."""
    return (0.5, 0.6) if cell["queries"] == 8 else (0.95, 1.0)


@pytest.fixture
def table() -> pd.DataFrame:
    rows = (runs_of(ROOMY, "default", [1000, 1100, 900, 1000, 1000]) +
            runs_of(ROOMY, "klink", [600, 650, 550, 600], invalid=1) +
            runs_of(ROOMY, "sbox", [800, 800, 800, 800, 800]) +
            runs_of(CRAMPED, "default", [400, 410, 390, 400, 400]) +
            runs_of(CRAMPED, "klink", [390, 400, 380, 390, 390]))
    return regimes.regime_table(pd.DataFrame(rows), ideal).set_index("queries")


def test_one_row_per_cell_with_every_policy_side_by_side(table):
    assert list(table.index) == [1, 8]
    assert table.loc[8, "default_mean_ms"] == pytest.approx(1000)
    assert table.loc[8, "sbox_mean_ms"] == pytest.approx(800) and math.isnan(table.loc[1, "sbox_mean_ms"])
    low, high = table.loc[8, "default_mean_ci_low"], table.loc[8, "default_mean_ci_high"]
    assert low < 1000 < high


def test_excluded_runs_are_counted_and_left_out(table):
    assert (table.loc[8, "klink_n"], table.loc[8, "klink_n_invalid"]) == (4, 1)
    assert table.loc[8, "klink_mean_ms"] == pytest.approx(600)  # the 10 s run left out


def test_the_share_is_klinks_reduction_over_the_ideals(table):
    ratio = table.loc[8, "klink_default_mean_ratio"]
    assert ratio == pytest.approx(0.6, abs=0.01)
    assert table.loc[8, "klink_default_mean_ci_high"] < 1
    assert table.loc[8, "mean_share"] == pytest.approx((1 - ratio) / (1 - 0.5))  # about 80 %
    assert table.loc[8, "mean_share_ci_low"] < table.loc[8, "mean_share"] < table.loc[8, "mean_share_ci_high"]
    assert table.loc[8, "ideal_p99_ratio"] == 0.6


def test_a_cell_where_the_ideal_gains_at_most_ten_percent_has_no_room(table):
    assert table.loc[1, "mean_share"] == regimes.NO_ROOM and table.loc[1, "p99_share"] == regimes.NO_ROOM
    assert table.loc[1, "meets_target"] is None


@pytest.mark.parametrize("klink, ideal_ratio, share", [(0.6, 0.5, 0.8), (1.0, 0.5, 0.0), (0.5, 0.5, 1.0),
                                                      (1.2, 0.6, -0.5), (0.7, 0.9, regimes.NO_ROOM),
                                                      (0.7, 0.95, regimes.NO_ROOM)])
def test_share_of_the_ideal_reduction(klink, ideal_ratio, share):
    result = regimes.share_of_ideal(klink, ideal_ratio)
    assert result == (share if isinstance(share, str) else pytest.approx(share))


def test_the_markdown_shows_cis_counts_and_no_room(table):
    text = regimes.markdown(table.reset_index(), ["default", "klink", "sbox"])
    klink_cell = next(line for line in text.splitlines() if line.startswith("| 8 "))
    assert "(4/1)" in klink_cell and "0.60 [" in klink_cell
    assert "no room" in next(line for line in text.splitlines() if line.startswith("| 1 "))


def test_a_regime_map_needs_default_and_klink_at_a_load():
    rows = pd.DataFrame(runs_of(ROOMY, "default", [1.0]) + runs_of(ROOMY, "klink", [1.0])
                        + runs_of(CRAMPED, "klink", [1.0]))
    assert regimes.is_regime_map(rows)
    assert not regimes.is_regime_map(rows.assign(load=None))
    assert regimes.is_regime_map(rows[rows["queries"] == rows["queries"].iloc[0]])  # one cell: a slice of the map
    assert not regimes.is_regime_map(rows[rows[regimes.SCHEDULER] != "klink"])


def test_the_report_writes_the_regime_table_of_real_runs_against_the_model(tmp_path):
    # relabelled copies of real runs (two cells of Default and Klink at a load): checks the plumbing only
    from tests.unit.test_report import SWEEP, set_bench
    from klinkctl.results.runset import load_runset

    root = tmp_path / "runs"
    for queries, runs in ((2, ("default-20261122-081845", "default-20261122-081936", "klink-20261122-081434",
                               "klink-20261122-081756")),
                          (4, ("default-20261122-082301", "default-20261122-082353", "klink-20261122-082536",
                               "klink-20261122-082719"))):
        for run in runs:
            shutil.copytree(SWEEP / "runs" / f"ysb-{run}", root / f"ysb-{run}")
            set_bench(root / f"ysb-{run}", queries=queries, load=1.1, capacity="capacity.json", rate=10000,
                      delay="uniform:0-400ms", watermark_bound_ms=200)
    written = regimes.write_regimes(regimes.regime_map(load_runset(root), model_seeds=2), tmp_path)
    assert [path.name for path in written] == [regimes.CSV_FILE, regimes.MARKDOWN_FILE]
    table = pd.read_csv(written[0]).set_index("queries")
    assert list(table.index) == [2, 4] and (table["default_n"] == 2).all()
    assert ((table["ideal_mean_ratio"] > 0) & (table["ideal_mean_ratio"] <= 1.0 + 1e-9)).all()
    assert regimes.markdown(table.reset_index(), ["default", "klink"]).count("\n| ") == 2  # a line per cell


def test_klinkctl_report_writes_the_regime_map_beside_the_figures(tmp_path, monkeypatch):
    from tests.unit.test_report import SWEEP, set_bench
    from klinkctl.results.report_build import build_report

    monkeypatch.setattr(regimes, "model_ideal", lambda runset, seeds=0: ideal)  # the model is tested above
    root = tmp_path / "runs"
    for queries, run in ((1, "default-20261122-081845"), (1, "klink-20261122-081434"), (8, "default-20261122-082301"),
                         (8, "klink-20261122-082536")):
        shutil.copytree(SWEEP / "runs" / f"ysb-{run}", root / f"ysb-{run}")
        set_bench(root / f"ysb-{run}", queries=queries, load=1.0, capacity="capacity.json", rate=10000)
    outcome = build_report(root)
    assert [path.name for path in outcome.regime_files] == [regimes.CSV_FILE, regimes.MARKDOWN_FILE]
    html = outcome.html.read_text()
    assert "<h2>Regime map</h2>" in html and "no room" in html


def test_a_runs_side_is_its_variant_else_its_configured_policy():
    from types import SimpleNamespace

    klink = {"bench": {"policy": "klink", "cores": 2}}
    assert regimes.scheduler_of(SimpleNamespace(params={"variant": "klink-priority"}, config=klink)) == "klink-priority"
    assert regimes.scheduler_of(SimpleNamespace(params={"policy": "klink[C=2]"}, config=klink)) == "klink"
