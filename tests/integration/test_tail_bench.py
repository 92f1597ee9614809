"""The per-record workloads (exclamation, ysb-records) on the real stack (two TaskManagers): per-record latency
from the sinks' HdrHistograms, every record counted once, latency-based balancing talking over the run's feedback topic, and the
job's tasks spread over both TaskManagers. The balancer's arithmetic is checked in Java (TailTest)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

pytestmark = pytest.mark.integration

SHORT_RUN = ("--rate", "300", "--duration", "10s", "--warmup", "3s", "--stage-cost-us", "50",
             "--stage-parallelism", "2")


def run(running_stack, tmp_path, *options: str, workload: str = "exclamation"):
    result = running_stack("bench", workload, "--results", str(tmp_path), *SHORT_RUN, *options, timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr
    (run_dir,) = tmp_path.iterdir()
    return run_dir, json.loads((run_dir / "summary.json").read_text())


def test_latency_balance_counts_every_record_once_and_publishes_its_shares(running_stack, tmp_path):
    run_dir, summary = run(running_stack, tmp_path, "--tail", "latency-balance", "--balance-period", "1s")
    assert summary["status"] == "completed", summary["reason"]
    records = summary["record_latency"]
    assert records["records_total"] == summary["generator"]["events_sent"] > 0
    assert records["records_missing"] == 0 and records["duplicates_total"] == 0
    assert 0 < records["p50_ms"] <= records["p99_ms"] <= records["p999_ms"] <= records["max_ms"]
    assert records["count"] < records["records_total"]  # the warm-up's records are not measured
    assert summary["windows_expected"] is None  # no windows: nothing is flagged as censored
    assert not [flag for flag in summary["flags"] if "missing" in flag or "censored" in flag], summary["flags"]

    feedback = pd.read_csv(run_dir / "feedback.csv")
    shares = feedback[feedback["key"].str.startswith("shares/q00/stage-2/from/q00/stage-1/")]
    assert not shares.empty  # every stage-1 task balanced its output over stage 2's tasks
    assert feedback["key"].isin(["q00/stage-2/0", "q00/stage-2/1"]).any()  # and stage 2 stated its latency

    placement = pd.read_csv(run_dir / "placement.csv")
    stage = placement[placement["vertex"] == "q00/stage-1"]
    assert set(stage["taskmanager"]) == {"taskmanager-1", "taskmanager-2"}  # slots spread over both
    assert (run_dir / "record-percentiles.csv").is_file()


def test_a_slower_taskmanager_serves_its_stage_tasks_records_more_slowly(running_stack, tmp_path):
    """--stage-speeds 2=0.1: stage tasks on taskmanager-2 take 5 ms a record (wall clock) where the others take
    0.5, which the tasks' own latency statements on the feedback channel show."""
    run_dir, summary = run(running_stack, tmp_path, "--tail", "latency-balance", "--balance-period", "1s",
                           "--stage-cost-model", "wall", "--stage-cost-us", "500", "--stage-speeds", "2=0.1")
    assert summary["status"] == "completed", summary["reason"]
    assert summary["record_latency"]["records_missing"] == 0
    placement = pd.read_csv(run_dir / "placement.csv")
    where = dict(zip(placement["vertex"] + "/" + placement["subtask"].astype(str), placement["taskmanager"]))
    feedback = pd.read_csv(run_dir / "feedback.csv")
    stated = feedback[feedback["key"].str.match(r"q00/stage-\d+/\d+$")]
    mean_us = stated["value"].str.split(",").str[1].astype(float)
    by_taskmanager = mean_us.groupby(stated["key"].map(where)).median()
    assert by_taskmanager["taskmanager-2"] > max(4_000, 2 * by_taskmanager["taskmanager-1"]), by_taskmanager


