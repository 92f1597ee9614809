"""LRB (Linear Road, the paper's streaming variation): the LRB job's config and the generator's car arguments."""

from __future__ import annotations

from pathlib import Path

from klinkctl import catalog
from klinkctl.run.config import RunSpec
from klinkctl.workloads import common

JAVA_BUILDER = "io.klink.workloads.lrb.LrbJob"
event_time = common.last_column_event_time  # appended after the LR position report
#: No exact window results yet, so no --sampler/--accuracy (run.config.ACCURACY_WORKLOADS).
exact_results = None
window_errors = None

#: About one expressway per 1000 reports/s, as LR's L=1 input peaks at about that rate.
REPORTS_PER_S_PER_EXPRESSWAY = 1000
MAX_EXPRESSWAYS: int = catalog.generator()["maxExpressways"]  # klink-generator's LrbEventCodec.MAX_EXPRESSWAYS
SEGMENTS = 100
DEFAULT_ACCIDENTS_PER_MINUTE = 2.0


def expressways(config: RunSpec) -> int:
    return max(1, min(MAX_EXPRESSWAYS, round(config.rate / REPORTS_PER_S_PER_EXPRESSWAY)))


def toll_window_ms(config: RunSpec) -> int:
    """The last window: as long as the statistics slide, a third of it in the stressed variant."""
    return config.slide_ms // 3 if config.stressed else config.slide_ms


def toll_min_cars(config: RunSpec) -> int:
    """LR's 50-car congestion threshold, scaled: the mean reports per segment (both directions of every
    expressway) in one statistics window. Congested segments are slow, hence denser, and exceed it."""
    per_window = config.rate * config.window_ms / 1000
    return max(1, round(per_window / (2 * SEGMENTS * expressways(config))))


def write_job_config(plan_: common.Plan, config: RunSpec, bootstrap: str, run_dir: Path) -> Path:
    return common.write_job_config(run_dir, common.job_config(
        plan_, config, bootstrap, JAVA_BUILDER, slideMs=config.slide_ms, tollWindowMs=toll_window_ms(config),
        tollMinCars=toll_min_cars(config)))


def generator_args(config: RunSpec) -> list[str]:
    accidents = DEFAULT_ACCIDENTS_PER_MINUTE if config.accidents is None else config.accidents
    return ["--workload", "lrb", "--expressways", str(expressways(config)), "--accidents-per-minute", str(accidents)]
