"""The table a finished sweep prints, on the report fixture's real runs (policy x rate, 1-2 repetitions)."""

import json
import shutil
import statistics
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from klinkctl.results.report import load_runset
from klinkctl.results.sweep_table import baseline, cell_table

SWEEP = Path(__file__).parents[1] / "fixtures" / "report-sweep"


def test_the_baseline_is_the_first_policy_or_sampler_listed():
    assert baseline({"policy": ["default", "klink"], "rate": [1, 2]}) == ("policy", "default")
    assert baseline({"delay": ["preset:CC"], "sampler": ["kslack", "aion"]}) == ("sampler", "kslack")
    assert baseline({"rate": [1, 2]}) is None


def test_cells_are_medians_over_repetitions_with_ratios_to_the_baseline_at_the_same_rate():
    runset = load_runset(SWEEP)
    cells = cell_table(runset, ("policy", "default")).set_index(["policy", "rate"])
    for (policy, rate), cell in cells.iterrows():
        means = [json.loads((run.run_dir / "summary.json").read_text())["swm_latency_ms"]["mean"]
                 for run in runset.runs if run.params["policy"] == policy and run.params["rate"] == rate]
        assert cell["runs"] == len(means)
        measured = [m for m in means if m is not None]  # a starved run measured no window
        assert cell["mean_latency_ms"] == pytest.approx(statistics.median(measured))
        default = cells.loc[("default", rate), "mean_latency_ms"]
        assert cell["mean_ratio"] == pytest.approx(cell["mean_latency_ms"] / default)
    assert (cells.xs("default", level="policy")["mean_ratio"] == 1).all()
    assert "mean_error" not in cells  # no run measured accuracy


def variant_sweep(tmp_path: Path) -> Path:
    """The fixture's runs as a sweep of variants (each policy a variant, default named base) whose first
    fcfs run at 10 000 events/s was a warm-up run."""
    root = tmp_path / "sweep"
    shutil.copytree(SWEEP, root)
    index = pd.read_csv(root / "index.csv", dtype=str, keep_default_na=False)
    index["warmup"] = np.where(index["run_id"] == "ysb-fcfs-20261122-081616", "true", "false")
    index["variant"] = np.where(index["policy"] == "default", "base", index["policy"] + "-v")
    index.to_csv(root / "index.csv", index=False)
    return root


def test_variant_cells_leave_out_warmup_runs_and_compare_with_the_first_variant_at_the_same_rate(tmp_path):
    runset = load_runset(variant_sweep(tmp_path))
    assert "ysb-fcfs-20261122-081616" not in {run.run_id for run in runset.runs}
    cells = cell_table(runset, baseline({"rate": [10000, 60000], "variant": ["base", "klink-v"]}))
    assert list(cells.columns[:3]) == ["variant", "rate", "runs"]  # the policy is named by its variant
    cells = cells.set_index(["variant", "rate"])
    assert cells.loc[("fcfs-v", 10000), "runs"] == 1
    for (variant, rate), cell in cells.iterrows():
        assert cell["mean_ratio"] == pytest.approx(cell["mean_latency_ms"] / cells.loc[("base", rate), "mean_latency_ms"])


def test_cells_show_the_generator_and_taskmanager_load_of_their_runs():
    runset = load_runset(SWEEP)
    cells = cell_table(runset, ("policy", "default")).set_index(["policy", "rate"])
    runs = [run for run in runset.runs if run.params["policy"] == "klink" and run.params["rate"] == 60000]
    summaries = [json.loads((run.run_dir / "summary.json").read_text()) for run in runs]
    cell = cells.loc[("klink", 60000)]
    assert cell["generator_events_per_s"] == pytest.approx(
        statistics.median(s["throughput"]["generator_events_per_s"] for s in summaries))
    assert cell["generator_behind"] == pytest.approx(
        statistics.median(s["generator"]["behind_fraction"] for s in summaries))
    cpu = []
    for run in runs:
        resources = pd.read_csv(run.run_dir / "resources.csv")
        cpu.append(resources[resources["component"].str.startswith("taskmanager")]["cpu_percent"].median())
    assert cell["taskmanager_cpu_percent"] == pytest.approx(statistics.median(cpu))
    assert 0 < cell["taskmanager_cpu_percent"] <= 100 * 2


def test_the_baseline_is_the_first_variant_before_any_policy():
    assert baseline({"policy": ["rr", "klink"], "variant": ["marked", "unmarked"]}) == ("variant", "marked")
