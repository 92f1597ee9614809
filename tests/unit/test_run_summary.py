import json

import pytest

from klinkctl.results.summary import build_summary, windows_expected, write_summary
from klinkctl.run.collectors import LATENCY_COLUMNS, CsvTable, query_of
from klinkctl.run.bench import drain_ms
from klinkctl.run.config import RunSpec


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


def test_the_summary_says_whether_the_run_may_be_compared(tmp_path):
    write_latency(tmp_path, [(100, False), (200, False)])
    clean = build_summary(tmp_path, "r", {}, "completed", "", (0, 10_000), {"behind_fraction": 0.0})
    assert clean["comparison"] == {"valid": True, "invalid_reasons": []}
    failed = build_summary(tmp_path, "r", {}, "failed", "boom", (0, 10_000), {})
    assert failed["comparison"] == {"valid": False, "invalid_reasons": ["status failed"]}


def test_drain_covers_delay_bound_and_watermark_interval():
    assert drain_ms(RunSpec(delay="const:300ms", watermark_bound_ms=1000, watermark_interval_ms=200)) == 3500


ESTIMATOR_HEADER = ("estimator,confidence,query,input,deadline_ms,predicted_mean_ms,sigma_ms,t_min_ms,t_max_ms,"
                    "actual_ms,inside,error_ms,skipped\n")


def test_estimator_accuracy_reports_inside_width_and_error_of_the_measured_swms(tmp_path):
    (tmp_path / "estimator.csv").write_text(
        ESTIMATOR_HEADER
        + "klink,0.95,q00,q00,900,2000.0,10.0,1980.4,2019.6,1100,false,-900.0,\n"  # window of the warm-up
        "klink,0.95,q00,q00,4000,5000.0,10.0,4980.4,5019.6,5010,true,10.0,\n"
        "klink,0.95,q01,q01,4000,5000.0,10.0,4900.0,5100.0,5050,true,50.0,\n"
        "klink,0.95,q00,q00,7000,8000.0,10.0,7000.0,9000.0,8400,true,400.0,\n"
        "klink,0.95,q00,q00,11000,12000.0,10.0,11980.4,12019.6,,,,run_ended\n"  # after the generator's end
        "lr,0.95,q00,q00,4000,5000.0,30.0,4941.2,5058.8,5010,true,10.0,\n")
    summary = build_summary(tmp_path, "r", {}, "completed", "", (1000, 10_000), {})
    klink = summary["estimator"]["klink"]
    assert klink["swms"] == 3 and klink["inside_fraction"] == 1.0
    low, high = klink["inside_ci"]  # 3 of 3 inside is far from proof of a 95 % coverage
    assert high == pytest.approx(1.0) and 0.35 < low < 0.5
    assert klink["median_width_ms"] == pytest.approx(200.0)  # widths 39.2, 200, 2000
    assert klink["mean_abs_error_ms"] == pytest.approx(460 / 3)  # |10|, |50|, |400|: the predicted mean's error
    assert klink["skipped"] == {} and klink["confidence"] == 0.95
    assert summary["estimator"]["lr"]["median_width_ms"] == pytest.approx(117.6)


def test_estimator_accuracy_counts_the_skipped_swms_per_reason_and_scores_only_the_rest(tmp_path):
    (tmp_path / "estimator.csv").write_text(
        ESTIMATOR_HEADER
        + "klink,0.9,q00,q00,2000,2000.0,120.0,1846.2,2153.8,2300,,,no_history\n"
        "lr,0.9,q00,q00,2000,2000.0,0.0,2000.0,2000.0,2300,,,no_history\n"
        "klink,0.9,q00,q00,5000,5300.0,5.0,5293.6,5306.4,,,,ingested_before_prediction\n"
        "lr,0.9,q00,q00,5000,5300.0,0.0,5300.0,5300.0,,,,ingested_before_prediction\n"
        "klink,0.9,q00,q00,8000,8300.0,5.0,8293.6,8306.4,8301,true,1.0,\n"
        "lr,0.9,q00,q00,8000,8300.0,0.0,8300.0,8300.0,8301,false,1.0,\n"
        "klink,0.9,q01,q01,8000,8300.0,5.0,8293.6,8306.4,,,,run_ended\n"
        "lr,0.9,q01,q01,8000,8300.0,0.0,8300.0,8300.0,,,,run_ended\n")
    estimator = build_summary(tmp_path, "r", {}, "completed", "", (1000, 10_000), {})["estimator"]
    for name, inside in (("klink", 1.0), ("lr", 0.0)):
        assert estimator[name]["swms"] == 1 and estimator[name]["inside_fraction"] == inside
        assert estimator[name]["mean_abs_error_ms"] == 1.0
        assert estimator[name]["skipped"] == {"ingested_before_prediction": 1, "no_history": 1, "run_ended": 1}


