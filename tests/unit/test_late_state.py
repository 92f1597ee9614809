"""The average workload's late-event state (docs/late-state.md): its options refuse bad input in one line before
anything starts, a state backend the installed Flink lacks is refused, and the harness's exact recomputation
marks exactly the windows whose events no watermark can have dropped."""

from __future__ import annotations

import json
import time

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
    ("--payload-bytes", "70000", "--payload-bytes"),
    ("--destage-scarce", "1", "--destage-scarce"),
    ("--destage-very-scarce", "-0.1", "--destage-very-scarce"),
    ("--destage-order", "fifo", "fifo"),
    ("--destage-idle", "10", "unit"),
    ("--payload-bytes", "-1", "--payload-bytes"),
])
def test_bad_late_state_input_is_one_line_and_starts_nothing(tmp_path, option, value, message):
    state = tmp_path / "state"
    result = CliRunner().invoke(main, ["bench", "average", "--state-dir", str(state), option, value])
    assert result.exit_code != 0
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert message in result.output
    assert not state.exists()


def test_options_parse_with_units_and_belong_to_the_late_event_workloads_only():
    config = resolve(None, {"workload": "average", "late_state": "aion", "allowed_lateness": "1.5s",
                            "m_bucket_events": 100, "rho_min": 0.25})
    assert (config.late_state, config.allowed_lateness_ms, config.m_bucket_events, config.rho_min) == (
        "aion", 1500, 100, 0.25)
    assert config.measures_accuracy  # results.csv and exact.csv are always written
    with pytest.raises(KlinkError, match="--late-state applies to the average, bigrams and lrb-segments workloads "
                                         "only"):
        resolve(None, {"workload": "ysb", "late_state": "aion"})
    with pytest.raises(KlinkError, match="--sampler does not apply to the average workload"):
        resolve(None, {"workload": "average", "sampler": "aion"})
    config = resolve(None, {"workload": "average", "late_state": "aion", "late_trigger": "staleness",
                            "staleness_bound": 0.02})
    assert (config.late_trigger, config.staleness_bound) == ("staleness", 0.02)
    assert resolve(None, {"workload": "average"}).late_trigger == "watermark"  # the first slice's behaviour
    with pytest.raises(KlinkError, match="^--late-trigger staleness is AION's"):
        resolve(None, {"workload": "average", "late_state": "flink-heap", "late_trigger": "staleness"})
    config = resolve(None, {"workload": "average", "late_state": "aion", "late_trigger": "delta-t",
                            "late_executions": 11})
    assert (config.late_trigger, config.late_executions) == ("delta-t", 11)
    with pytest.raises(KlinkError, match="^--late-trigger delta-ev plans executions over --allowed-lateness, which "
                                         "is 0; give a lateness > 0"):
        resolve(None, {"workload": "average", "late_state": "aion", "late_trigger": "delta-ev",
                       "allowed_lateness_ms": 0})
    with pytest.raises(KlinkError, match="late-executions"):
        resolve(None, {"workload": "average", "late_state": "aion", "late_trigger": "delta-t", "late_executions": 0})
    assert resolve(None, {"workload": "average", "late_state": "aion", "predictive_cleanup": 0.99}).predictive_cleanup \
        == 0.99
    with pytest.raises(KlinkError, match="^--predictive-cleanup is AION's"):
        resolve(None, {"workload": "average", "predictive_cleanup": 0.99})
    with pytest.raises(KlinkError, match="--staleness-bound applies to the average, bigrams and lrb-segments "
                                         "workloads only"):
        resolve(None, {"workload": "ysb", "staleness_bound": 0.1})


def test_destaging_policies_are_aions_and_very_scarce_is_below_scarce():
    config = resolve(None, {"workload": "average", "late_state": "aion", "destage_idle": "2s", "destage_scarce": 0.3,
                            "destage_very_scarce": 0.1, "destage_order": "rate"})
    assert (config.destage_idle_ms, config.destage_scarce, config.destage_very_scarce, config.destage_order) == (
        2000, 0.3, 0.1, "rate")
    assert resolve(None, {"workload": "average", "late_state": "aion", "destage_very_scarce": 0.1}).destage_scarce == 0
    with pytest.raises(KlinkError, match="^--destage-idle, --destage-scarce and --destage-very-scarce are AION's"):
        resolve(None, {"workload": "average", "late_state": "flink-heap", "destage_scarce": 0.3})
    with pytest.raises(KlinkError, match="^--destage-very-scarce 0.4 is above --destage-scarce 0.3"):
        resolve(None, {"workload": "average", "late_state": "aion", "destage_scarce": 0.3, "destage_very_scarce": 0.4})


