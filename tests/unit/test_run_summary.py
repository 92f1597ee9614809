import json

from klinkctl.results.summary import build_summary, write_summary
from klinkctl.run.collectors import LATENCY_COLUMNS, CsvTable, query_of
from klinkctl.run.bench import drain_ms
from klinkctl.run.config import BenchConfig


def test_vertex_names_map_to_their_query():
    assert query_of("Source: q07/source -> q07/markers -> q07/filter") == "q07"
    assert query_of("q12/window -> q12/output") == "q12"


def write_latency(run_dir, latencies_and_warmup):
    table = CsvTable(run_dir / "latency.csv", LATENCY_COLUMNS)
    for i, (latency, warmup) in enumerate(latencies_and_warmup):
        table.write({"run": "r", "policy": "default", "query": "q00", "window_end": 1000 * i,
                     "swm_latency_ms": latency, "late_dropped": 1, "warmup": warmup})
    table.close()


def test_summary_leaves_warmup_rows_out_and_flags_a_lagging_generator(tmp_path):
    write_latency(tmp_path, [(9999, True), (100, False), (200, False), (300, False)])
    summary = build_summary(tmp_path, "r", {"workload": "ysb", "policy": "default"}, "completed", "", (0, 10_000),
                            {"behind_fraction": 0.02, "achieved_rate": 999.0, "events_sent": 10})
    assert summary["swm_latency_ms"]["count"] == 3
    assert summary["swm_latency_ms"]["mean"] == 200
    assert summary["swm_latency_ms"]["max"] == 300
    assert summary["windows_fired"] == 4 and summary["late_dropped"] == 4
    assert summary["flags"] and "fell behind schedule for 2.0%" in summary["flags"][0]
    assert summary["marker_latency_ms"]["count"] == 0  # no markers.csv: empty, not an error
    write_summary(tmp_path, summary)
    assert json.loads((tmp_path / "summary.json").read_text())["status"] == "completed"


def test_a_generator_within_one_percent_is_not_flagged(tmp_path):
    write_latency(tmp_path, [(100, False)])
    summary = build_summary(tmp_path, "r", {}, "completed", "", (0, 10_000), {"behind_fraction": 0.005})
    assert summary["flags"] == []


def test_drain_covers_delay_bound_and_watermark_interval():
    assert drain_ms(BenchConfig(delay="const:300ms", watermark_bound_ms=1000, watermark_interval_ms=200)) == 3500
