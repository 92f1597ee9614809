"""Per-record latency across runs: compare's groups, the sweep's cells and the report's figures, on fake run
directories whose record-latency.csv holds HdrHistograms as the Java sinks send them."""

import io
import json
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from rich.console import Console

from klinkctl.cli.sweep import print_cells
from klinkctl.results import report
from klinkctl.results.compare import COLUMNS, compare_groups, render
from klinkctl.results.groups import ratio_interval
from klinkctl.results.record_latency import PERCENTILES_FILE, RECORD_FILE, run_record_latency
from klinkctl.results.report_figures import FIGURES, make_section
from klinkctl.results.runset import load_runset
from klinkctl.results.stats import t_interval
from klinkctl.results.sweep_table import baseline, cell_table
from klinkctl.run.collectors import RECORD_COLUMNS
from tests.unit.test_compare import make_run
from tests.unit.test_record_latency import encoded

START = 1_764_050_000_000
RUNS_PER_SIDE = 5


def write_records(run_dir, scale, rng, seconds=4, subtasks=2):
    """record-latency.csv: a warm-up second at 60 s, then ``seconds`` measured seconds per subtask of lognormal
    latencies (median 5 ms × scale); summary.json gets record_latency as build_summary computes it."""
    rows = [{"run": run_dir.name, "policy": "p", "query": "q00", "subtask": 0, "start_ms": START - 1000,
             "end_ms": START, "count": 1, "duplicates": 0, "histogram": encoded([60_000_000]), "warmup": True}]
    for second in range(seconds):
        for subtask in range(subtasks):
            latencies = scale * rng.lognormal(np.log(5000), 0.8, 500)
            rows.append({"run": run_dir.name, "policy": "p", "query": "q00", "subtask": subtask,
                         "start_ms": START + 1000 * second, "end_ms": START + 1000 * (second + 1), "count": 500,
                         "duplicates": 1, "histogram": encoded(latencies), "warmup": False})
    pd.DataFrame(rows, columns=RECORD_COLUMNS).to_csv(run_dir / RECORD_FILE, index=False)
    summary = json.loads((run_dir / "summary.json").read_text())
    summary["record_latency"] = run_record_latency(run_dir)
    (run_dir / "summary.json").write_text(json.dumps(summary))


def record_runs(root, policy, scale, windows=True):
    """RUNS_PER_SIDE runs of ``policy`` (seeds 1…) with per-record latency scaled by ``scale``; with windows
    also SWM latencies around 100 ms."""
    rng = np.random.default_rng(int(scale * 10))
    run_dirs = []
    for seed in range(1, RUNS_PER_SIDE + 1):
        latencies = 100 * (1 + 0.05 * rng.standard_normal(20)) if windows else []
        run_dir = make_run(root, f"{policy}-{seed}", policy, latencies, bench={"seed": seed})
        write_records(run_dir, scale, rng)
        run_dirs.append(run_dir)
    return run_dirs


@pytest.fixture
def sides(tmp_path):
    """Five fifo runs and five edf runs whose per-record latency is twice fifo's."""
    return {"fifo": record_runs(tmp_path, "fifo", 1.0), "edf": record_runs(tmp_path, "edf", 2.0)}


def per_run(run_dirs, key):
    return [json.loads((run_dir / "summary.json").read_text())["record_latency"][key] for run_dir in run_dirs]


def test_groups_compare_per_record_p99_and_p999_across_runs(sides, tmp_path):
    frame = compare_groups([*sides["fifo"], *sides["edf"]]).set_index("label")
    for name, key in (("record_p99", "p99_ms"), ("record_p999", "p999_ms"), ("record_mean", "mean_ms")):
        fifo, edf = per_run(sides["fifo"], key), per_run(sides["edf"], key)
        assert frame.loc["fifo", f"{name}_ms"] == pytest.approx(np.mean(fifo))
        assert (frame.loc["fifo", f"{name}_ci_low"], frame.loc["fifo", f"{name}_ci_high"]) == \
            pytest.approx(t_interval(fifo))
        ratio, low, high = ratio_interval(fifo, edf)
        assert frame.loc["edf", f"{name}_ratio"] == pytest.approx(ratio) == pytest.approx(2.0, rel=0.1)
        assert (frame.loc["edf", f"{name}_ratio_ci_low"], frame.loc["edf", f"{name}_ratio_ci_high"]) == \
            pytest.approx((low, high))
        assert low > 1.0 and frame.loc["fifo", f"{name}_ratio"] == 1.0
    assert frame.loc["edf", "n"] == RUNS_PER_SIDE
    assert list(frame.reset_index().columns[:12]) == [*COLUMNS[:9], "record_mean_ms", "record_mean_ci_low",
                                                      "record_mean_ci_high"]


def test_the_table_shows_record_columns_only_when_runs_have_them(sides, tmp_path):
    text = render(compare_groups([*sides["fifo"], *sides["edf"]]), "table")
    assert "record p99 ms [CI]" in text and "record p99.9 ms [CI]" in text and "record p99.9 × [CI]" in text
    assert "per-record end-to-end latency" in text
    plain = [make_run(tmp_path / "plain", f"fifo-{seed}", "fifo", [100.0, 110.0], bench={"seed": seed})
             for seed in (1, 2)]
    frame = compare_groups(plain)
    assert list(frame.columns) == COLUMNS
    assert "per-record" not in render(frame, "table") and "record p99" not in render(frame, "table")


