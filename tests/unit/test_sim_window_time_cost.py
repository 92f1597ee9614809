"""--window-time-cost-ns: the window's fit (benchmarks/sim_record_cost_fit.py) on synthetic runs, the records per ms
of its calibration sweeps, and the window's split cost in the spec."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from sim_record_cost_fit import fit_window  # noqa: E402
from klinkctl.errors import KlinkError  # noqa: E402
from klinkctl.paths import PROJECT_ROOT  # noqa: E402
from klinkctl.results.runset import find_candidates  # noqa: E402
from klinkctl.run.config import build  # noqa: E402
from klinkctl.sim.calibration import window_records_per_ms  # noqa: E402
from klinkctl.sim.graphs import CALIBRATION_WINDOW_RECORDS_PER_MS, DEFAULT_COSTS, query_tasks  # noqa: E402

DATA = PROJECT_ROOT / "docs" / "data"
WINDOW_NS = DEFAULT_COSTS["ysb"]["window"]["cost_ns_per_record"]
RHO = CALIBRATION_WINDOW_RECORDS_PER_MS["compact"]["ysb"]["window"]


def test_the_window_fit_recovers_per_ms_and_per_record_costs():
    rng = np.random.default_rng(7)
    seconds = rng.uniform(20, 30, 80)
    records = rng.uniform(2, 50, 80) * seconds * 1000
    cpu = 1200 * seconds * 1000 + 150 * records + rng.normal(0, 3, 80) * records
    table = pd.DataFrame({"window_records_in": records, "window_cpu_ns": cpu, "window_s": seconds,
                          "window_bytes_in": rng.uniform(58, 60, 80) * records,
                          "records_in": records / rng.uniform(1, 10, 80)})
    fits = {fit["form"]: fit for fit in fit_window(table)}
    per_ms = fits["per record + per ms of wall time"]
    assert per_ms["coef"][0] == pytest.approx(1200, rel=0.03)
    assert per_ms["coef"][1] == pytest.approx(150, rel=0.03)
    assert per_ms["r2"] > 0.95 and per_ms["ci95"][0] < 60
    assert fits["per record only"]["r2"] == 0.0


@pytest.mark.parametrize("encoding, workload, sweep", [
    ("compact", "ysb", "sim-calibration-ysb-20261128-192144"),
    ("compact", "nyt", "sim-calibration-nyt-20261128-192645"),
    ("compact", "lrb", "sim-calibration-lrb-20261128-192946"),
    ("pojo", "ysb", "sim-validation-zipf-8q-20261125-023349")])
def test_each_windows_records_per_ms_is_its_calibration_sweeps_mean(encoding, workload, sweep):
    rows = pd.DataFrame([window_records_per_ms(run.run_dir) for run in find_candidates(DATA / sweep)])
    expected = CALIBRATION_WINDOW_RECORDS_PER_MS[encoding][workload]
    assert sorted(expected) == sorted(rows.columns)
    for role, rho in expected.items():
        assert rho == pytest.approx(rows[role].mean(), rel=0.01), role


def config_of(**values):
    return build({"workload": "ysb", "queries": 2, "rate": 100_000, "window_ms": 3000, "duration_ms": 20_000,
                  "warmup_ms": 5000, "delay": "uniform:0-400ms", **values})


def test_off_by_default_the_window_pays_its_calibrated_cost_per_record_and_nothing_per_ms():
    source, window = query_tasks(config_of())
    assert (window["costNsPerRecord"], window["costNsPerMs"], source["costNsPerMs"]) == (WINDOW_NS, 0.0, 0.0)


def test_with_a_time_cost_the_window_costs_its_calibrated_cost_at_the_calibration_rate():
    source, window = query_tasks(config_of(window_time_cost_ns=1173.0))
    assert window["costNsPerMs"] == 1173.0 and source["costNsPerMs"] == 0.0
    assert window["costNsPerRecord"] + window["costNsPerMs"] / RHO == pytest.approx(WINDOW_NS)
    assert window["costNsPerRecord"] == pytest.approx(WINDOW_NS - 1173.0 / RHO)


def test_the_scales_apply_to_the_time_cost_and_too_much_of_it_is_refused():
    _, window = query_tasks(config_of(window_time_cost_ns=1173.0, cost_scale=2.0, window_cost_scale=0.5))
    assert window["costNsPerMs"] == pytest.approx(1173.0)
    with pytest.raises(KlinkError, match="window-time-cost-ns"):
        query_tasks(config_of(window_time_cost_ns=WINDOW_NS * RHO * 1.01))


def test_every_window_of_lrb_gets_it_split_at_its_own_rate():
    config = build({"workload": "lrb", "window_ms": 5000, "slide_ms": 3000, "stressed": True,
                    "window_time_cost_ns": 1000.0})
    tasks = {task["role"]: task for task in query_tasks(config)}
    assert tasks["source"]["costNsPerMs"] == 0.0
    for role in ("stats-window", "toll-window"):
        rho = CALIBRATION_WINDOW_RECORDS_PER_MS["compact"]["lrb"][role]
        assert tasks[role]["costNsPerRecord"] == pytest.approx(DEFAULT_COSTS["lrb"][role]["cost_ns_per_record"]
                                                               - 1000.0 / rho)


def test_a_calibrating_runs_own_records_per_ms_keep_its_cost_per_record(tmp_path):
    pd.DataFrame([["q00:src#0", "q00", "source", "source", 0, 1000, 335, 10**9, 0],
                  ["q00:win#0", "q00", "window", "window", 0, 60_000, 10, 3 * 10**7, 0]],
                 columns=["task", "query", "role", "kind", "subtask", "records_in", "records_out", "cpu_ns",
                          "bytes_in"]).to_csv(tmp_path / "tasks.csv", index=False)
    (tmp_path / "generator-summary.json").write_text(json.dumps({"elapsed_s": 25.0, "events_sent": 3000}))
    (tmp_path / "drain.json").write_text(json.dumps({"waited_ms": 5000}))
    assert window_records_per_ms(tmp_path) == {"window": pytest.approx(2.0)}
    config = config_of(window_time_cost_ns=1000.0, calibrate_from=str(tmp_path))
    window = query_tasks(config, {"window": {"cost_ns_per_record": 600.0}})[1]
    assert window["costNsPerRecord"] == pytest.approx(100.0) and window["costNsPerMs"] == 1000.0
