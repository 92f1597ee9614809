"""Warm-up runs before a capacity search's first probe: a fresh TaskManager's first jobs read far below its
steady rate (docs/capacity.md, "Warm-up runs"), so the search runs unjudged jobs at the start rate first."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from klinkctl import jit
from klinkctl.errors import KlinkError, RunNotCompleted
from klinkctl.results.tables import read_table

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
#: `--warmup-runs auto` also waits for the TaskManagers' JIT compilers: after the WARM_AFTER_JOBS rule it goes on
#: while the compiler threads used more than this share of the TaskManagers' CPU in the last warm-up run. Under a
#: CPU quota compiling takes a fifth to half of it for many minutes (docs/capacity.md, "Why a fresh stack is
#: slow"), and the stack keeps getting faster until it is done. Not less: every job loads its operators' classes
#: anew, so each run compiles them again in a burst (measured: 1-9 % of a settled stack's CPU per run).
JIT_SETTLED_SHARE = 0.10
#: ... but never more warm-up runs than this (a stack whose compilers never settle: the search says so).
MAX_AUTO_WARMUPS = 24


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
    """(why, how many) warm-up runs at least: as asked, or (auto) as many as the JobManager is short of
    WARM_AFTER_JOBS (run_warmups then adds runs until the compilers settle)."""
    if requested is not None:
        return f"--warmup-runs {requested}", requested
    from klinkctl import flink_jobs

    run_before = flink_jobs.jobs_run(spec)
    return (f"auto: the JobManager had run {run_before} jobs, warm after {WARM_AFTER_JOBS} and once the JIT "
            f"compilers used at most {JIT_SETTLED_SHARE:.0%} of the TaskManagers' CPU in a run",
            max(0, WARM_AFTER_JOBS - run_before))


def run_warmups(config: RunSpec, count: int, run: Callable[[RunSpec, int], RunOutcome],
                until_compiled: bool = False, report: Callable[[str], None] = lambda line: None) -> list[str]:
    """Runs ``count`` warm-up runs (``run(config, number)``) of the probe config, shortened, and with
    ``until_compiled`` (auto) more while the last one's compilers had not settled (compiling_share), at most
    MAX_AUTO_WARMUPS in all; their directories. A warm-up run that does not complete ends the search before its
    first probe."""
    warmup_config = warmup_run_config(config)
    directories: list[str] = []
    share = None
    while len(directories) < count or (until_compiled and len(directories) < MAX_AUTO_WARMUPS
                                       and (share is None or share > JIT_SETTLED_SHARE)):
        outcome = run(warmup_config, len(directories) + 1)
        directories.append(str(outcome.run_dir))
        if outcome.summary.get("status") != "completed":
            raise RunNotCompleted(f"capacity search ended before its first probe: warm-up run {outcome.run_dir} "
                             f"{outcome.summary.get('status')}: {outcome.summary.get('reason')}")
        share = compiling_share(outcome.run_dir)
        if share is None:  # no compiler rows (containers, a remote cluster): the job rule alone
            until_compiled = False
        else:
            report(f"  the JIT compilers used {share:.0%} of the TaskManagers' CPU")
    if until_compiled and share is not None and share > JIT_SETTLED_SHARE:
        report(f"  the compilers had not settled after {len(directories)} warm-up runs: the probes measure a stack "
               "still getting faster (on a CPU quota, `klinkctl up --tm-jit-cpu outside-quota`)")
    return directories


def compiling_share(run_dir: Path) -> float | None:
    """The TaskManagers' JIT compiler threads' CPU as a share of the TaskManagers' CPU over a run (resources.csv:
    `jit:` rows against the processes' own, which include them); None without compiler rows."""
    resources = read_table(run_dir / "resources.csv")
    if resources.empty:
        return None
    component = resources["component"].astype(str)
    compiling = resources.loc[component.str.startswith(jit.PREFIX + "taskmanager"), "cpu_percent"].sum()
    total = resources.loc[component.str.startswith("taskmanager"), "cpu_percent"].sum()
    if not (component.str.startswith(jit.PREFIX).any() and total > 0):
        return None
    return float(compiling / total)