def test_p_buckets_need_the_events_of_the_lateness_and_a_window_at_the_peak_rate_never_less_than_the_floor():
    config = resolve(None, {"workload": "average", "late_state": "aion", "rate": 20_000, "payload_bytes": 2048,
                            "allowed_lateness": "20s", "window": "1s", "queries": 2})
    assert late_backends.p_bucket_bytes_needed(config) == 2 * 20_000 * 21 * (2048 + 32)
    surge = config.changed(rate_schedule="surge:4x@2s+5s")
    assert late_backends.p_bucket_bytes_needed(surge) == 4 * late_backends.p_bucket_bytes_needed(config)
    small = config.changed(rate=10, queries=1)
    assert late_backends.p_bucket_bytes_needed(small) == 512 * 2 ** 20  # PBucketDirectory.MIN_FREE_BYTES


def test_too_little_disk_for_the_p_buckets_is_one_line_before_anything_starts(monkeypatch, tmp_path):
    from collections import namedtuple

    usage = namedtuple("usage", "total used free")
    config = resolve(None, {"workload": "average", "late_state": "aion", "rate": 20_000, "payload_bytes": 2048,
                            "allowed_lateness": "20s"})
    asked = []
    monkeypatch.setattr(late_backends.shutil, "disk_usage", lambda path: asked.append(path) or usage(0, 0, 600 * 2 ** 20))
    with pytest.raises(KlinkError, match=r"^--late-state aion keeps up to 833 MiB of p-buckets on the disk of .* and "
                                         r"it has 600 MiB free: free space there, or lower --rate"):
        late_backends.check_p_bucket_disk(config, tmp_path / "flink" / "tmp")
    assert asked == [tmp_path]  # the nearest directory that exists: the stack creates its tmp dir later
    late_backends.check_p_bucket_disk(config.changed(rate=5_000), tmp_path / "flink" / "tmp")


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
    with_payload = average.exact_results([b"w1,5,abc,100", b"w1,3,xyz,50", b"#progress,2999"], config, None, 0)
    assert with_payload[["window_end", "exact", "events"]].to_dict("records") == [
        {"window_end": 1000, "exact": 4.0, "events": 2}]
    assert average.generator_args(resolve(None, {"workload": "average", "payload_bytes": 2048}))[-2:] == [
        "--payload-bytes", "2048"]
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
                       (1000, "#aion", 0, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13])])
    report = late_state.verdict(ok, exact)
    assert (report["windows_checked"], report["windows_equal"], report["all_checked_equal"]) == (1, 1, True)
    assert (report["late_accepted"], report["late_dropped"], report["aion"]["destaged"]) == (1, 2, 3)
    assert (report["aion"]["prestaged"], report["aion"]["staging_wait_ms"]) == (10, 11)
    assert (report["aion"]["idle_destaged"], report["aion"]["scarce_destaged"]) == (12, 13)
    older = pd.concat([ok.iloc[:-1], results_rows([(1000, "#aion", 0, [1, 2, 3, 4, 5, 6, 7, 8, 9])])])
    assert "prestaged" not in late_state.verdict(older, exact)["aion"]
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


def rest_stub(monkeypatch, gauges: dict[str, list[float]], failed: set[str] = frozenset()):
    """Flink's REST API for a job with a source vertex and one window vertex per query (gauges: the window's
    pBucketBytes per subtask, empty before the JobManager fetched them); one TaskManager; `failed` paths raise."""
    import urllib.error
    from klinkctl.stack import flink
    vertices = [{"id": "v-src", "name": "Source: q00/source -> q00/markers -> q00/parse"},
                {"id": "v-firings", "name": "q00/firings -> q00/output"}] + [
        {"id": f"v-{query}", "name": f"{query}/window"} for query in gauges]
    asked = []

    def rest_get(spec, path, **kwargs):
        asked.append(path)
        if any(path.startswith(f) for f in failed):
            raise urllib.error.URLError("refused")
        if path == "/jobs/j1":
            return {"vertices": vertices}
        if path == "/taskmanagers":
            return {"taskmanagers": [{"id": "tm-1"}]}
        if path.startswith("/taskmanagers/tm-1/metrics"):
            return [{"id": "Status.JVM.Memory.Heap.Used", "value": "1000"},
                    {"id": "Status.JVM.GarbageCollector.All.Time", "value": "7"}]
        if path.startswith("/jobs/j1/vertices/v-firings/"):
            assert path.endswith("/subtasks/metrics?get=q00/firings.liveHeapBytes&agg=max"), path
            return [{"id": "q00/firings.liveHeapBytes", "max": "600.0"}]
        query = path.split("/")[4].removeprefix("v-")
        assert path.endswith(f"/subtasks/metrics?get={query}/window.pBucketBytes&agg=sum"), path
        values = gauges[query]
        return [{"id": f"{query}/window.pBucketBytes", "sum": str(float(sum(values)))}] if values else []
    monkeypatch.setattr(flink, "rest_get", rest_get)
    return asked