def test_an_estimator_with_every_swm_skipped_has_no_accuracy(tmp_path):
    (tmp_path / "estimator.csv").write_text(
        ESTIMATOR_HEADER + "klink,0.95,q00,q00,2000,2000.0,120.0,1764.8,2235.2,2300,,,no_history\n")
    summary = build_summary(tmp_path, "r", {}, "completed", "", (1000, 10_000), {})
    assert summary["estimator"]["klink"] == {"swms": 0, "inside_fraction": None, "inside_ci": None, "median_width_ms": None,
                                             "mean_abs_error_ms": None, "confidence": 0.95,
                                             "skipped": {"no_history": 1}}
    write_summary(tmp_path, summary)  # valid JSON: no NaN
    assert json.loads((tmp_path / "summary.json").read_text())["estimator"]["klink"]["swms"] == 0


def test_an_estimator_csv_without_the_skipped_column_scores_every_row(tmp_path):
    (tmp_path / "estimator.csv").write_text(
        "estimator,confidence,query,input,deadline_ms,predicted_mean_ms,sigma_ms,t_min_ms,t_max_ms,actual_ms,inside,"
        "error_ms\nklink,0.95,q00,q00,4000,5000.0,10.0,4980.4,5019.6,5050,false,50.0\n")
    klink = build_summary(tmp_path, "r", {}, "completed", "", (1000, 10_000), {})["estimator"]["klink"]
    assert (klink["swms"], klink["inside_fraction"], klink["skipped"]) == (1, 0.0, {})


def test_scheduler_overhead_is_the_cycle_time_in_microseconds(tmp_path):
    (tmp_path / "scheduler.csv").write_text("time,policy,tasks,running,paused,cycle_ns,decisions\n"
                                            "1,rr,4,2,2,1000,a;b\n2,rr,4,2,2,3000,c;d\n")
    overhead = build_summary(tmp_path, "r", {}, "completed", "", (0, 10), {})["scheduler"]
    assert overhead["cycles"] == 2 and overhead["mean_cycle_us"] == 2.0 and overhead["max_cycle_us"] == 3.0


def test_klinks_cycle_modes_are_counted(tmp_path):
    (tmp_path / "scheduler.csv").write_text("time,policy,tasks,running,paused,cycle_ns,decisions,why,memory_used\n"
                                            "100,klink,4,4,0,1000,a,light:q00=inf,0.5\n"
                                            "220,klink,4,2,2,1000,a,mm:aged:q00=3,0.9\n"
                                            "340,klink,4,2,2,1000,a,aged:q00=3,0.7\n"
                                            "700,klink,4,4,0,1000,a,light:q00=inf,0.5\n")
    overhead = build_summary(tmp_path, "r", {}, "completed", "", (0, 10), {})["scheduler"]
    assert overhead["light_cycle_fraction"] == 0.5 and overhead["memory_mode_cycle_fraction"] == 0.25
    assert overhead["aging_cycle_fraction"] == 0.5
    assert overhead["memory_used_max"] == 0.9 and overhead["memory_used_mean"] == pytest.approx(0.65)
    # cycles 120 ms apart, then one 360 ms late: the scheduler thread did not get its CPU on time
    assert overhead["mean_cycle_interval_ms"] == 200 and overhead["p99_cycle_interval_ms"] > 350


def test_the_scheduler_threads_own_cpu_is_summed_over_the_span_of_its_cycles(tmp_path):
    (tmp_path / "scheduler.csv").write_text("time,policy,tasks,running,paused,cycle_ns,decisions,why,memory_used,"
                                            "cycle_cpu_ns\n"
                                            "100,klink,4,4,0,9000000,a,q00=1,0.5,2000000\n"
                                            "220,klink,4,2,2,9000000,a,q00=1,0.5,4000000\n"
                                            "340,klink,4,2,2,9000000,a,q00=1,0.5,-1\n")
    overhead = build_summary(tmp_path, "r", {}, "completed", "", (0, 10), {})["scheduler"]
    assert overhead["mean_cycle_cpu_us"] == 3000.0  # -1: not measurable, left out
    assert overhead["cpu_cores_used"] == pytest.approx(6 / 240)  # 6 ms of CPU over 240 ms of cycles


