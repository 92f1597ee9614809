"""YSB: topics, query ids, de-aligned window offsets and the job config for jobs/ysb.py."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

from klinkctl import generator
from klinkctl.paths import JOBS_DIR
from klinkctl.run.config import BenchConfig

JOB_SCRIPT = JOBS_DIR / "ysb.py"


@dataclass(frozen=True)
class QueryPlan:
    id: str  # "q07": prefixes every operator name of the query
    topic: str
    window_offset_ms: int


@dataclass(frozen=True)
class YsbPlan:
    run_id: str
    queries: tuple[QueryPlan, ...]
    metrics_topic: str

    @property
    def input_topics(self) -> list[str]:
        return [q.topic for q in self.queries]

    @property
    def all_topics(self) -> list[str]:
        return [*self.input_topics, self.metrics_topic]


def plan(config: BenchConfig, run_id: str) -> YsbPlan:
    """Each query gets its own topic and a seeded window offset, so deadlines are de-aligned across
    queries (the paper deploys each query at a random time in the first 20 s to the same effect)."""
    rng = random.Random(config.seed)
    queries = tuple(QueryPlan(f"q{i:02d}", f"{run_id}-q{i:02d}", rng.randrange(config.window_ms))
                    for i in range(config.queries))
    return YsbPlan(run_id, queries, f"{run_id}-metrics")


def write_job_config(plan_: YsbPlan, config: BenchConfig, bootstrap: str, run_dir: Path) -> Path:
    campaigns_file = run_dir / "campaigns.json"
    campaigns_file.write_text(json.dumps(generator.campaigns(config.seed, config.campaigns, config.ads_per_campaign)))
    job_config = {
        "bootstrap": bootstrap,
        "runId": plan_.run_id,
        "metricsTopic": plan_.metrics_topic,
        "campaignsFile": str(campaigns_file.resolve()),
        "windowMs": config.window_ms,
        "outOfOrdernessMs": config.watermark_bound_ms,
        "markerIntervalMs": config.marker_interval_ms,
        "watermarkIntervalMs": config.watermark_interval_ms,
        "queries": [{"id": q.id, "topic": q.topic, "windowOffsetMs": q.window_offset_ms} for q in plan_.queries],
    }
    path = run_dir / "job-config.json"
    path.write_text(json.dumps(job_config, indent=2))
    return path