@pytest.mark.parametrize("exchange", ["rescale", "adaptive"])
def test_flinks_own_exchanges_are_the_same_pipeline_without_a_feedback_channel(running_stack, tmp_path, exchange):
    run_dir, summary = run(running_stack, tmp_path, "--tail", exchange)
    assert summary["status"] == "completed", summary["reason"]
    records = summary["record_latency"]
    assert records["records_missing"] == 0 and records["duplicates_total"] == 0
    assert pd.read_csv(run_dir / "feedback.csv").empty  # nothing said on the run's feedback channel
    assert f"tail: {exchange}" in (run_dir / "config.yaml").read_text()
    assert sum(records["stage_shares"].values()) == pytest.approx(1.0, abs=1e-3)  # both TaskManagers' stage tasks


def test_adaptive_replay_counts_each_record_once_and_logs_its_timeouts(running_stack, tmp_path):
    run_dir, summary = run(running_stack, tmp_path, "--tail", "replay")
    assert summary["status"] == "completed", summary["reason"]
    records = summary["record_latency"]
    assert records["records_total"] == summary["generator"]["events_sent"] and records["records_missing"] == 0
    timeouts = pd.read_csv(run_dir / "feedback.csv")
    timeouts = timeouts[timeouts["key"] == "timeout/q00"]["value"].str.split(",", expand=True).astype(int)
    assert len(timeouts) >= 5 and (timeouts[1] > 0).any()  # Algorithm 1 set a timeout from the acknowledgements
    # every copy the spout had sent by its last statement reached the records task, which dropped it
    assert records["duplicates_total"] >= timeouts[2].iloc[-1]


def test_blind_replication_sends_about_its_fraction_twice(running_stack, tmp_path):
    _, summary = run(running_stack, tmp_path, "--tail", "replicate", "--replicate-fraction", "0.5")
    records = summary["record_latency"]
    assert records["records_total"] == summary["generator"]["events_sent"] and records["records_missing"] == 0
    assert 0.4 < records["duplicates_total"] / records["records_total"] < 0.6


def test_a_shared_input_queue_loses_and_duplicates_nothing(running_stack, tmp_path):
    run_dir, summary = run(running_stack, tmp_path, "--tail", "shared-queue")
    assert summary["status"] == "completed", summary["reason"]
    records = summary["record_latency"]
    assert records["records_total"] == summary["generator"]["events_sent"] > 0
    assert records["records_missing"] == 0 and records["duplicates_total"] == 0


@pytest.mark.parametrize("tail", ["latency-balance", "shared-queue"])
def test_ysbs_stages_deliver_every_view_once_and_no_other_event(running_stack, tmp_path, tail):
    """ysb-records: YSB's filter drops clicks and purchases (two event types in three), so the sinks get the
    views, which klinkctl counts in the input topics."""
    run_dir, summary = run(running_stack, tmp_path, "--tail", tail, workload="ysb-records")
    assert summary["status"] == "completed", summary["reason"]
    records = summary["record_latency"]
    expected = json.loads((run_dir / "records-expected.json").read_text())
    assert expected["events"] == summary["generator"]["events_sent"]
    assert 0.25 < expected["records"] / expected["events"] < 0.42  # views: a third, drawn at random
    assert records["records_total"] == records["records_expected"] == expected["records"]
    assert records["records_missing"] == 0 and records["duplicates_total"] == 0
    assert 0 < records["p50_ms"] <= records["p99_ms"] <= records["max_ms"]
    stages = pd.read_csv(run_dir / "placement.csv")["vertex"]
    assert {"q00/stage-1", "q00/stage-4"} <= set(stages) and "q00/stage-5" not in set(stages)


def test_stalling_tasks_hold_the_records_queued_behind_them(running_stack, tmp_path):
    """--stall-every 500ms --stall-length 150ms: every stage task stops for 150 ms about twice a second, so the
    slowest records wait out a stall, and no record is lost or duplicated on the way."""
    _, summary = run(running_stack, tmp_path, "--stage-cost-model", "wall", "--stall-every", "500ms",
                     "--stall-length", "150ms")
    assert summary["status"] == "completed", summary["reason"]
    records = summary["record_latency"]
    assert records["records_missing"] == 0 and records["duplicates_total"] == 0
    assert records["max_ms"] >= 150 and records["p99_ms"] >= 100, records
