"""The average workload's late-event state (docs/late-state.md): its options refuse bad input in one line before
anything starts, a state backend the installed Flink lacks is refused, and the harness's exact recomputation
marks exactly the windows whose events no watermark can have dropped."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from click.testing import CliRunner

from klinkctl import late_backends
from klinkctl.cli import main
from klinkctl.errors import KlinkError
from klinkctl.run import late_state
from klinkctl.run.config import resolve
from klinkctl.workloads import average


@pytest.mark.parametrize("option, value, message", [
    ("--allowed-lateness", "2h", "--allowed-lateness"),
    ("--allowed-lateness", "10", "unit"),
    ("--m-bucket-events", "0", "--m-bucket-events must be at least 1"),
    ("--m-bucket-events", "20000000", "--m-bucket-events"),
    ("--rho-min", "1.5", "--rho-min"),
    ("--rho-min", "-0.1", "--rho-min"),
    ("--late-state", "flink-magic", "flink-magic"),
    ("--late-trigger", "sometimes", "sometimes"),
    ("--staleness-bound", "0", "--staleness-bound"),
    ("--staleness-bound", "1.5", "--staleness-bound"),
    ("--predictive-cleanup", "1", "--predictive-cleanup"),
])
def test_bad_late_state_input_is_one_line_and_starts_nothing(tmp_path, option, value, message):
    state = tmp_path / "state"
    result = CliRunner().invoke(main, ["bench", "average", "--state-dir", str(state), option, value])
    assert result.exit_code != 0
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert message in result.output
    assert not state.exists()


def test_options_parse_with_units_and_belong_to_the_average_workload_only():
    config = resolve(None, {"workload": "average", "late_state": "aion", "allowed_lateness": "1.5s",
                            "m_bucket_events": 100, "rho_min": 0.25})
    assert (config.late_state, config.allowed_lateness_ms, config.m_bucket_events, config.rho_min) == (
        "aion", 1500, 100, 0.25)
    assert config.measures_accuracy  # results.csv and exact.csv are always written
    with pytest.raises(KlinkError, match="--late-state applies to the average workload only"):
        resolve(None, {"workload": "ysb", "late_state": "aion"})
    with pytest.raises(KlinkError, match="--sampler does not apply to the average workload"):
        resolve(None, {"workload": "average", "sampler": "aion"})
    config = resolve(None, {"workload": "average", "late_state": "aion", "late_trigger": "staleness",
                            "staleness_bound": 0.02})
    assert (config.late_trigger, config.staleness_bound) == ("staleness", 0.02)
    assert resolve(None, {"workload": "average"}).late_trigger == "watermark"  # the first slice's behaviour
    with pytest.raises(KlinkError, match="^--late-trigger staleness is AION's"):
        resolve(None, {"workload": "average", "late_state": "flink-heap", "late_trigger": "staleness"})
    assert resolve(None, {"workload": "average", "late_state": "aion", "predictive_cleanup": 0.99}).predictive_cleanup \
        == 0.99
    with pytest.raises(KlinkError, match="^--predictive-cleanup is AION's"):
        resolve(None, {"workload": "average", "predictive_cleanup": 0.99})
    with pytest.raises(KlinkError, match="--staleness-bound applies to the average workload only"):
        resolve(None, {"workload": "ysb", "staleness_bound": 0.1})


def test_a_state_backend_the_installed_flink_lacks_is_refused(monkeypatch):
    assert "org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend" in late_backends.flink_classes()
    monkeypatch.setattr(late_backends, "flink_classes",
                        lambda: frozenset({"org.apache.flink.runtime.state.hashmap.HashMapStateBackend"}))
    resolve(None, {"workload": "average", "late_state": "flink-heap"})
    with pytest.raises(KlinkError, match="^--late-state flink-forst needs org.apache.flink.state.forst."
                                         "ForStStateBackend, which the installed Flink lacks"):
        resolve(None, {"workload": "average", "late_state": "flink-forst"})


def test_exact_results_check_only_windows_no_watermark_can_have_dropped_from():
    config = resolve(None, {"workload": "average", "allowed_lateness": "1s", "watermark_bound": "100ms",
                            "window": "1s"})
    # topic order; the progress line moves the watermark bound to 4899 before the last two events arrive
    values = [b"w1,5,100", b"w2,7,1500", b"w1,3,50", b"#progress,5000", b"w1,4,900", b"w1,2,1200", b"bad"]
    exact = average.exact_results(values, config, None, 0)
    assert exact.to_dict("records") == [
        {"window_end": 1000, "key": "w1", "exact": 4.0, "events": 3, "sum": 12.0, "checked": False},
        {"window_end": 2000, "key": "w1", "exact": 2.0, "events": 1, "sum": 2.0, "checked": False},
        {"window_end": 2000, "key": "w2", "exact": 7.0, "events": 1, "sum": 7.0, "checked": False}]
    later = average.exact_results([b"w1,5,100", b"w2,7,1500", b"w1,3,50", b"#progress,2999"], config, None, 0)
    assert later["checked"].tolist() == [True, True]  # 2999 - 100 < 1000 + 1000: nothing can be dropped yet
    partial = average.exact_results([b"w1,5,100", b"w1,6,1020", b"#progress,1200"], config, None, 0)
    assert partial["checked"].tolist() == [True, False]  # the last watermark, 1099, passes 999, never 1999


def results_rows(rows):
    return pd.DataFrame([{"query": "q00", "window_end": end, "key": key, "value": int(count), "weight": 1.0,
                          "fields": json.dumps(fields)} for end, key, count, fields in rows])


def test_the_final_execution_is_compared_and_a_missing_late_event_is_a_mismatch():
    exact = pd.DataFrame([{"query": "q00", "window_end": 1000, "key": "w1", "exact": 4.0, "events": 3,
                           "sum": 12.0, "checked": True},
                          {"query": "q00", "window_end": 2000, "key": "w1", "exact": 2.0, "events": 1,
                           "sum": 2.0, "checked": False}])
    ok = results_rows([(1000, "w1", 3, [4.0, 12.0, 3, 2, 1]), (1000, "w1", 2, [5.0, 10.0, 2, 1, 0]),
                       (2000, "w1", 1, [9.0, 9.0, 1, 1, 0]), (1000, "#dropped", 2, None),
                       (1000, "#aion", 0, [1, 2, 3, 4, 5, 6, 7, 8, 9])])
    report = late_state.verdict(ok, exact)
    assert (report["windows_checked"], report["windows_equal"], report["all_checked_equal"]) == (1, 1, True)
    assert (report["late_accepted"], report["late_dropped"], report["aion"]["destaged"]) == (1, 2, 3)
    stale = results_rows([(1000, "w1", 2, [5.0, 10.0, 2, 1, 0])])
    report = late_state.verdict(stale, exact)
    assert (report["windows_equal"], report["all_checked_equal"]) == (0, False)
    assert report["mismatches"][0]["count"] == 2 and report["mismatches"][0]["exact_count"] == 3
    purged = pd.concat([stale, results_rows([(1000, "#dropped", 1, None)])])  # purged early by predictive cleanup
    assert late_state.verdict(purged, exact)["windows_checked"] == 1
    assert late_state.verdict(purged, exact, predictive=True)["windows_checked"] == 0
    reported = pd.concat([ok, results_rows([(1000, "#staleness", 1, [1, 2, 1, 0.1, 1000])])])
    assert late_state.verdict(ok, exact, cleaned_up_only=True)["windows_checked"] == 0  # not cleaned up: stale
    assert late_state.verdict(reported, exact, cleaned_up_only=True)["windows_equal"] == 1


def test_aion_needs_the_local_backend_and_free_disk_before_anything_starts(monkeypatch, tmp_path):
    from collections import namedtuple
    config = resolve(None, {"workload": "average", "late_state": "aion"})
    with pytest.raises(KlinkError, match="^--late-state aion writes its p-buckets .* not compose$"):
        late_state.check_run(config, lambda: "compose", tmp_path / "results")
    late_state.check_run(config, lambda: "local", tmp_path / "results")
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(late_state.shutil, "disk_usage", lambda path: usage(10**9, 10**9 - 2**20, 2**20))
    with pytest.raises(KlinkError, match="only 1 MiB free on the disk of"):
        late_state.check_run(config, lambda: "local", tmp_path / "results")
    late_state.check_run(resolve(None, {"workload": "average"}), lambda: "compose", tmp_path)  # heap: no p-buckets
    assert not (tmp_path / "results").exists()


def test_each_aion_window_reports_its_executions_and_staleness_and_the_run_sums_them_up():
    rows = results_rows([(1000, "#staleness", 2, [2, 2, 10, 0.04, 5000]), (2000, "#staleness", 3, [3, 3, 5, 0.07, 5000]),
                         (3000, "#staleness", 0, [0, 2, 0, 0.0, 2100]), (1000, "w1", 3, [4.0, 12.0, 3, 2, 1])])
    report = late_state.staleness(rows, 0.05)
    assert (report["windows"], report["windows_with_late_events"]) == (3, 2)
    assert (report["executions_mean"], report["executions_max"]) == (2.5, 3)
    assert report["max_staleness_max"] == 0.07 and report["max_staleness_mean"] == pytest.approx(0.055)
    assert report["within_bound"] == 0.5
    assert report["per_window"][1] == {"query": "q00", "window_end": 2000, "executions": 3, "planned": 3,
                                       "late_events": 5, "max_staleness": 0.07, "bound_ms": 5000}
    assert report["bound_ms"] == {"first": 5000, "last": 2100, "min": 2100, "median": 5000.0, "max": 5000}
    assert late_state.staleness(rows[rows["key"] == "w1"], 0.05) == {}  # Flink's windows report none
