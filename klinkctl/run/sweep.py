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
from klinkctl.stack.health import lost_taskmanagers, out_of_memory, stack_problem
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
    restarts: int = 0  # times the stack was restarted after it lost TaskManagers or a job ran out of heap


#: The sweep directory's record of stack restarts after lost TaskManagers or a job out of heap
#: (on-lost-taskmanager: restart).
RESTARTS_FILE = "restarts.csv"


def run_sweep(sweep: Sweep, stack: StackSpec | None, stack_processes: dict[str, int],
              observer: SweepObserver | None = None,
              restart: Callable[[], dict[str, int]] | None = None) -> SweepOutcome:
    """Every unfinished run, in plan order; index.csv rewritten before and after each. A failed run is
    recorded and the sweep goes on; an interrupted one is recorded and the sweep stops. A stack that cannot run
    the next run, or whose last run's job ran out of heap, stops the sweep, unless it only lost TaskManagers or
    ran out of heap and `restart` (which restarts the stack and returns the components' new pids) is given."""
    observer = observer or _Unobserved()
    save(sweep)
    keeper = _StackKeeper(stack, stack_processes, restart, observer)
    with signals_as_interrupt():
        for run in sweep.unfinished():
            problem = keeper.problem_before(sweep, run)
            if problem is not None:
                return _outcome(sweep, interrupted=False, stack_down=problem, restarts=keeper.restarts)
            row = _start(sweep, run)
            observer.run_started(run)
            started = time.monotonic()
            status, reason, outcome = _attempt(run, sweep.directory, stack, stack_processes, observer)
            _finish(sweep, row, status, reason, outcome, time.monotonic() - started)
            keeper.ran(run, outcome)
            observer.run_finished(run, row)
            if row.status == INTERRUPTED:
                return _outcome(sweep, interrupted=True, restarts=keeper.restarts)
    return _outcome(sweep, interrupted=False, restarts=keeper.restarts)


@dataclass
class _StackKeeper:
    """The stack between the runs on it: before a run, restarts it (when `restart` is given) if it lost
    TaskManagers or the last run's job ran out of heap — a JVM that threw OutOfMemoryError is not trusted with the
    next run even when its process stayed up — or says what stops the sweep."""

    stack: StackSpec | None
    processes: dict[str, int]  # the components' pids, updated in place by a restart
    restart: Callable[[], dict[str, int]] | None
    observer: SweepObserver
    restarts: int = 0
    out_of_heap: str | None = None  # the last run on the stack ran out of heap: which, for the record

    def ran(self, run: PlannedRun, outcome: RunOutcome | None) -> None:
        if not run.simulated:
            failed = outcome is not None and out_of_memory(outcome.summary)
            self.out_of_heap = f"run {run.index}'s job ran out of heap (java.lang.OutOfMemoryError)" if failed else None

    def problem_before(self, sweep: Sweep, run: PlannedRun) -> str | None:
        """What stops the sweep before `run`, None to run it; restarts the stack first if it needs and may."""
        if run.simulated:
            return None
        if self.restart is not None and (self.out_of_heap or lost_taskmanagers(self.stack)):
            self._restart(sweep, run)
        if self.out_of_heap is not None:
            return (f"{self.out_of_heap}: its TaskManager is not trusted with the next run "
                    "(`on-lost-taskmanager: restart` in the sweep file restarts the stack after it and goes on)")
        return stack_problem(self.stack)

    def _restart(self, sweep: Sweep, run: PlannedRun) -> None:
        problem = "; ".join(p for p in (self.out_of_heap, stack_problem(self.stack)) if p) or "TaskManagers lost"
        self.observer.run_progress(f"{problem}: restarting the stack")
        self.processes.update(self.restart())
        _record_restart(sweep, run, problem)
        self.restarts, self.out_of_heap = self.restarts + 1, None


def _record_restart(sweep: Sweep, run: PlannedRun, problem: str) -> None:
    """A restart before `run` in restarts.csv (the runs after it start on a cold TaskManager: a reader of the
    results must know)."""
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


