"""Warm-up runs before a capacity search's first probe: a fresh TaskManager's first jobs read far below its
steady rate (docs/capacity.md, "Warm-up runs"), so the search runs unjudged jobs at the start rate first."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from klinkctl.errors import KlinkError, RunNotCompleted

if TYPE_CHECKING:
    from klinkctl.run.bench import RunOutcome
    from klinkctl.run.config import RunSpec

AUTO = "auto"
#: A TaskManager reads far below its steady rate in its first jobs (docs/capacity.md, "Warm-up runs"): 0.1x
#: in the first, 0.5x in the second, and the fourth job on a fresh whole-core stack still fell behind at a
#: rate the fifth to eleventh sustained; `--warmup-runs auto` runs jobs until the JobManager has run this many.
WARM_AFTER_JOBS = 4
#: Warm-up runs are not judged: shorter than a probe (the runs of the warm-up measurement were 15 s).
WARMUP_RUN_MS = 15_000


def parse_warmup_runs(value: str) -> int | None:
    """None for auto, else the number of warm-up runs asked for."""
    if value.strip().lower() == AUTO:
        return None
    if not value.strip().isascii() or not value.strip().isdigit():
        raise KlinkError(f"--warmup-runs must be auto or a whole number of runs (0 or more), got {value!r}")
    return int(value)


def warmup_run_config(config: RunSpec) -> RunSpec:
    """A probe's config, shortened to WARMUP_RUN_MS (never below its own warm-up, never above its duration). Its rate
    schedule is kept when it fits the shorter run; a surge that would end after it leaves the warm-up steady (it is
    not judged: it only warms the stack)."""
    duration = min(config.duration_ms, max(WARMUP_RUN_MS, config.warmup_ms + 1000))
    rates = config.rates
    fits = rates.kind != "surge" or rates.start_ms + rates.length_ms <= duration
    return config.changed(duration_ms=duration, rate_schedule=config.rate_schedule if fits else "steady")


def warmups_needed(spec, requested: int | None) -> tuple[str, int]:
    """(why, how many) warm-up runs: as asked, or (auto) as many as the JobManager is short of WARM_AFTER_JOBS."""
    if requested is not None:
        return f"--warmup-runs {requested}", requested
    from klinkctl import flink_jobs

    run_before = flink_jobs.jobs_run(spec)
    return (f"auto: the JobManager had run {run_before} jobs, warm after {WARM_AFTER_JOBS}",
            max(0, WARM_AFTER_JOBS - run_before))


def run_warmups(config: RunSpec, count: int, run: Callable[[RunSpec, int], RunOutcome]) -> list[str]:
    """Runs ``count`` warm-up runs (``run(config, number)``) of the probe config, shortened; their directories.
    A warm-up run that does not complete ends the search before its first probe."""
    warmup_config = warmup_run_config(config)
    directories = []
    for number in range(1, count + 1):
        outcome = run(warmup_config, number)
        directories.append(str(outcome.run_dir))
        if outcome.summary.get("status") != "completed":
            raise RunNotCompleted(f"capacity search ended before its first probe: warm-up run {outcome.run_dir} "
                             f"{outcome.summary.get('status')}: {outcome.summary.get('reason')}")
    return directories