def test_summary_tests_the_delays_events_were_sent_with_against_the_requested_model(tmp_path):
    (tmp_path / "delays.csv").write_text("delay_ms,events\n300,990\n301,10\n")
    fit = build_summary(tmp_path, "r", {"delay": "const:300ms"}, "completed", "", (0, 10), {})["delay"]
    assert fit["model"] == "const:300ms" and fit["samples"] == 1000
    assert fit["observed_mean_ms"] == 300.01 and fit["observed_p99_ms"] == 300
    assert abs(fit["ks_statistic"] - 0.01) < 1e-9  # 1 % of the events were sent 1 ms late
    assert fit["measured_at"] == "generator_send"


def test_delays_observed_at_kafka_ingestion_come_first_and_the_send_side_is_kept(tmp_path):
    (tmp_path / "delays.csv").write_text("delay_ms,events\n240,1000\n")
    (tmp_path / "ingestion-delays.csv").write_text("delay_ms,events\n243,500\n245,500\n")
    fit = build_summary(tmp_path, "r", {"delay": "preset:CC"}, "completed", "", (0, 10), {})["delay"]
    assert (fit["measured_at"], fit["network_model"], fit["observed_mean_ms"]) == ("kafka_append", "const:150ms", 244)
    assert fit["at_send"]["observed_mean_ms"] == 240 and fit["at_send"]["samples"] == 1000


def test_a_starved_query_is_flagged_by_its_missing_windows(tmp_path):
    write_latency(tmp_path, [(100, False)] * 3)
    config = {"queries": 2, "window_ms": 1000}
    summary = build_summary(tmp_path, "r", config, "completed", "", (0, 5_000), {})
    assert summary["windows_expected"] == 8 and summary["windows_measured"] == 3
    assert "only 3 of at least 8 windows fired" in summary["flags"][0]


def test_a_policy_run_without_scheduler_cycles_is_not_a_measurement_of_that_policy(tmp_path):
    from klinkctl.run.outcome_checks import scheduler_ran
    assert scheduler_ran(RunSpec(policy="default"), tmp_path)
    assert not scheduler_ran(RunSpec(policy="fcfs"), tmp_path)
    (tmp_path / "scheduler.csv").write_text("time,policy,tasks,running,paused,cycle_ns,decisions,why\n")
    assert not scheduler_ran(RunSpec(policy="fcfs"), tmp_path)
    (tmp_path / "scheduler.csv").write_text("time,policy,tasks,running,paused,cycle_ns,decisions,why\n1,fcfs,4,2,2,5,a,\n")
    assert scheduler_ran(RunSpec(policy="fcfs"), tmp_path)


def test_a_combiner_run_whose_controller_never_logged_a_period_is_not_a_measurement_of_it(tmp_path):
    from klinkctl.run.outcome_checks import combiner_controlled
    assert combiner_controlled(RunSpec(workload="rides", combiner="none"), tmp_path)
    assert combiner_controlled(RunSpec(workload="ysb"), tmp_path)
    assert not combiner_controlled(RunSpec(workload="rides", combiner="adcom"), tmp_path)
    assert combiner_controlled(RunSpec(workload="rides", combiner="minibatch"), tmp_path)  # Flink's: no controller
    (tmp_path / "combiner.csv").write_text("time_ms,query,period,rho,rho_avg,saturated,error,interval_ms,mode\n")
    assert not combiner_controlled(RunSpec(workload="rides", combiner="local-global"), tmp_path)
    (tmp_path / "combiner.csv").write_text("time_ms,query,period,rho,rho_avg,saturated,error,interval_ms,mode\n"
                                           "1,q00,1,0.1;0.2,0.15,false,-0.5,480,adcom\n")
    assert combiner_controlled(RunSpec(workload="rides", combiner="adcom"), tmp_path)


def test_windows_expected_follow_each_workloads_last_window():
    span = (0, 30_000)
    assert windows_expected({"window_ms": 10_000, "queries": 2}, span) == 2 * 2  # ysb: tumbling 10 s
    assert windows_expected({"window_ms": 5000, "slide_ms": 3000, "queries": 1}, span) == 9  # lrb: 3 s tolls
    assert windows_expected({"window_ms": 5000, "slide_ms": 3000, "stressed": True, "queries": 1}, span) == 29


