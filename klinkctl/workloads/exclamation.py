"""Exclamation: the tail-latency seed's linear topology (tail-latency-storm-du-gupta.txt §5.1), measured per record.

Records `id,word,event_time` go through a spout and `--stages` CPU-costed stages, each behind the `--tail`
exchange, to a task that keeps the first copy of each id and records its end-to-end latency in an HdrHistogram
(io.klink.workloads.tail.ExclamationJob). There are no windows: the run's figures are per-record percentiles
(record-latency.csv). Latency-based balancing talks over the run's feedback topic, kept as feedback.csv.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from klinkctl import kafka_io
from klinkctl.run.config import RunSpec
from klinkctl.stack.spec import taskmanager_name
from klinkctl.workloads import common

JAVA_BUILDER = "io.klink.workloads.tail.ExclamationJob"
event_time = common.last_column_event_time  # id,word,event_time
exact_results = None
window_errors = None
#: Every record the generator sends reaches the sinks (ysb-records' filter drops some: see its reaches_sinks).
reaches_sinks = None
#: The keys the records tasks acknowledge records under (io.klink.workloads.tail.Replayer.ackKey).
ACK_PREFIX = "acks/"


def write_job_config(plan_: common.Plan, config: RunSpec, bootstrap: str, run_dir: Path) -> Path:
    return common.write_job_config(run_dir, record_job_config(plan_, config, bootstrap, JAVA_BUILDER, config.stages))


def record_job_config(plan_: common.Plan, config: RunSpec, bootstrap: str, builder: str, stages: int,
                      campaigns_file: str = "") -> dict:
    """The job config of a per-record pipeline (io.klink.workloads.tail.RecordPipeline.Config)."""
    return common.job_config(
        plan_, config, bootstrap, builder, stages=stages, stageCostModel=config.stage_cost_model,
        stageCostUs=config.stage_cost_us, stageSpeeds=stage_speeds(config),
        stageParallelism=config.stage_parallelism, bufferTimeoutMs=config.buffer_timeout_ms, tail=config.tail,
        feedbackTopic=plan_.feedback_topic,
        balancePeriodMs=config.balance_period_ms, balanceAlpha=config.balance_alpha,
        balanceThreshold=config.balance_threshold, balanceUnit=config.balance_unit,
        replayPeriodMs=config.replay_period_ms, replicateFraction=config.replicate_fraction,
        campaignsFile=campaigns_file, stallEveryMs=config.stall_every_ms, stallLengthMs=config.stall_length_ms)


def stage_speeds(config: RunSpec) -> dict[str, float]:
    """--stage-speeds keyed by the TaskManagers' resource ids, which the stages look their own up by."""
    return {taskmanager_name(index): speed for index, speed in config.stage_speed_of.items()}


def generator_args(config: RunSpec) -> list[str]:
    return ["--workload", "exclamation"]


def write_feedback(bootstrap: str, plan_: common.Plan, run_dir: Path) -> None:
    """feedback.csv: time_ms, key, value of the statements on the feedback channel (the stages' latencies, the
    balancers' shares, the replay timeouts), in the order Kafka kept them; the records' acknowledgements (one
    statement per records task every 2 ms) are left out."""
    rows = [(m.timestamp()[1], key, (m.value() or b"").decode())
            for m in kafka_io.topic_messages(bootstrap, plan_.feedback_topic)
            if not (key := (m.key() or b"").decode()).startswith(ACK_PREFIX)]
    pd.DataFrame(rows, columns=["time_ms", "key", "value"]).to_csv(run_dir / "feedback.csv", index=False)
