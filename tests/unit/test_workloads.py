"""Workload registry, per-workload defaults and job configs (no stack needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from klinkctl import generator as generator_module
from klinkctl import workloads
from klinkctl.errors import KlinkError
from klinkctl.run.config import WORKLOADS, resolve
from klinkctl.workloads import common, exclamation, kmeans, lrb, nyt, ysb_records
from klinkctl.workloads.options import MAX_SOURCE_READ_AHEAD


def test_every_configurable_workload_is_registered() -> None:
    for name in WORKLOADS:
        assert workloads.get(name).JAVA_BUILDER.startswith("io.klink.workloads.")
    with pytest.raises(KlinkError, match="unknown workload 'tpch'"):
        workloads.get("tpch")


def test_nyt_defaults_to_two_second_windows_sliding_by_one() -> None:
    config = resolve(None, {"workload": "nyt"})
    assert (config.window_ms, config.slide_ms) == (2000, 1000)
    assert resolve(None, {"workload": "nyt", "window": "4s", "slide": "2s"}).slide_ms == 2000
    ysb = resolve(None, {"workload": "ysb"})
    assert (ysb.window_ms, ysb.slide_ms) == (10_000, 0)


@pytest.mark.parametrize("overrides, message", [
    ({"workload": "nyt", "window": "3s", "slide": "2s"}, r"--window \(3000 ms\) must be a multiple"),
    ({"workload": "nyt", "slide": "0s"}, "must be a multiple of a positive --slide"),
    ({"workload": "ysb", "slide": "1s"}, "--slide applies to the nyt and lrb workloads only, not ysb"),
])
def test_bad_slides_are_one_line(overrides: dict, message: str) -> None:
    with pytest.raises(KlinkError, match=message) as error:
        resolve(None, overrides)
    assert "\n" not in str(error.value)


def test_window_offsets_fall_within_one_slide() -> None:
    config = resolve(None, {"workload": "nyt", "queries": "20"})
    plan = common.plan(config, "run")
    assert [q.id for q in plan.queries][:2] == ["q00", "q01"]
    assert all(0 <= q.window_offset_ms < 1000 for q in plan.queries)
    assert len({q.window_offset_ms for q in plan.queries}) > 1


def test_nyt_job_config_names_its_builder_and_slide(tmp_path: Path) -> None:
    config = resolve(None, {"workload": "nyt", "queries": "2"})
    path = nyt.write_job_config(common.plan(config, "r1"), config, "localhost:1", tmp_path)
    job = json.loads(path.read_text())
    assert job["builder"] == "io.klink.workloads.nyt.NytJob"
    assert (job["windowMs"], job["slideMs"], job["metricsTopic"]) == (2000, 1000, "r1-metrics")
    assert [q["topic"] for q in job["queries"]] == ["r1-q00", "r1-q01"]
    assert nyt.generator_args(config) == ["--workload", "nyt"]


def test_kmeans_defaults_to_three_second_windows_and_five_clusters(tmp_path: Path) -> None:
    config = resolve(None, {"workload": "kmeans", "k": "3", "kmeans_iterations": "7"})
    assert (config.window_ms, config.slide_ms) == (3000, 0)
    job = json.loads(kmeans.write_job_config(common.plan(config, "r1"), config, "localhost:1", tmp_path).read_text())
    assert (job["builder"], job["k"], job["iterations"], job["windowMs"]) == ("io.klink.workloads.kmeans.KmeansJob",
                                                                             3, 7, 3000)
    assert kmeans.generator_args(config) == ["--workload", "kmeans"]
    assert workloads.get("kmeans").event_time(b"12.5,-3.25,1700000000123") == 1700000000123
    assert resolve(None, {"workload": "kmeans"}).k == 5


@pytest.mark.parametrize("option", ["k", "kmeans_iterations"])
def test_kmeans_needs_at_least_one_cluster_and_iteration(option: str) -> None:
    with pytest.raises(KlinkError, match=f"--{option.replace('_', '-')} must be greater than 0, got 0"):
        resolve(None, {"workload": "kmeans", option: "0"})


def test_event_times_are_read_from_each_workloads_records() -> None:
    assert workloads.get("ysb").event_time(b'{"ad_id":"a","event_time":1700000000123,"ip":"1.2.3.4"}') == 1700000000123
    row = b"M,H,2013-01-01 00:00:00,2013-01-01 00:02:00,120,1.00,-73.98,40.75,-73.97,40.76,CSH,5.5,0,0.5,0,0,6.0,17"
    assert workloads.get("nyt").event_time(row) == 17
    assert workloads.get("lrb").event_time(b"0,1700000000,5,61,1,3,0,10,53000,1700000000123") == 1700000000123


DEBS_ROW = ("07290D3599E7A0D62097A346EFCC1FB5,E7750A37CAB07D0DFF0AF7E3573AC141,2013-01-01 00:00:00,"
            "2013-01-01 00:02:00,120,0.44,-73.956528,40.716976,-73.962440,40.715008,CSH,3.50,0.50,0.50,0.00,0.00,4.50")


def test_data_replays_a_debs_csv(tmp_path: Path) -> None:
    trips = tmp_path / "trips.csv"
    trips.write_text("medallion,hack_license\n" + DEBS_ROW + "\n")
    config = resolve(None, {"workload": "nyt", "data": str(trips)})
    assert nyt.generator_args(config) == ["--workload", "nyt", "--data", str(trips.resolve())]


@pytest.mark.parametrize("content, message", [
    ("a,b,c\n", "its first trip has 3 columns, expected 17"),
    (DEBS_ROW.replace(",3.50,", ",cash,") + "\n", "fare_amount of its first trip is 'cash', not a number"),
])
def test_data_with_a_wrong_schema_is_one_line(tmp_path: Path, content: str, message: str) -> None:
    trips = tmp_path / "trips.csv"
    trips.write_text(content)
    with pytest.raises(KlinkError, match=message) as error:
        resolve(None, {"workload": "nyt", "data": str(trips)})
    assert "\n" not in str(error.value)


def test_data_is_for_nyt_and_must_exist(tmp_path: Path) -> None:
    with pytest.raises(KlinkError, match="--data applies to the nyt workload only"):
        resolve(None, {"workload": "ysb", "data": str(tmp_path / "x.csv")})
    with pytest.raises(KlinkError, match="No such file"):
        resolve(None, {"workload": "nyt", "data": str(tmp_path / "missing.csv")})


def test_lrb_defaults_to_the_papers_five_second_statistics_sliding_by_three() -> None:
    config = resolve(None, {"workload": "lrb"})
    assert (config.window_ms, config.slide_ms, config.stressed) == (5000, 3000, False)
    assert lrb.toll_window_ms(config) == 3000
    assert lrb.toll_window_ms(resolve(None, {"workload": "lrb", "stressed": True})) == 1000
    assert all(0 <= q.window_offset_ms < 3000 for q in common.plan(resolve(None, {"workload": "lrb", "queries": "9"}),
                                                                   "r").queries)


def test_lrb_scales_expressways_and_the_toll_threshold_with_the_rate() -> None:
    # mean reports per segment in a 5 s window: rate * 5 / (2 directions * 100 segments * expressways)
    small = resolve(None, {"workload": "lrb", "rate": "500"})
    assert (lrb.expressways(small), lrb.toll_min_cars(small)) == (1, 12)
    big = resolve(None, {"workload": "lrb", "rate": "4000"})
    assert (lrb.expressways(big), lrb.toll_min_cars(big)) == (4, 25)
    assert lrb.toll_min_cars(resolve(None, {"workload": "lrb", "rate": "10"})) == 1
    assert lrb.generator_args(big) == ["--workload", "lrb", "--expressways", "4", "--accidents-per-minute", "2.0"]
    assert lrb.generator_args(resolve(None, {"workload": "lrb", "accidents": "0"}))[-1] == "0.0"


def test_lrb_job_config_names_its_windows(tmp_path: Path) -> None:
    config = resolve(None, {"workload": "lrb", "queries": "2", "rate": "1000", "stressed": True})
    job = json.loads(lrb.write_job_config(common.plan(config, "r1"), config, "localhost:1", tmp_path).read_text())
    assert job["builder"] == "io.klink.workloads.lrb.LrbJob"
    assert (job["windowMs"], job["slideMs"], job["tollWindowMs"], job["tollMinCars"]) == (5000, 3000, 1000, 25)


@pytest.mark.parametrize("overrides, message", [
    ({"workload": "lrb", "slide": "6s"}, r"--slide must be greater than 0 and at most --window \(5000 ms\)"),
    ({"workload": "lrb", "stressed": True, "slide": "1s"}, "1000 ms is not divisible by 3"),
    ({"workload": "lrb", "accidents": "-1"}, "--accidents must be at least 0, got -1"),
    ({"workload": "lrb", "accidents": "many"}, "--accidents must be a number"),
    ({"workload": "ysb", "stressed": True}, "--stressed applies to the lrb workload only"),
    ({"workload": "nyt", "accidents": "3"}, "--accidents applies to the lrb and lrb-segments workloads only"),
])
def test_bad_lrb_settings_are_one_line(overrides: dict, message: str) -> None:
    with pytest.raises(KlinkError, match=message) as error:
        resolve(None, overrides)
    assert "\n" not in str(error.value)


def test_exclamation_job_config_carries_the_tail_technique_and_a_feedback_topic(tmp_path: Path) -> None:
    config = resolve(None, {"workload": "exclamation", "tail": "latency-balance", "stage_cost_us": "150",
                            "balance_period": "2s", "stall_every": "5s", "stall_length": "80ms"})
    plan = common.plan(config, "r1")
    job = json.loads(exclamation.write_job_config(plan, config, "localhost:1", tmp_path).read_text())
    assert (job["stallEveryMs"], job["stallLengthMs"]) == (5000, 80)
    assert (job["builder"], job["tail"], job["stages"], job["stageCostUs"], job["balancePeriodMs"]) == (
        "io.klink.workloads.tail.ExclamationJob", "latency-balance", 3, 150, 2000)
    assert job["feedbackTopic"] == "r1-feedback" and plan.harness_topics == ["r1-metrics", "r1-feedback"]
    assert exclamation.generator_args(config) == ["--workload", "exclamation"]
    assert workloads.get("exclamation").event_time(b"12345,mike,1700000000123") == 1700000000123


def test_ysb_records_runs_ysbs_four_stages_on_ysbs_events_and_expects_the_views(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(generator_module, "campaigns", lambda *args: {"c1": ["a1"]})  # no JVM for YSB's table
    config = resolve(None, {"workload": "ysb-records", "tail": "latency-balance", "campaigns": "7"})
    plan = common.plan(config, "r1")
    job = json.loads(ysb_records.write_job_config(plan, config, "localhost:1", tmp_path).read_text())
    assert (job["builder"], job["stages"], job["tail"]) == ("io.klink.workloads.ysb.YsbRecordsJob", 4, "latency-balance")
    assert json.loads(Path(job["campaignsFile"]).read_text()) == {"c1": ["a1"]}
    assert plan.feedback_topic == "r1-feedback"
    assert ysb_records.generator_args(config)[:4] == ["--workload", "ysb", "--campaigns", "7"]
    event = b'{"ad_id":"a1","event_type":"%s","event_time":1700000000123}'
    assert ysb_records.reaches_sinks(event % b"view") and not ysb_records.reaches_sinks(event % b"click")
    assert ysb_records.event_time(event % b"view") == 1700000000123
    assert exclamation.reaches_sinks is None  # every exclamation record reaches the sinks


def test_stage_speeds_reach_the_job_keyed_by_the_taskmanagers_resource_ids(tmp_path: Path) -> None:
    config = resolve(None, {"workload": "exclamation", "stage_cost_model": "wall-exp", "stage_speeds": "2=0.5,3=0.25"})
    job = json.loads(exclamation.write_job_config(common.plan(config, "r1"), config, "b:1", tmp_path).read_text())
    assert job["stageSpeeds"] == {"taskmanager-2": 0.5, "taskmanager-3": 0.25}
    assert resolve(None, {"workload": "exclamation"}).stage_speed_of == {}


@pytest.mark.parametrize("overrides, message", [
    ({"stage_speeds": "2=0.5"}, "--stage-speeds slows the wall-clock service times"),  # cpu costs: --tm-quota
    ({"stage_cost_model": "wall", "stage_speeds": "2=1.5"}, "--stage-speeds 2=1.5: a speed must be more than 0"),
    ({"stage_cost_model": "wall", "stage_speeds": "2=0"}, "--stage-speeds 2=0: a speed must be more than 0"),
    ({"stage_cost_model": "wall", "stage_speeds": "2:0.5"}, "--stage-speeds must be TaskManager=value pairs"),
    ({"stage_cost_model": "wall", "stage_speeds": "2=0.5,2=0.4"}, "gives taskmanager-2 twice"),
])
def test_bad_stage_speeds_are_one_line(overrides: dict, message: str) -> None:
    with pytest.raises(KlinkError, match=message) as error:
        resolve(None, {"workload": "exclamation", **overrides})
    assert "\n" not in str(error.value)


def test_window_workloads_have_no_feedback_topic() -> None:
    plan = common.plan(resolve(None, {"workload": "ysb"}), "r1")
    assert plan.feedback_topic is None and plan.all_topics == ["r1-q00", "r1-metrics"]


@pytest.mark.parametrize("option, value", [("tail", "hedging"), ("balance_alpha", "0"), ("balance_threshold", "0.9"),
                                           ("stage_parallelism", "0"), ("balance_unit", "1.5")])
def test_exclamation_refuses_settings_out_of_range(option: str, value: str) -> None:
    with pytest.raises(KlinkError):
        resolve(None, {"workload": "exclamation", option: value})


def test_rides_job_config_carries_the_combiner_and_the_papers_controller_defaults(tmp_path: Path) -> None:
    config = resolve(None, {"workload": "rides", "combiner": "adcom"})
    rides = workloads.get("rides")
    plan = common.plan(config, "r1", common.ControlAddress("http://10.1.2.3:8090", "lab1"))
    job = json.loads(rides.write_job_config(plan, config, "b:9", tmp_path).read_text())
    assert job["builder"] == "io.klink.workloads.rides.RidesJob" and job["combiner"] == "adcom"
    assert (job["bandLow"], job["bandHigh"], job["combinerIntervalMs"]) == (0.5, 0.8, 500)  # §3.2, §4.2
    # the combiner reaches klinkctl where the agents do, never through the run directory
    assert (job["controlUrl"], job["stackToken"], job["runId"]) == ("http://10.1.2.3:8090", "lab1", "r1")
    assert "runDir" not in job
    assert (tmp_path / "combiner.csv").read_text().startswith("time_ms,query,period,rho,")
    assert rides.generator_args(config.changed(key_skew=1.2)) == ["--workload", "rides", "--regions", "50",
                                                                  "--key-skew", "1.2"]


def test_minibatch_job_config_carries_flinks_interval_and_size_and_no_controller_table(tmp_path: Path) -> None:
    config = resolve(None, {"workload": "rides", "combiner": "minibatch", "combiner_interval": "1s",
                            "combiner_max_records": "3000"})
    plan = common.plan(config, "r1", common.ControlAddress("http://127.0.0.1:8090", "lab1"))
    job = json.loads(workloads.get("rides").write_job_config(plan, config, "b:9", tmp_path).read_text())
    assert (job["combiner"], job["combinerIntervalMs"], job["combinerMaxRecords"]) == ("minibatch", 1000, 3000)
    assert not (tmp_path / "combiner.csv").exists()  # Flink's aggregates have no controller


@pytest.mark.parametrize("aggregate, exact", [("passengers", [5.0, 1.0, 2.0]), ("drivers", [2.0, 1.0, 1.0])])
def test_rides_exact_results_aggregate_every_region_and_window(tmp_path: Path, aggregate: str,
                                                               exact: list[float]) -> None:
    config = resolve(None, {"workload": "rides", "window": "1s", "ride_aggregate": aggregate})
    values = [b"r1,7,2,10.00,1000", b"r1,8,3,12.50,1999", b"r2,7,1,9.00,1500", b"r1,7,2,4.00,2000",
              b"#progress,2500", b"r1,x,2,4.00,2000"]
    frame = workloads.get("rides").exact_results(values, config, tmp_path, 0)
    assert frame["window_end"].tolist() == [2000, 2000, 3000] and frame["key"].tolist() == ["r1", "r2", "r1"]
    assert frame["exact"].tolist() == exact
    assert frame["events"].tolist() == [2, 1, 1] and frame["max_fare"].tolist() == [12.5, 9.0, 4.0]


@pytest.mark.parametrize("overrides, message", [
    ({"workload": "rides", "adcom_band_low": 0.0}, "adcom-band-low"),
    ({"workload": "rides", "adcom_band_high": 1.0}, "adcom-band-high"),
    ({"workload": "rides", "adcom_band_low": 0.9, "adcom_band_high": 0.6}, "must not exceed --adcom-band-high"),
    ({"workload": "rides", "adcom_kp": -1}, "adcom-kp"),
    ({"workload": "rides", "adcom_ki": -1}, "adcom-ki"),
    ({"workload": "rides", "adcom_min_interval": "5s", "adcom_max_interval": "1s"}, "must not exceed"),
    ({"workload": "ysb", "combiner": "adcom"}, "--combiner applies to the rides workload only"),
    ({"workload": "rides", "sampler": "aion"}, "--sampler does not apply to the rides workload"),
    ({"workload": "ysb", "combiner": "minibatch"}, "--combiner applies to the rides workload only"),
    ({"workload": "rides", "combiner": "minibatch", "combiner_interval": "0"}, "combiner-interval"),
    ({"workload": "rides", "combiner": "minibatch", "combiner_interval": "-1s"}, "combiner-interval"),
    ({"workload": "rides", "combiner": "minibatch", "combiner_max_records": "-5"}, "combiner-max-records"),
])
def test_bad_combiner_settings_are_one_line(overrides: dict, message: str) -> None:
    with pytest.raises(KlinkError, match=message) as error:
        resolve(None, overrides)
    assert "\n" not in str(error.value)


def test_a_sources_read_ahead_reaches_every_job_config_and_stays_within_a_heap(tmp_path: Path) -> None:
    config = resolve(None, {"workload": "nyt", "source_fetch_bytes": "4194304"})
    job = json.loads(nyt.write_job_config(common.plan(config, "r1"), config, "localhost:1", tmp_path).read_text())
    assert job["sourceFetchBytes"] == 4_194_304
    assert resolve(None, {"workload": "ysb"}).source_fetch_bytes == 0  # Kafka's own default
    with pytest.raises(KlinkError, match="source.fetch.bytes") as error:
        resolve(None, {"workload": "ysb", "source_fetch_bytes": str(64 * 1024 * 1024)})
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("name", WORKLOADS)
def test_a_sources_read_ahead_in_batches_reaches_the_job_config_and_is_bounded(name: str, tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(generator_module, "campaigns", lambda *args: {"c1": ["a1"]})  # no JVM for YSB's table
    config = resolve(None, {"workload": name, "source_read_ahead": "256"})
    path = workloads.get(name).write_job_config(common.plan(config, "r1"), config, "localhost:1", tmp_path)
    assert json.loads(path.read_text())["sourceReadAhead"] == 256
    assert resolve(None, {"workload": name}).source_read_ahead == 0  # Flink's own Kafka source
    for out_of_range in ("-1", str(MAX_SOURCE_READ_AHEAD + 1)):
        with pytest.raises(KlinkError, match="source.read.ahead") as error:
            resolve(None, {"workload": name, "source_read_ahead": out_of_range})
        assert "\n" not in str(error.value)