def test_expected_window_ends_follow_each_querys_offset_and_period():
    from klinkctl.results.windows import expected_ends
    assert expected_ends(offset_ms=250, window_ms=1000, period_ms=1000, first_ms=10_000, last_ms=13_000).tolist() \
        == [10_250, 11_250, 12_250]
    # sliding 2 s windows every 1 s at offset 300: ends at 300 mod 1000; the bounds are inclusive
    assert expected_ends(300, 2000, 1000, 10_300, 12_300).tolist() == [10_300, 11_300, 12_300]


def test_an_expected_window_without_a_row_is_counted_censored_per_query(tmp_path):
    (tmp_path / "job-config.json").write_text(json.dumps(
        {"queries": [{"id": "q00", "windowOffsetMs": 0}, {"id": "q01", "windowOffsetMs": 500}]}))
    table = CsvTable(tmp_path / "latency.csv", LATENCY_COLUMNS)
    fired = [("q00", 11_000), ("q00", 12_000), ("q01", 10_500), ("q01", 11_500), ("q01", 12_500),
             ("q01", 13_500)]  # q01's 13 500 ends after the generation: partial, not expected
    for query, end in fired:
        table.write({"run": "r", "policy": "default", "query": query, "window_end": end, "swm_latency_ms": 100,
                     "late_dropped": 0, "warmup": False})
    table.close()
    config = {"workload": "ysb", "queries": 2, "window_ms": 1000}
    summary = build_summary(tmp_path, "r", config, "completed", "", (10_000, 13_000), {})
    assert summary["windows_expected_per_query"] == {"q00": 4, "q01": 3}  # q00: 10 000 .. 13 000
    assert summary["windows_censored"] == {"q00": 2, "q01": 0} and summary["windows_censored_total"] == 2
    assert summary["swm_latency_ms"]["lower_bound"] is True
    assert summary["flags"][0].startswith("2 of 7 windows never fired") and "q00: 2" in summary["flags"][0]


def test_the_bench_prints_width_error_and_skipped_next_to_inside(tmp_path, capsys):
    from klinkctl.cli.output import print_summary
    (tmp_path / "estimator.csv").write_text(
        ESTIMATOR_HEADER
        + "klink,0.95,q00,q00,4000,5000.0,10.0,4900.0,5100.0,5050,true,50.0,\n"
        "klink,0.95,q00,q00,7000,8000.0,10.0,7000.0,9000.0,,,,run_ended\n")
    print_summary(build_summary(tmp_path, "r", {}, "completed", "", (1000, 10_000), {}))
    line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("estimator klink"))
    assert line == ("estimator klink: 100% [21%–100%] of 1 SWMs inside the predicted 95% interval (median width 200 ms), "
                    "mean |error| 50 ms; skipped 1 (run_ended 1)")


def test_a_cycle_late_only_by_a_garbage_collection_is_on_time_beyond_gc(tmp_path):
    (tmp_path / "scheduler.csv").write_text("time,policy,tasks,running,paused,cycle_ns,decisions,why,memory_used,"
                                            "cycle_cpu_ns,gc_ms\n"
                                            "100,klink,4,4,0,1000,a,q00=1,0.5,1000,0\n"
                                            "220,klink,4,2,2,1000,a,q00=1,0.5,1000,0\n"
                                            "820,klink,4,2,2,1000,a,q00=1,0.5,1000,480\n"  # 600 ms, 480 of them GC
                                            "940,klink,4,2,2,1000,a,q00=1,0.5,1000,0\n"
                                            "1300,klink,4,2,2,1000,a,q00=1,0.5,1000,40\n")  # 360 ms, 40 GC: late
    overhead = build_summary(tmp_path, "r", {}, "completed", "", (0, 10), {})["scheduler"]
    assert overhead["p99_cycle_interval_ms"] > 590
    assert 300 < overhead["p99_cycle_interval_beyond_gc_ms"] <= 320  # the 360 ms interval, less its 40 ms of GC
    assert overhead["gc_stall_fraction"] == pytest.approx(520 / 1200)


