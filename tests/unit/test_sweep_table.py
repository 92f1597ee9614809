"""The table a finished sweep prints, on the report fixture's real runs (policy x rate, 1-2 repetitions)."""

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from klinkctl.paths import PROJECT_ROOT
from klinkctl.results.groups import ratio_interval
from klinkctl.results.runset import load_runset
from klinkctl.results.stats import t_interval
from klinkctl.results.sweep_table import (baseline, cell_table, cells_note_lines, taskmanager_cpu_percent,
                                          warming_up_line)
from klinkctl.jit import PREFIX as JIT_PREFIX

SWEEP = Path(__file__).parents[1] / "fixtures" / "report-sweep"
KLINK, FCFS = "klink[C=2]", "fcfs[C=2]"


def test_the_baseline_is_the_first_policy_or_sampler_listed():
    assert baseline({"policy": ["default", "klink"], "rate": [1, 2]}) == ("policy", "default")
    assert baseline({"delay": ["preset:CC"], "sampler": ["kslack", "aion"]}) == ("sampler", "kslack")
    assert baseline({"rate": [1, 2]}) is None


def summary_means(runset, policy, rate):
    return [json.loads((run.run_dir / "summary.json").read_text())["swm_latency_ms"]["mean"]
            for run in runset.runs if run.params["policy"] == policy and run.params["rate"] == rate]


def test_cells_are_means_across_runs_with_ratio_cis_to_the_baseline_at_the_same_rate():
    runset = load_runset(SWEEP)
    cells = cell_table(runset, ("policy", "default")).set_index(["policy", "rate"])
    for (policy, rate), cell in cells.iterrows():
        means = summary_means(runset, policy, rate)
        assert cell["n"] == len(means)
        if means:
            assert cell["mean_ms"] == pytest.approx(np.mean(means))
            assert (cell["mean_ci_low"], cell["mean_ci_high"]) == pytest.approx(t_interval(means), nan_ok=True)
        reference = summary_means(runset, "default", rate)
        expected = ratio_interval(reference, means) if means else (math.nan,) * 3
        assert (cell["ratio"], cell["ratio_ci_low"], cell["ratio_ci_high"]) == pytest.approx(
            (1.0, math.nan, math.nan) if policy == "default" else expected, nan_ok=True)
    assert (cells.xs("default", level="policy")["verdict"] == "reference").all()
    assert cells.loc[("sbox[C=2]", 10000), "verdict"] == "no verdict"  # one run
    assert cells.loc[(KLINK, 10000), "verdict"] in ("significant", "not significant")
    assert "mean_error" not in cells  # no run measured accuracy


def test_invalid_runs_are_counted_and_left_out_unless_included():
    cells = cell_table(load_runset(SWEEP), ("policy", "default")).set_index(["policy", "rate"])
    assert cells.loc[(FCFS, 60000), ["n", "n_invalid"]].tolist() == [0, 2]
    assert math.isnan(cells.loc[(FCFS, 60000), "mean_ms"])
    included = load_runset(SWEEP, include_invalid=True)
    cells = cell_table(included, ("policy", "default")).set_index(["policy", "rate"])
    assert cells.loc[(FCFS, 60000), ["n", "n_invalid"]].tolist() == [1, 2]  # the starved run has no mean
    notes = cells_note_lines(included, cells.reset_index())
    assert notes[0].startswith("included 2 invalid runs (2 censored windows)")


def test_the_notes_count_invalid_runs_and_flag_cells_of_one_run():
    runset = load_runset(SWEEP)
    notes = cells_note_lines(runset, cell_table(runset, ("policy", "default")))
    assert notes[0] == "left out 2 invalid runs (2 censored windows); --include-invalid to include them"
    assert "rate=10000,policy=sbox[C=2]: 1 run: no verdict; run ≥ 5 repetitions" in notes
    assert any(note.startswith("fewer than 5 runs in") for note in notes)


def test_the_sweep_prints_the_cells_with_cis_and_its_notes_and_writes_cells_csv(tmp_path, capsys):
    import io
    from types import SimpleNamespace

    from rich.console import Console

    from klinkctl.cli.sweep import print_cells

    directory = shutil.copytree(SWEEP, tmp_path / "sweep")
    target = SimpleNamespace(directory=directory, spec=SimpleNamespace(
        axes={"policy": ["default", "fcfs", "sbox", "klink", "hr"], "rate": [10000, 60000]}))
    out = io.StringIO()
    print_cells(target, Console(file=out, width=200))
    table, notes = out.getvalue(), capsys.readouterr().out
    assert "mean ms [CI]" in table and "mean × [CI]" in table and "klink[C=2]" in table
    assert "note: left out 2 invalid runs (2 censored windows)" in notes
    cells = pd.read_csv(directory / "cells.csv")
    assert list(cells.columns[:4]) == ["rate", "policy", "n", "n_invalid"]
    assert {"mean_ci_low", "ratio_ci_high", "verdict"} <= set(cells.columns)


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
    assert "ysb-fcfs-20261122-081616" not in {run.run_id for run in runset.runs + runset.invalid_runs}
    cells = cell_table(runset, baseline({"rate": [10000, 60000], "variant": ["base", "klink-v"]}))
    assert list(cells.columns[:3]) == ["variant", "rate", "n"]  # the policy is named by its variant
    cells = cells.set_index(["variant", "rate"])
    assert cells.loc[("fcfs-v", 10000), "n"] == 1
    run_means = {}
    for run in runset.runs:
        run_means.setdefault((run.params["variant"], run.params["rate"]), []).append(float(np.mean(run.data.latency)))
    compared = 0
    for (variant, rate), cell in cells.iterrows():
        if cell["n"] and cells.loc[("base", rate), "n"]:
            expected = ratio_interval(run_means[("base", rate)], run_means[(variant, rate)])[0]
            assert cell["ratio"] == pytest.approx(expected)
            compared += 1
    assert compared >= 4