def test_p_bucket_bytes_are_the_sum_of_every_aion_instances_gauge_read_over_rest(monkeypatch, tmp_path):
    assert late_state.operator_gauges("q00/window", "window", "pBucketBytes") == ["q00/window.pBucketBytes"]
    assert late_state.operator_gauges("q01/window -> q01/firings", "window", "pBucketBytes") == [
        "q01/window.pBucketBytes"]
    assert late_state.operator_gauges("q01/window -> q01/firings", "firings", "liveHeapBytes") == [
        "q01/firings.liveHeapBytes"]
    assert late_state.operator_gauges("Source: q00/source -> q00/markers", "window", "pBucketBytes") == []
    gauges = {"q00": [], "q01": []}
    asked = rest_stub(monkeypatch, gauges)
    sampler = late_state.LateStateSampler(None, tmp_path, "j1", True, {"run": "r1", "policy": "default"})
    assert sampler.p_bucket_bytes() is None  # not reported yet: no sample, not a zero
    assert not any("v-src" in path or "v-firings" in path for path in asked)  # only the windows are asked
    gauges.update(q00=[4096, 1024], q01=[512])
    sampler._sample(1000)
    gauges.update(q00=[100], q01=[0])
    sampler._sample(2000)
    assert (sampler.max_p_bucket_bytes, sampler.last_p_bucket_bytes) == (5632, 100)
    sampler._file.close()
    table = pd.read_csv(tmp_path / late_state.TABLE)
    assert table["p_bucket_bytes"].tolist() == [5632, 100] and table["heap_used_bytes"].tolist() == [1000, 1000]
    assert table["live_heap_bytes"].tolist() == [600, 600]


def test_a_run_without_aion_asks_for_no_p_buckets_and_the_report_takes_the_last_sample(monkeypatch, tmp_path):
    asked = rest_stub(monkeypatch, {"q00": [2048]})
    heap = late_state.LateStateSampler(None, tmp_path, "j1", False, {"run": "r1", "policy": "default"})
    heap._sample(1000)
    heap._file.close()
    assert not any("pBucketBytes" in path for path in asked)
    assert pd.read_csv(tmp_path / late_state.TABLE)["p_bucket_bytes"].tolist() == [0]
    aion = resolve(None, {"workload": "average", "late_state": "aion"})
    sampler = late_state.start(None, aion, tmp_path, "r1", "j1")
    sampler.interval_s = 0.01
    for _ in range(500):
        if sampler.last_p_bucket_bytes is not None:
            break
        time.sleep(0.01)
    sampler.stop()
    report = late_state.finish(sampler, aion, tmp_path)  # no results.csv: one problem, the bytes are reported
    written = json.loads((tmp_path / "late-state.json").read_text())
    assert (written["max_p_bucket_bytes"], written["p_bucket_bytes_at_end"]) == (2048, 2048)
    assert len(report) == 1 and report[0].startswith("late-state report:")


