"""`klinkctl sweep configs/smoke.yaml` end to end on the real stack (the session's shared one): a warm-up run kept
and indexed but not in cells.csv, each variant's settings in its runs' config.yaml, every planned run completed with
measured latencies and the agent's per-task totals (default and klink alike), the measured runs tabled; a resume
then has nothing to do."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml

from klinkctl.paths import PROJECT_ROOT
from klinkctl.sim.calibration import read_calibration

pytestmark = pytest.mark.integration

SMOKE = PROJECT_ROOT / "configs" / "smoke.yaml"


def test_the_smoke_sweep_completes_every_run_and_tables_the_measured_ones(running_stack, tmp_path):
    cli = running_stack
    results = tmp_path / "results"

    swept = cli("sweep", str(SMOKE), "--results", str(results), timeout=600)
    assert swept.returncode == 0, swept.stdout + swept.stderr
    (sweep_dir,) = results.iterdir()
    assert (sweep_dir / "sweep.yaml").is_file()
    index = pd.read_csv(sweep_dir / "index.csv", dtype=str, keep_default_na=False)
    assert list(index.columns) == ["index", "run_id", "status", "repetition", "seed", "started_at", "finished_at",
                                   "wall_s", "reason", "run_dir", "warmup", "variant"]
    assert list(zip(index["warmup"], index["repetition"], index["variant"])) == [
        ("true", "0", "default"), ("false", "1", "default"), ("false", "1", "klink-f90")]
    assert set(index["status"]) == {"completed"}, index[["variant", "status", "reason"]].to_string()
    bench = {row.variant: yaml.safe_load((sweep_dir / row.run_dir / "config.yaml").read_text())["bench"]
             for row in index.itertuples() if row.warmup == "false"}
    assert (bench["default"]["policy"], bench["klink-f90"]["policy"]) == ("default", "klink")
    assert (bench["default"]["confidence"], bench["klink-f90"]["confidence"]) == (0.95, 0.9)
    for row in index.itertuples():  # the warm-up run too: kept and complete
        run_dir = sweep_dir / row.run_dir
        summary = json.loads((run_dir / "summary.json").read_text())
        assert summary["status"] == "completed" and summary["run"] == row.run_id
        if row.warmup == "false":
            latency = pd.read_csv(run_dir / "latency.csv")
            assert (~latency["warmup"]).sum() >= 2, f"{row.variant}: no measured windows"
            assert summary["swm_latency_ms"]["count"] >= 2
            assert_every_task_was_counted(run_dir, {"q00", "q01"})
    assert (sweep_dir / index["run_dir"][2] / "scheduler.csv").is_file()  # klink ran the runtime scheduler
    assert f"all 3 runs completed; figures: klinkctl report {sweep_dir}" in swept.stdout

    cells = pd.read_csv(sweep_dir / "cells.csv")
    assert list(cells["variant"]) == ["default", "klink-f90"] and list(cells["n"] + cells["n_invalid"]) == [1, 1]
    assert cells.loc[0, "ratio"] == 1 and cells["taskmanager_cpu_percent"].gt(0).all()
    assert cells["generator_events_per_s"].between(2 * 2000 * 0.9, 2 * 2000 * 1.1).all()

    resumed = cli("sweep", "--resume", str(sweep_dir), timeout=120)
    assert resumed.returncode == 0 and "nothing to run" in resumed.stdout, resumed.stdout + resumed.stderr


def assert_every_task_was_counted(run_dir, queries: set[str]) -> None:
    """The agent's tasks.csv, whatever the policy: a source and a window task per query, the window's work measured."""
    tasks = pd.read_csv(run_dir / "tasks.csv")
    roles = tasks.groupby(["query", "role"]).size()
    assert set(tasks["query"]) == queries, tasks.to_string()
    for query in queries:
        assert roles.get((query, "source")) == 1 and roles.get((query, "window")) == 1, tasks.to_string()
    windows = tasks[tasks["role"] == "window"]
    assert (windows["records_in"] > 0).all() and (windows["cpu_ns"] > 0).all(), windows.to_string()
    assert read_calibration(run_dir)["window"]["cost_ns_per_record"] > 0