def test_runs_measuring_records_but_no_windows_still_count_and_compare(tmp_path):
    fifo = record_runs(tmp_path, "fifo", 1.0, windows=False)
    edf = record_runs(tmp_path, "edf", 3.0, windows=False)
    frame = compare_groups([*fifo, *edf]).set_index("label")
    assert frame.loc["edf", "n"] == RUNS_PER_SIDE and np.isnan(frame.loc["edf", "mean_ms"])
    assert frame.loc["edf", "record_p99_ratio"] == pytest.approx(3.0, rel=0.1)
    assert not load_runset(tmp_path).notes  # not "starved": they measured records


def test_sweep_cells_have_record_columns_and_ratios_to_the_baseline(sides, tmp_path, capsys):
    runset = load_runset(tmp_path)
    cells = cell_table(runset, baseline({"policy": ["fifo", "edf"]})).set_index("policy")
    assert cells.loc["edf", "record_p999_ratio"] == pytest.approx(
        ratio_interval(per_run(sides["fifo"], "p999_ms"), per_run(sides["edf"], "p999_ms"))[0])
    assert cells.loc["fifo", "record_p99_ratio"] == 1.0
    out = io.StringIO()
    print_cells(SimpleNamespace(directory=tmp_path, spec=SimpleNamespace(axes={"policy": ["fifo", "edf"]})),
                Console(file=out, width=250))
    shown = out.getvalue()  # headers wrap in the cells of a narrow table
    assert "record p99 ms" in shown and "record p99 ×" in shown and "[1.94–2.13]" in shown  # edf record p99 ratio
    assert "record mean" not in shown  # in cells.csv only
    assert {"record_mean_ms", "record_p99_ratio", "record_p999_ratio_ci_low"} <= set(
        pd.read_csv(tmp_path / "cells.csv").columns)


def test_the_report_draws_the_record_curve_and_the_tail_over_time(sides, tmp_path):
    runset = load_runset(tmp_path)
    curves = report.record_latency_curves(runset)
    assert set(curves["policy"]) == {"fifo", "edf"} and curves["nines"].min() == 1.0
    edf, fifo = (curves[curves["policy"] == policy].set_index("nines")["latency_ms"] for policy in ("edf", "fifo"))
    assert (edf / fifo).loc[2.0] == pytest.approx(2.0, rel=0.1) and edf.is_monotonic_increasing
    assert curves["records"].iloc[0] == RUNS_PER_SIDE * 4 * 2 * 500  # the warm-up second left out
    over_time = report.record_percentiles_over_time(runset)
    assert sorted(over_time["second"].unique()) == [0, 1, 2, 3]
    sections = {spec.key: make_section(spec, runset, tmp_path) for spec in FIGURES if spec.key in ("rl", "rt")}
    assert all(section.skipped is None and section.png for section in sections.values())
    assert list(sections["rl"].table.columns[-4:]) == ["p90_ms", "p99_ms", "p99.9_ms", "p99.99_ms"]
    assert (tmp_path / "record_latency_percentiles.svg").is_file()


def test_the_tail_by_load_figure_puts_each_techniques_p99_and_p999_against_the_rate(tmp_path):
    rng = np.random.default_rng(7)
    for policy, scale in (("fifo", 1.0), ("edf", 2.0)):
        for rate in (100, 200):
            for seed in (1, 2, 3):
                run_dir = make_run(tmp_path, f"{policy}-{rate}-{seed}", policy, [100.0, 101.0],
                                   bench={"seed": seed, "rate": rate})
                write_records(run_dir, scale * rate / 100, rng)
    runset = load_runset(tmp_path)
    table = report.record_tail_means(runset)
    assert len(table) == 2 * 2 * 2 and set(table["n"]) == {3} and set(table["percentile"]) == {"p99", "p99.9"}
    p99 = table[table["percentile"] == "p99"].set_index(["policy", "rate"])["mean"]
    assert p99["edf", 100] / p99["fifo", 100] == pytest.approx(2.0, rel=0.15)
    assert p99["fifo", 200] / p99["fifo", 100] == pytest.approx(2.0, rel=0.15)
    (section,) = [make_section(spec, runset, tmp_path) for spec in FIGURES if spec.key == "rx"]
    assert section.skipped is None and section.stem == "record_tail_vs_rate"
    assert (tmp_path / "record_tail_vs_rate.png").is_file()


def test_without_record_rows_the_record_figures_are_skipped(tmp_path):
    make_run(tmp_path, "fifo-1", "fifo", [100.0, 110.0], bench={"seed": 1})
    runset = load_runset(tmp_path)
    sections = [make_section(spec, runset, tmp_path) for spec in FIGURES if spec.key in ("rl", "rt", "rx")]
    assert len(sections) == 3 and all(section.skipped.startswith("no run has per-record latency") for section in sections)
    assert not (tmp_path / "fifo-1" / PERCENTILES_FILE).exists()