def test_a_job_failure_is_one_line_naming_its_root_cause_once():
    from klinkctl.flink_jobs import failure_line
    refused = ("AION's p-buckets need at least 512 MiB free on the TaskManager's disk of /tmp/klink-p-buckets "
               "(io.tmp.dirs); only 1 MiB are free")
    # as Flink 2.3's /jobs/<id>/exceptions had it when AionWindowOperator.open() refused a 1 MiB tmpfs
    entry = {"exceptionName": "org.apache.flink.runtime.JobException",
             "stacktrace": "org.apache.flink.runtime.JobException: Recovery is suppressed by "
                           "NoRestartBackoffTimeStrategy\n\tat org.apache.flink.runtime.executiongraph.Failover\n"
                           f"Caused by: java.io.IOException: {refused}\n\tat io.klink.workloads.late.PBucketDirectory"
                           ".choose(PBucketDirectory.java:55)\n\t... 12 more\n"}
    assert failure_line(entry) == f"java.io.IOException: {refused}"
    direct = {"exceptionName": "java.io.IOException", "stacktrace": f"java.io.IOException: {refused}\n\tat x"}
    assert failure_line(direct) == f"java.io.IOException: {refused}"
    wrapped = {"exceptionName": "org.apache.flink.util.FlinkRuntimeException", "stacktrace": "boom\n\tat x"}
    assert failure_line(wrapped) == "org.apache.flink.util.FlinkRuntimeException: boom"


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
    assert "learned" not in report  # every window fired before the first (1000) was cleaned up at 6000


def test_the_learned_summary_leaves_out_the_windows_planned_before_the_first_cleanup():
    rows = results_rows([(1000, "#staleness", 2, [5, 5, 10, 0.16, 1500]), (2000, "#staleness", 3, [4, 4, 5, 0.12, 1500]),
                         (3000, "#staleness", 2, [3, 4, 8, 0.05, 1500]), (4000, "#staleness", 2, [4, 4, 6, 0.03, 1500])])
    report = late_state.staleness(rows, 0.05)
    assert report["executions_mean"] == 4  # all four
    assert report["learned"] == {"windows": 2, "executions_mean": 3.5, "executions_max": 4,
                                 "max_staleness_mean": pytest.approx(0.04), "max_staleness_max": 0.05,
                                 "within_bound": 1.0}  # 3000 and 4000 fired after 1000's cleanup at 2500


def test_gc_share_is_each_taskmanagers_collection_time_over_its_sampled_span():
    samples = pd.DataFrame([{"time": t, "taskmanager": tm, "gc_time_ms": gc} for t, tm, gc in [
        (1000, "a", 10), (2000, "a", 110), (3000, "a", 210), (1000, "b", 0), (3000, "b", 1000), (4000, "c", None)]])
    assert late_state.gc_share(samples) == 0.5  # b: 1000 ms of 2000; a: 0.1
    assert late_state.gc_share(samples[samples["taskmanager"] == "c"]) is None


def test_memory_is_summarised_over_the_measured_span_when_samples_lie_in_it():
    samples = pd.DataFrame([{"time": t, "taskmanager": "a", "heap_used_bytes": used, "live_heap_bytes": live,
                             "gc_time_ms": gc} for t, used, live, gc in [
        (1000, 900, 800, 0), (2000, 300, 100, 100), (3000, 500, 200, 300), (4000, 400, None, 500)]])
    report = late_state.memory(samples, (1500, 3500))
    assert report == {"memory_span": "measured", "heap_used_bytes": {"median": 400.0, "max": 500.0},
                      "live_heap_bytes": {"median": 150.0, "max": 200.0}, "gc_share": 0.2}
    assert late_state.memory(samples, (5000, 6000))["memory_span"] == "whole run"
    assert late_state.memory(samples, None)["live_heap_bytes"] == {"median": 200.0, "max": 800.0}


@pytest.mark.parametrize("backend, refused", [("local", True), ("remote", False)])
def test_the_p_bucket_disk_is_checked_on_the_local_stack_whose_disk_klinkctl_knows(monkeypatch, tmp_path, backend,
                                                                                  refused):
    from collections import namedtuple

    from klinkctl.run import stack_checks
    from klinkctl.stack.spec import StackSpec

    monkeypatch.setattr(stack_checks, "backend_name", lambda spec: backend)
    monkeypatch.setattr(late_backends.shutil, "disk_usage", lambda path: namedtuple("usage", "free")(2 ** 20))
    config = resolve(None, {"workload": "average", "late_state": "aion"})
    if refused:
        with pytest.raises(KlinkError, match="of p-buckets on the disk of"):
            stack_checks.check_stack(StackSpec(state_dir=tmp_path), config, {})
    else:
        stack_checks.check_stack(StackSpec(state_dir=tmp_path), config, {})
    stack_checks.check_stack(StackSpec(state_dir=tmp_path), config.changed(late_state="flink-heap"), {})
