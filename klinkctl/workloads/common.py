"""What every workload shares: per-query topics, seeded de-aligned window offsets, the common job-config keys."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

from klinkctl.paths import JOBS_DIR
from klinkctl.run.config import RunSpec
from klinkctl.workloads.options import RECORD_WORKLOADS

#: Every workload's PyFlink program: it calls the Java builder the job config names.
JOB_SCRIPT = JOBS_DIR / "java_pipelines.py"


@dataclass(frozen=True)
class QueryPlan:
    id: str  # "q07": prefixes every operator name of the query
    topic: str
    window_offset_ms: int


@dataclass(frozen=True)
class ControlAddress:
    """Where the job's own operators reach klinkctl's control channel during the run (the address the agents
    use: StackSpec.control_url and stack_token; klinkctl.run.control_channel)."""
    url: str
    stack: str


#: A run without a control channel (klinkctl simulate, tests): no operator may need one.
NO_CONTROL = ControlAddress("", "")


@dataclass(frozen=True)
class Plan:
    run_id: str
    queries: tuple[QueryPlan, ...]
    metrics_topic: str
    #: Per-record workloads' channel from downstream tasks back to upstream ones (tail techniques); else None.
    feedback_topic: str | None = None
    control: ControlAddress = NO_CONTROL

    @property
    def input_topics(self) -> list[str]:
        return [q.topic for q in self.queries]

    @property
    def harness_topics(self) -> list[str]:
        """The topics the job writes and the harness reads (not the generator's)."""
        return [self.metrics_topic, *([self.feedback_topic] if self.feedback_topic else [])]

    @property
    def all_topics(self) -> list[str]:
        return [*self.input_topics, *self.harness_topics]


def plan(config: RunSpec, run_id: str, control: ControlAddress = NO_CONTROL) -> Plan:
    """Each query gets its own topic and a seeded window offset, so deadlines are de-aligned across
    queries (the paper deploys each query at a random time in the first 20 s to the same effect)."""
    rng = random.Random(config.seed)
    period = config.slide_ms or config.window_ms  # offsets within one firing period
    queries = tuple(QueryPlan(f"q{i:02d}", f"{run_id}-q{i:02d}", rng.randrange(period))
                    for i in range(config.queries))
    feedback = f"{run_id}-feedback" if config.workload in RECORD_WORKLOADS else None
    return Plan(run_id, queries, f"{run_id}-metrics", feedback, control)


def job_config(plan_: Plan, config: RunSpec, bootstrap: str, builder: str, **workload_keys: object) -> dict:
    """The keys every job reads (io.klink.workloads.common.QueryPipelines.Run and the query list) + the workload's;
    `builder` is the Java class whose static build(env, configJson) adds the queries."""
    return {
        "builder": builder,
        "bootstrap": bootstrap,
        "runId": plan_.run_id,
        "metricsTopic": plan_.metrics_topic,
        **workload_keys,
        "windowMs": config.window_ms,
        "outOfOrdernessMs": config.watermark_bound_ms,
        "markerIntervalMs": config.marker_interval_ms,
        "watermarkIntervalMs": config.watermark_interval_ms,
        "sourceFetchBytes": config.source_fetch_bytes,
        "sourceReadAhead": config.source_read_ahead,
        "sampler": config.sampler_settings(),
        "recordResults": config.measures_accuracy,
        "placement": config.placement,
        "queries": [{"id": q.id, "topic": q.topic, "windowOffsetMs": q.window_offset_ms} for q in plan_.queries],
    }


def last_column_event_time(value: bytes) -> int:
    """The event time of a CSV record: its last column (appended by klink-generator)."""
    return int(value[value.rindex(b",") + 1:])


def write_job_config(run_dir: Path, job_config_: dict) -> Path:
    path = run_dir / "job-config.json"
    path.write_text(json.dumps(job_config_, indent=2))
    return path
