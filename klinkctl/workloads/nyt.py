"""NYT (DEBS 2015 taxi trips): sliding-window job config for the NYT job and the generator's event arguments."""

from __future__ import annotations

from pathlib import Path

from klinkctl.run.config import BenchConfig
from klinkctl.workloads import common

JAVA_BUILDER = "io.klink.workloads.nyt.NytJob"
event_time = common.last_column_event_time  # appended after the 17 DEBS columns
#: No exact window results yet, so no --sampler/--accuracy (run.config.ACCURACY_WORKLOADS).
exact_results = None


def write_job_config(plan_: common.Plan, config: BenchConfig, bootstrap: str, run_dir: Path) -> Path:
    return common.write_job_config(run_dir, common.job_config(plan_, config, bootstrap, JAVA_BUILDER, slideMs=config.slide_ms))


def generator_args(config: BenchConfig) -> list[str]:
    """Synthetic trips, or the replay of a DEBS 2015 CSV (--data)."""
    return ["--workload", "nyt", *(["--data", str(Path(config.data).resolve())] if config.data else [])]