def test_every_stop_of_the_world_is_taken_out_of_a_late_cycle_where_the_jvm_says(tmp_path):
    header = "time,policy,tasks,running,paused,cycle_ns,decisions,why,memory_used,cycle_cpu_ns,gc_ms,safepoint_ms"
    rows = ["100,klink,4,4,0,1000,a,q00=1,0.5,1000,0,0",
            "400,klink,4,4,0,1000,a,q00=1,0.5,1000,0,180",  # 300 ms: no collection, a 180 ms safepoint
            "520,klink,4,4,0,1000,a,q00=1,0.5,1000,0,1"]
    (tmp_path / "scheduler.csv").write_text(header + "\n" + "\n".join(rows) + "\n")
    overhead = build_summary(tmp_path, "r", {}, "completed", "", (0, 10), {})["scheduler"]
    assert overhead["p99_cycle_interval_beyond_gc_ms"] > 290
    assert overhead["p99_cycle_interval_beyond_safepoint_ms"] < 125
    assert overhead["safepoint_stall_fraction"] == pytest.approx(181 / 420)
    (tmp_path / "scheduler.csv").write_text(header + "\n" + "\n".join(rows[:2]) + "\n" + rows[2][:-1] + "-1\n")
    assert "safepoint_stall_fraction" not in build_summary(tmp_path, "r", {}, "completed", "", (0, 10), {})[
        "scheduler"]  # -1: this JVM did not give its safepoint times


def test_late_cycles_are_flagged_with_the_g1_cause_only_for_demoting_enforcement():
    from klinkctl.results.summary import late_cycles_flag

    late = {"p99_cycle_interval_ms": 480.0, "p99_cycle_interval_beyond_safepoint_ms": 300.0}
    priority = {"cycle_ms": 120, "enforce": "priority", "policy": "klink"}
    assert late_cycles_flag({"p99_cycle_interval_ms": 240.0}, priority, "g1") is None
    flag = late_cycles_flag(late, priority, "g1")
    assert flag.startswith("scheduler cycles came late: p99 interval 480 ms > 2r = 240 ms (300 ms beyond")
    assert "--tm-gc parallel" in flag
    assert "--tm-gc" not in late_cycles_flag(late, priority, "parallel")
    assert "--tm-gc" not in late_cycles_flag(late, {**priority, "enforce": "pause"}, "g1")
    assert "--tm-gc" in late_cycles_flag(late, {"cycle_ms": 120, "policy": "os-priority"}, "g1")
    assert late_cycles_flag({}, priority, "g1") is None


def test_the_summary_reads_the_stacks_collector_from_config_yaml(tmp_path):
    import yaml

    from klinkctl.results.summary import stack_collector

    assert stack_collector(tmp_path) is None
    (tmp_path / "config.yaml").write_text(yaml.safe_dump({"bench": {}, "stack": {"taskmanager_gc": "parallel"}}))
    assert stack_collector(tmp_path) == "parallel"


def test_a_stop_recorded_one_cycle_late_is_taken_out_of_the_interval_it_happened_in(tmp_path):
    header = "time,policy,tasks,running,paused,cycle_ns,decisions,why,memory_used,cycle_cpu_ns,gc_ms,safepoint_ms"
    rows = ["100,klink,4,4,0,1000,a,q00=1,0.5,1000,0,0",
            "220,klink,4,4,0,1000,a,q00=1,0.5,1000,0,0",
            "880,klink,4,4,0,1000,a,q00=1,0.5,1000,0,0",  # 660 ms late, its 600 ms stop not yet in HotSpot's totals
            "1000,klink,4,4,0,1000,a,q00=1,0.5,1000,0,600",  # read here, in a 120 ms interval
            "1120,klink,4,4,0,1000,a,q00=1,0.5,1000,0,0"]
    (tmp_path / "scheduler.csv").write_text(header + "\n" + "\n".join(rows) + "\n")
    overhead = build_summary(tmp_path, "r", {}, "completed", "", (0, 10), {})["scheduler"]
    assert overhead["p99_cycle_interval_ms"] > 600
    assert overhead["p99_cycle_interval_beyond_safepoint_ms"] <= 180  # 660 less the 480 ms that spilled back


def test_stall_in_interval_keeps_a_stop_that_fits_where_it_was_recorded():
    import pandas as pd

    from klinkctl.results.summary import stall_in_interval

    intervals = pd.Series([120.0, 600.0, 121.0, 300.0])
    recorded = pd.Series([0.0, 500.0, 660.0, 100.0])
    assert stall_in_interval(intervals, recorded).tolist() == [0.0, 500.0 + 539.0, 121.0, 100.0]
