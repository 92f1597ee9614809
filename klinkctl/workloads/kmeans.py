"""kMeans: 2-D points of drifting clusters, a windowed k-means per query (the expensive window operator)."""

from __future__ import annotations

from pathlib import Path

from klinkctl.run.config import BenchConfig
from klinkctl.workloads import common

JAVA_BUILDER = "io.klink.workloads.kmeans.KmeansJob"
event_time = common.last_column_event_time  # x,y,event_time
#: No exact window results yet, so no --sampler/--accuracy (run.config.ACCURACY_WORKLOADS).
exact_results = None


def write_job_config(plan_: common.Plan, config: BenchConfig, bootstrap: str, run_dir: Path) -> Path:
    return common.write_job_config(run_dir, common.job_config(plan_, config, bootstrap, JAVA_BUILDER, k=config.k,
                                                              iterations=config.kmeans_iterations))


def generator_args(config: BenchConfig) -> list[str]:
    return ["--workload", "kmeans"]
