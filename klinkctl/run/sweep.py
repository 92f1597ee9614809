"""Running a sweep: every run of a sweep directory (klinkctl.run.sweep_directory) not yet completed, one
after another (``run_sweep``); the plan comes from klinkctl.run.sweep_plan.
"""

from __future__ import annotations

import csv
import os
import time
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Callable, Protocol

from klinkctl.run.bench import RunOutcome, run_bench, signals_as_interrupt
from klinkctl.run.sweep_directory import FAILED, INTERRUPTED, STATUSES, IndexRow, Sweep, save, write_index
from klinkctl.run.sweep_plan import PlannedRun
from klinkctl.sim.run import run_simulation
from klinkctl.stack.health import lost_taskmanagers, stack_problem
from klinkctl.stack.spec import StackSpec


class SweepObserver(Protocol):
    """What the runner reports while it works (the CLI draws its progress bar from it)."""

    def run_started(self, run: PlannedRun) -> None: ...

    def run_progress(self, line: str) -> None: ...

    def run_finished(self, run: PlannedRun, row: IndexRow) -> None: ...


class _Unobserved:
    def run_started(self, run: PlannedRun) -> None:
        pass

    def run_progress(self, line: str) -> None:
        pass

    def run_finished(self, run: PlannedRun, row: IndexRow) -> None:
        pass


@dataclass(frozen=True)
class SweepOutcome:
    counts: dict[str, int]
    interrupted: bool  # Ctrl-C or SIGTERM stopped the sweep; resume runs what is left
    failed: list[IndexRow] = field(default_factory=list)
    stack_down: str | None = None  # the stack could not run the next run: the sweep stopped before it
    restarts: int = 0  # times the stack was restarted after it lost TaskManagers (on-lost-taskmanager: restart)


#: The sweep directory's record of stack restarts after lost TaskManagers (on-lost-taskmanager: restart).
RESTARTS_FILE = "restarts.csv"


def run_sweep(sweep: Sweep, stack: StackSpec | None, stack_processes: dict[str, int],
              observer: SweepObserver | None = None,
              restart: Callable[[], dict[str, int]] | None = None) -> SweepOutcome:
    """Every unfinished run, in plan order; index.csv rewritten before and after each. A failed run is
    recorded and the sweep goes on; an interrupted one is recorded and the sweep stops. A stack that cannot run
    the next run stops the sweep, unless it only lost TaskManagers and `restart` (which restarts the stack and
    returns the components' new pids) is given."""
    observer = observer or _Unobserved()
    save(sweep)
    restarts = 0
    with signals_as_interrupt():
        for run in sweep.unfinished():
            if restart is not None and not run.simulated and lost_taskmanagers(stack):
                _restart(sweep, run, stack, stack_processes, restart, observer)
                restarts += 1
            problem = None if run.simulated else stack_problem(stack)
            if problem is not None:
                return _outcome(sweep, interrupted=False, stack_down=problem, restarts=restarts)
            row = _start(sweep, run)
            observer.run_started(run)
            started = time.monotonic()
            status, reason, outcome = _attempt(run, sweep.directory, stack, stack_processes, observer)
            _finish(sweep, row, status, reason, outcome, time.monotonic() - started)
            observer.run_finished(run, row)
            if row.status == INTERRUPTED:
                return _outcome(sweep, interrupted=True, restarts=restarts)
    return _outcome(sweep, interrupted=False, restarts=restarts)


def _restart(sweep: Sweep, run: PlannedRun, stack: StackSpec, stack_processes: dict[str, int],
             restart: Callable[[], dict[str, int]], observer: SweepObserver) -> None:
    """Restarts the stack before `run` and records it in restarts.csv (the runs after it start on a cold
    TaskManager: a reader of the results must know)."""
    problem = stack_problem(stack) or "TaskManagers lost"
    observer.run_progress(f"{problem}: restarting the stack")
    stack_processes.update(restart())
    path = sweep.directory / RESTARTS_FILE
    new = not path.exists()
    with path.open("a", newline="") as out:
        writer = csv.writer(out)
        if new:
            writer.writerow(["time", "before_run", "problem"])
        writer.writerow([_now(), run.index, problem])


def _attempt(run: PlannedRun, directory: Path, stack: StackSpec | None, stack_processes: dict[str, int],
             observer: SweepObserver) -> tuple[str, str, RunOutcome | None]:
    """(status, reason, outcome) of one run_bench call; whatever goes wrong is the run's, not the sweep's."""
    try:
        if run.simulated:
            outcome = run_simulation(run.config, directory, progress=observer.run_progress)
        else:
            outcome = run_bench(stack, run.config, directory, stack_processes, progress=observer.run_progress,
                                await_last_windows=not run.warmup)
    except KeyboardInterrupt:  # outside run_bench's own handling: before its run started, or during its clean-up
        return INTERRUPTED, "interrupted (Ctrl-C or SIGTERM) before the run started or while it was cleaned up", None
    except Exception as error:  # noqa: BLE001 - a long sweep records a broken run and goes on
        return FAILED, f"{type(error).__name__}: {error}".splitlines()[0], None
    return outcome.summary["status"], outcome.summary.get("reason") or "", outcome


def _start(sweep: Sweep, run: PlannedRun) -> IndexRow:
    row = replace(IndexRow.planned(run), started_at=_now())
    sweep.rows[run.index - 1] = row
    write_index(sweep)  # pending with a start time: a killed sweep redoes this run on resume
    return row


def _finish(sweep: Sweep, row: IndexRow, status: str, reason: str, outcome: RunOutcome | None,
            wall_s: float) -> None:
    row.status = status if status in STATUSES else FAILED
    row.reason = reason
    row.finished_at = _now()
    row.wall_s = f"{wall_s:.1f}"
    if outcome is not None:
        row.run_id = str(outcome.summary.get("run") or outcome.run_dir.name)
        row.run_dir = os.path.relpath(outcome.run_dir, sweep.directory)
    write_index(sweep)


def _outcome(sweep: Sweep, interrupted: bool, stack_down: str | None = None, restarts: int = 0) -> SweepOutcome:
    return SweepOutcome(sweep.counts(), interrupted, [row for row in sweep.rows if row.status == FAILED], stack_down,
                        restarts)


def _now() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")


