"""Per-record latency: the collector's "records" rows, histograms merged into a run's figures, summary.json."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hdrh.histogram import HdrHistogram

from klinkctl.results import record_latency
from klinkctl.results.record_latency import (EXPECTED_RECORDS_FILE, PERCENTILES_FILE, RECORD_FILE, decode,
                                             empty_histogram, merge, run_record_latency)
from klinkctl.results.summary import build_summary
from klinkctl.run.collectors import MetricRows

JAVA = json.loads((Path(__file__).parents[1] / "fixtures" / "record-latency" / "java-histogram.json").read_text())
WARMUP_UNTIL = 1_764_050_010_000


def encoded(latencies_us) -> str:
    """A histogram as the Java sink sends it: base64 of the V2 compressed encoding."""
    histogram = empty_histogram()
    for value in latencies_us:
        histogram.record_value(int(value))
    return histogram.encode().decode()


def records_row(start_ms, latencies_us, subtask=0, query="q00", duplicates=0, queued_us_each=1500) -> dict:
    return {"type": "records", "query": query, "subtask": subtask, "start_ms": start_ms, "end_ms": start_ms + 1000,
            "count": len(latencies_us), "duplicates": duplicates, "queued_us": queued_us_each * len(latencies_us),
            "histogram": encoded(latencies_us) if len(latencies_us) else ""}


def collect(run_dir: Path, rows: list[dict]) -> None:
    """The rows as the metrics collector writes them (warm-up until WARMUP_UNTIL)."""
    tables = MetricRows(run_dir, "r1", "fifo", WARMUP_UNTIL)
    for row in rows:
        tables.record(dict(row))
    tables.close()


# --- Java compatibility ---------------------------------------------------------------------------

def test_a_histogram_java_encoded_decodes_to_javas_own_figures():
    histogram = decode(JAVA["histogram"])
    assert histogram.get_total_count() == JAVA["count"]
    assert histogram.get_mean_value() == pytest.approx(JAVA["mean"])
    assert histogram.get_max_value() == JAVA["max"] and histogram.get_min_value() == JAVA["min"]
    for percentile, value in JAVA["percentiles"].items():
        assert histogram.get_value_at_percentile(float(percentile)) == value


def test_the_java_histogram_merges_with_python_ones_into_milliseconds():
    merged = merge([decode(JAVA["histogram"]), decode(encoded([10_000_000] * 10)), None])
    assert merged.get_total_count() == JAVA["count"] + 10
    figures = record_latency.latency_summary(merged, duplicates=3)
    assert figures["count"] == JAVA["count"] + 10 and figures["duplicates"] == 3
    assert figures["p50_ms"] == pytest.approx(500, rel=5e-3)  # 10 more records above it: the median moves up
    assert figures["max_ms"] == pytest.approx(10_000, rel=1e-3)


# --- the collector ----------------------------------------------------------------------------------

def test_records_rows_go_to_record_latency_csv_with_their_warmup(tmp_path):
    collect(tmp_path, [records_row(WARMUP_UNTIL - 1000, [500]), records_row(WARMUP_UNTIL, [700], subtask=1,
                                                                            duplicates=2)])
    table = pd.read_csv(tmp_path / RECORD_FILE)
    assert list(table.columns) == ["run", "policy", "query", "subtask", "start_ms", "end_ms", "count", "duplicates",
                                   "queued_us", "histogram", "warmup"]
    assert table["warmup"].tolist() == [True, False] and table["duplicates"].tolist() == [0, 2]
    assert decode(table["histogram"][1]).get_total_count() == 1 and set(table["run"]) == {"r1"}


def test_a_workload_without_records_rows_gets_no_record_latency_csv(tmp_path):
    collect(tmp_path, [{"type": "marker", "query": "q00", "created_at": WARMUP_UNTIL, "output_at": WARMUP_UNTIL + 5,
                        "latency_ms": 5}])
    assert not (tmp_path / RECORD_FILE).exists() and (tmp_path / "markers.csv").is_file()
    assert run_record_latency(tmp_path) is None
    assert not (tmp_path / PERCENTILES_FILE).exists()


# --- a run's figures -------------------------------------------------------------------------------

@pytest.fixture
def run_dir(tmp_path):
    """Warm-up: one second at 60 s latency (left out). Measured: two seconds on two subtasks and two queries,
    1 000 records at 1..1 000 ms each second, plus ten at 2 s in the second one; a second without records."""
    second = [1000 * value for value in range(1, 1001)]
    collect(tmp_path, [
        records_row(WARMUP_UNTIL - 1000, [60_000_000] * 100, queued_us_each=50_000_000),
        records_row(WARMUP_UNTIL + 1000, second[1::2], subtask=1, duplicates=4),
        records_row(WARMUP_UNTIL, second[::2], subtask=0),
        records_row(WARMUP_UNTIL + 1000, [*second[::2], *[2_000_000] * 10], subtask=0, query="q01",
                    queued_us_each=3500),
        records_row(WARMUP_UNTIL, second[1::2], subtask=1, query="q01", duplicates=1),
        records_row(WARMUP_UNTIL + 2000, [], subtask=0),
    ])
    (tmp_path / "throughput.csv").write_text(  # what the sources read by Flink's metrics: the run is not stale
        "time,job_vertex,records_in_per_s\n"
        + "".join(f"{WARMUP_UNTIL + 1000 * s},Source: q00/source,700.0\n" for s in range(3)))
    return tmp_path


def test_the_measured_records_merge_across_subtasks_and_queries_without_the_warmup(run_dir):
    figures = run_record_latency(run_dir)
    assert figures["count"] == 2010 and figures["duplicates"] == 5
    # every value of 1..1 000 ms twice, then ten at 2 s (0.5 % of the records): rank 1 005 is 503 ms
    assert figures["p50_ms"] == pytest.approx(503, rel=1e-3)
    assert figures["p99_ms"] == pytest.approx(995, rel=1e-3)
    assert figures["p999_ms"] == pytest.approx(2000, rel=1e-3)
    assert figures["max_ms"] == pytest.approx(2000, rel=1e-3)  # not the warm-up's 60 s
    assert figures["mean_ms"] == pytest.approx((2 * 500_500 + 10 * 2000) / 2010, rel=1e-3)
    assert set(figures) == {"count", "duplicates", "mean_ms", "p50_ms", "p90_ms", "p99_ms", "p999_ms", "p9999_ms",
                            "max_ms", "queueing_mean_ms", "records_total", "duplicates_total", "stage_shares"}
    # queueing: 1 500 records at 1.5 ms and 510 at 3.5 ms; not the warm-up's 50 s
    assert figures["queueing_mean_ms"] == pytest.approx((1500 * 1.5 + 510 * 3.5) / 2010)
    # the whole run, warm-up included: what is set against the events the generator sent
    assert (figures["records_total"], figures["duplicates_total"]) == (2110, 5)


def test_the_per_second_table_merges_subtasks_in_order_of_time(run_dir):
    run_record_latency(run_dir)
    table = pd.read_csv(run_dir / PERCENTILES_FILE)
    assert list(table.columns) == ["second", "count", "p90_ms", "p99_ms", "p999_ms", "p9999_ms"]
    assert table["second"].tolist() == [WARMUP_UNTIL // 1000, WARMUP_UNTIL // 1000 + 1, WARMUP_UNTIL // 1000 + 2]
    assert table["count"].tolist() == [1000, 1010, 0]
    assert table["p99_ms"][0] == pytest.approx(990, rel=1e-3) and table["p9999_ms"][1] == pytest.approx(2000, rel=1e-3)
    assert np.isnan(table["p99_ms"][2])  # a second without records has no percentile


def test_a_run_with_only_warmup_records_has_count_zero_and_no_figures(tmp_path):
    collect(tmp_path, [records_row(WARMUP_UNTIL - 1000, [100])])
    figures = run_record_latency(tmp_path)
    assert figures["count"] == 0 and figures["p99_ms"] is None and figures["mean_ms"] is None
    assert pd.read_csv(tmp_path / PERCENTILES_FILE).empty


# --- summary.json ----------------------------------------------------------------------------------

def summary_of(run_dir: Path) -> dict:
    return build_summary(run_dir, "r1", {"workload": "records"}, "completed", "", (WARMUP_UNTIL, WARMUP_UNTIL + 3000),
                         {})


def test_the_summary_has_record_latency_for_runs_with_record_rows(run_dir):
    summary = summary_of(run_dir)
    assert summary["record_latency"] == {**run_record_latency(run_dir), "records_expected": None,
                                         "records_missing": None}  # nothing sent
    assert summary["record_latency"]["count"] == 2010 and summary["comparison"]["valid"]
    assert (run_dir / PERCENTILES_FILE).is_file()


def test_behind_a_filter_the_sinks_are_checked_against_the_records_it_lets_through(run_dir):
    total = run_record_latency(run_dir)["records_total"]
    (run_dir / EXPECTED_RECORDS_FILE).write_text(json.dumps({"events": 3 * total, "records": total + 5}))
    figures = summary_of(run_dir)["record_latency"]
    assert figures["records_expected"] == total + 5 and figures["records_missing"] == 5


def test_the_summary_of_a_run_without_record_rows_is_as_before(tmp_path):
    collect(tmp_path, [])
    assert "record_latency" not in summary_of(tmp_path)
    assert not (tmp_path / PERCENTILES_FILE).exists()


def test_a_python_histogram_round_trips_through_base64_text():
    text = encoded([1, 10, 100, 3_600_000_000])
    assert isinstance(HdrHistogram.decode(text).get_max_value(), int)
    assert decode(text).get_total_count() == 4 and decode("") is None and decode(float("nan")) is None


def test_records_the_sinks_never_saw_are_flagged_and_the_run_is_not_compared(run_dir):
    summary = build_summary(run_dir, "r1", {"workload": "records"}, "completed", "",
                            (WARMUP_UNTIL, WARMUP_UNTIL + 3000), {"events_sent": 2200})
    assert summary["record_latency"]["records_missing"] == 90
    assert any("90 of 2200 records never reached the sinks" in flag for flag in summary["flags"])
    assert summary["comparison"] == {"valid": False, "invalid_reasons": ["records missing at the sinks"]}


def test_every_record_seen_leaves_the_run_valid(run_dir):
    summary = build_summary(run_dir, "r1", {"workload": "records"}, "completed", "",
                            (WARMUP_UNTIL, WARMUP_UNTIL + 3000), {"events_sent": 2110})
    assert summary["record_latency"]["records_missing"] == 0 and summary["comparison"]["valid"]


def test_stage_shares_place_each_stage_tasks_records_on_its_taskmanager(tmp_path):
    pd.DataFrame({"task": ["q00:op#0", "q00:op#1", "q00:op#0", "q00:op#1", "q00:src"],
                  "query": ["q00"] * 5, "role": ["stage-1", "stage-1", "stage-2", "stage-2", "spout"],
                  "kind": ["op"] * 5, "subtask": [0, 1, 0, 1, 0], "records_in": [300, 100, 200, 400, 9999],
                  "records_out": [0] * 5, "cpu_ns": [0] * 5, "bytes_in": [0] * 5}).to_csv(tmp_path / "tasks.csv",
                                                                                      index=False)
    pd.DataFrame({"vertex": ["q00/stage-1", "q00/stage-1", "q00/stage-2", "q00/stage-2", "q00/spout"],
                  "subtask": [0, 1, 0, 1, 0],
                  "taskmanager": ["taskmanager-1", "taskmanager-2", "taskmanager-2", "taskmanager-1",
                                  "taskmanager-1"]}).to_csv(tmp_path / "placement.csv", index=False)
    # taskmanager-1: 300 (stage 1) + 400 (stage 2) of 1000; the spout's records are not a stage's
    assert record_latency.stage_shares(tmp_path) == {"taskmanager-1": 0.7, "taskmanager-2": 0.3}


def test_stage_shares_need_both_files(tmp_path):
    (tmp_path / "tasks.csv").write_text("task,query,role,kind,subtask,records_in,records_out,cpu_ns,bytes_in\n")
    assert record_latency.stage_shares(tmp_path) is None
