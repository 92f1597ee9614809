"""The minibatch baseline on the real stack (docs/combiner.md "minibatch"): the rides query as Flink's Table API
two-phase mini-batch aggregation gives every region's exact result, its windows get latency rows by the changelog
definition, its operators are Flink's local and global aggregates named for their query, and the definition's
last-update part gives a windowed run's SWM latency back (the `none` combiner)."""

from __future__ import annotations

import pandas as pd
import pytest

from klinkctl.results import changelog
from tests.integration.test_rides_bench import assert_windows_equal_the_exact_results, run

pytestmark = pytest.mark.integration


def test_minibatch_gives_the_exact_windows_and_a_latency_row_for_each(running_stack, tmp_path):
    run_dir, summary = run(running_stack, tmp_path / "minibatch", "--combiner", "minibatch",
                           "--combiner-interval", "200ms", "--combiner-max-records", "500")
    assert summary["accuracy"]["max_error"] == 0
    assert_windows_equal_the_exact_results(run_dir, "passengers")  # each region's final update is exact
    # Flink planned the two phases: the local aggregate chained to the parse (P = 2), the global one behind the
    # shuffle (parallelism 1, as the other combiners' window); every task named for its query
    vertices = pd.read_csv(run_dir / "throughput.csv")["job_vertex"].unique()
    assert any("q00/parse" in v and "LocalGroupAggregate" in v for v in vertices), vertices
    assert any(v.startswith("q00/GlobalGroupAggregate") for v in vertices), vertices
    assert all(v.removeprefix("Source: ").startswith("q00/") for v in vertices), vertices
    # Flink's sources read as for every combiner (1 s counters over a 3 s span: within half of the rate)
    assert 0.5 * 3000 < summary["throughput"]["flink_source_records_per_s"] < 1.5 * 3000
    assert not (run_dir / "combiner.csv").exists()  # no controller

    latency = pd.read_csv(run_dir / "latency.csv")
    measured = latency[~latency["warmup"]]
    assert summary["windows_measured"] >= 3 and len(measured) >= 3
    assert (measured["output_at"] >= measured["fired_at"]).all()
    assert (measured["swm"] >= measured["window_end"] - 1).all()  # its sweeping watermark passed its end
    # the window waits for its SWM (B = 1 s bound) but not for far longer at 3000 trips/s
    assert measured["swm_latency_ms"].between(900, 5000).all(), measured
    # the latency rows' last updates are the changelog's: the last result of each window at the output
    last = changelog.result_latency(pd.read_csv(run_dir / "result-updates.csv"))
    both = latency.merge(last, on=["query", "window_end"])
    assert len(both) == len(latency) and (both["fired_at"] == both["output_at_y"]).all()
    assert pd.read_csv(run_dir / "markers.csv").empty  # blocking markers cannot cross SQL


def test_the_last_update_definition_gives_a_windowed_runs_swm_latency_back(running_stack, tmp_path):
    run_dir, summary = run(running_stack, tmp_path / "none", "--combiner", "none")
    assert summary["accuracy"]["max_error"] == 0
    latency = pd.read_csv(run_dir / "latency.csv")
    last = changelog.result_latency(pd.read_csv(run_dir / "results.csv"))
    both = latency.merge(last, on=["query", "window_end"])
    assert len(both) == len(latency) >= 4
    # a window's results reach the output operator just before its firing summary
    gap = both["swm_latency_ms"] - both["latency_ms"]
    assert gap.between(0, 20).all(), both


def test_minibatch_split_puts_the_global_aggregate_on_the_other_taskmanager(running_stack, tmp_path):
    run_dir, summary = run(running_stack, tmp_path / "split", "--combiner", "minibatch", "--placement", "split",
                           "--combiner-parallelism", "1")
    assert summary["accuracy"]["max_error"] == 0
    placement = pd.read_csv(run_dir / "placement.csv")
    # each task by its first operator, the planner's node ids dropped: q00/GlobalGroupAggregate[12] -> ...
    taskmanager = {row.vertex.split(" -> ")[0].removeprefix("Source: ").split("[")[0]: row.taskmanager
                   for row in placement.itertuples()}
    # the global aggregate and the output behind the shuffle, as the other combiners' window with split
    assert taskmanager["q00/GlobalGroupAggregate"] == taskmanager["q00/output"] != taskmanager["q00/parse"]
    assert taskmanager["q00/source"] == taskmanager["q00/parse"]
