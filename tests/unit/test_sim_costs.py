"""The simulator's default task costs are their calibration sweeps' (docs/simulator.md, "Calibration"): each within
1 % of the mean over the sweep's measured runs (`read_calibration` per run, warm-ups left out), so a default cannot
drift from its data silently."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from klinkctl.paths import PROJECT_ROOT
from klinkctl.results.runset import find_candidates
from klinkctl.run.config import build
from klinkctl.sim.calibration import read_calibration
from klinkctl.sim.graphs import DEFAULT_COSTS, POJO_ENCODING_YSB_COSTS, Costs, query_tasks

DATA = PROJECT_ROOT / "docs" / "data"
#: Rounding to 10 ns is all that may part a default from its sweep's mean.
TOLERANCE = 0.01

CALIBRATIONS = [
    pytest.param(DEFAULT_COSTS["ysb"], "sim-calibration-ysb-20261128-192144", id="ysb"),
    pytest.param(DEFAULT_COSTS["nyt"], "sim-calibration-nyt-20261128-192645", id="nyt"),
    pytest.param(DEFAULT_COSTS["lrb"], "sim-calibration-lrb-20261128-192946", id="lrb"),
    pytest.param(POJO_ENCODING_YSB_COSTS, "sim-validation-zipf-8q-20261125-023349", id="ysb-pojo-encoding"),
]


def measured_means(sweep: Path) -> pd.DataFrame:
    """Per role, the mean over the sweep's measured runs of their cost per record and selectivity."""
    rows = [{"role": role, **values} for run in find_candidates(sweep)
            for role, values in read_calibration(run.run_dir).items()]
    return pd.DataFrame(rows).groupby("role")[["cost_ns_per_record", "selectivity"]].mean()


@pytest.mark.parametrize("costs, sweep", CALIBRATIONS)
def test_each_roles_cost_is_the_mean_of_its_calibration_sweep(costs: Costs, sweep: str):
    means = measured_means(DATA / sweep)
    assert sorted(costs) == sorted(means.index)
    for role, values in costs.items():
        assert values["cost_ns_per_record"] == pytest.approx(means.loc[role, "cost_ns_per_record"], rel=TOLERANCE)


@pytest.mark.parametrize("costs, sweep", CALIBRATIONS)
def test_each_roles_selectivity_is_the_mean_of_its_calibration_sweep(costs: Costs, sweep: str):
    """Windows' too: the simulator reads a window's selectivity as records out per record in, as tasks.csv has it."""
    means = measured_means(DATA / sweep)
    for role, values in costs.items():
        assert values["selectivity"] == pytest.approx(means.loc[role, "selectivity"], rel=TOLERANCE), role


def test_lrbs_stats_window_sends_the_toll_window_its_measured_rows_per_report():
    """About 0.07 per report (7 000 per query and run of the sweep), not one result per key and firing."""
    config = build({"workload": "lrb", "window_ms": 5000, "slide_ms": 3000, "stressed": True})
    stats = next(task for task in query_tasks(config) if task["role"] == "stats-window")
    assert stats["outputs"] == [{"to": "toll-window",
                                 "selectivity": DEFAULT_COSTS["lrb"]["stats-window"]["selectivity"]}]
    measured = measured_means(DATA / "sim-calibration-lrb-20261128-192946").loc["stats-window", "selectivity"]
    assert stats["outputs"][0]["selectivity"] == pytest.approx(measured, rel=TOLERANCE)
    assert 0.06 < measured < 0.08


def test_lrbs_source_sends_its_measured_records_per_report_to_both_windows():
    config = build({"workload": "lrb", "window_ms": 5000, "slide_ms": 3000, "stressed": True})
    source = query_tasks(config)[0]
    assert sorted(output["to"] for output in source["outputs"]) == ["stats-window", "toll-window"]
    assert sum(output["selectivity"] for output in source["outputs"]) == \
        pytest.approx(DEFAULT_COSTS["lrb"]["source"]["selectivity"])
