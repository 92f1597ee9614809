"""The table a finished sweep prints, on the report fixture's real runs (policy x rate, 1-2 repetitions)."""

import json
import statistics
from pathlib import Path

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