def test_cells_show_the_generator_and_taskmanager_load_of_their_runs():
    runset = load_runset(SWEEP)
    cells = cell_table(runset, ("policy", "default")).set_index(["policy", "rate"])
    runs = [run for run in runset.runs if run.params["policy"] == KLINK and run.params["rate"] == 60000]
    summaries = [json.loads((run.run_dir / "summary.json").read_text()) for run in runs]
    cell = cells.loc[(KLINK, 60000)]
    assert cell["generator_events_per_s"] == pytest.approx(
        np.mean([s["throughput"]["generator_events_per_s"] for s in summaries]))
    assert cell["generator_behind"] == pytest.approx(np.mean([s["generator"]["behind_fraction"] for s in summaries]))
    cpu = []
    for run in runs:
        resources = pd.read_csv(run.run_dir / "resources.csv")
        cpu.append(resources[resources["component"].str.startswith("taskmanager")]["cpu_percent"].median())
    assert cell["taskmanager_cpu_percent"] == pytest.approx(np.mean(cpu))
    assert 0 < cell["taskmanager_cpu_percent"] <= 100 * 2
    assert np.isnan(cell.get("taskmanager_jit_percent", np.nan))  # runs recorded before the JIT's rows: no column


def test_the_jit_compilers_cpu_is_its_own_column_and_not_counted_twice(tmp_path):
    rows = [{"time": t, "component": component, "cpu_percent": cpu} for t in (1000, 2000)
            for component, cpu in (("taskmanager-1", 30.0), ("jit:taskmanager-1", 12.0), ("taskmanager-2", 20.0),
                                   ("jit:taskmanager-2", 4.0), ("generator", 50.0))]
    pd.DataFrame(rows).to_csv(tmp_path / "resources.csv", index=False)
    assert taskmanager_cpu_percent(tmp_path) == 50.0
    assert taskmanager_cpu_percent(tmp_path, JIT_PREFIX) == 16.0


def test_the_baseline_is_the_first_variant_before_any_policy():
    assert baseline({"policy": ["rr", "klink"], "variant": ["marked", "unmarked"]}) == ("variant", "marked")


def test_the_sweeps_cells_keep_invalid_runs_when_asked(tmp_path, capsys):
    import io
    from types import SimpleNamespace

    from rich.console import Console

    from klinkctl.cli.sweep import print_cells

    directory = shutil.copytree(SWEEP, tmp_path / "sweep")
    target = SimpleNamespace(directory=directory, spec=SimpleNamespace(
        axes={"policy": ["default", "fcfs", "sbox", "klink", "hr"], "rate": [10000, 60000]}))
    print_cells(target, Console(file=io.StringIO(), width=200), include_invalid=True)
    assert "note: included 2 invalid runs (2 censored windows)" in capsys.readouterr().out
    cells = pd.read_csv(directory / "cells.csv").set_index(["policy", "rate"])
    assert cells.loc[(FCFS, 60000), ["n", "n_invalid"]].tolist() == [1, 2]


def test_a_surge_sweeps_cells_show_what_the_sources_read_during_the_surge_and_a_steady_ones_do_not():
    runset = load_runset(PROJECT_ROOT / "docs/data/adcom-surge-overload-20261127-005857")
    cells = cell_table(runset, ("variant", "none")).set_index("variant")
    for variant in ("none", "adcom"):
        read = [run.summary["throughput"]["during_surge"]["read_events_per_s"] for run in runset.runs
                if run.params["variant"] == variant]
        assert len(read) == 5 and cells.loc[variant, "surge_read_events_per_s"] == pytest.approx(np.mean(read))
    assert "surge_read_events_per_s" not in cell_table(load_runset(SWEEP), ("policy", "default"))


def drifting_runs(trend: float) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    rows = [{"variant": variant, "repetition": repetition, "valid": True,
             "source_records_per_s": base * (1 + trend * repetition) * rng.normal(1, 0.02)}
            for repetition in range(1, 6) for variant, base in (("none", 20_000), ("adcom", 30_000))]
    return pd.DataFrame(rows)


def test_a_stack_that_kept_warming_up_during_the_sweep_is_named_under_the_table():
    line = warming_up_line(drifting_runs(0.3), ["variant"])
    assert line.startswith("later repetitions read more than earlier ones (Kendall tau +")


def test_runs_without_a_trend_over_the_repetitions_get_no_drift_note():
    assert warming_up_line(drifting_runs(0.0), ["variant"]) is None
    assert warming_up_line(drifting_runs(0.3).head(4), ["variant"]) is None  # too few runs to say
