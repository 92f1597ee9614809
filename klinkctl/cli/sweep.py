"""`klinkctl sweep`: an experiment grid, one bench run per grid point and repetition (klinkctl.run.sweep).

The library (which imports pandas through the bench) is imported inside the command, so that the CLI starts fast.
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.markup import escape  # labels such as klink[priority,C=2] are not markup
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from klinkctl import locks
from klinkctl.cli.options import format_option
from klinkctl.cli.output import console, format_duration, out
from klinkctl.cli.stack import running_stack
from klinkctl.stack.running import taskmanager_restarter
from klinkctl.errors import ExitCode, KlinkError, StackNotRunning, SweepIncomplete
from klinkctl.progress import eta_s

if TYPE_CHECKING:
    from klinkctl.run.sweep import SweepOutcome
    from klinkctl.run.sweep_directory import IndexRow, Sweep
    from klinkctl.run.sweep_plan import PlannedRun, SweepSpec


@click.command("sweep")
@click.argument("config", required=False, type=click.Path(path_type=Path, dir_okay=False))
@click.option("--state-dir", type=click.Path(path_type=Path), default=None, envvar="KLINK_STATE_DIR",
              help="Where config, logs, pids and data live (default ./.klink).")
@click.option("--results", "results_dir", type=click.Path(path_type=Path, file_okay=False), default=Path("results"),
              show_default=True, help="Where the sweep directory <name>-<time>/ is created.")
@click.option("--resume", type=click.Path(path_type=Path, file_okay=False, exists=True),
              help="Continue the sweep in this directory (results/<sweep-id>/): runs every run not completed.")
@click.option("--dry-run", is_flag=True, help="List the runs and the estimated time; start nothing.")
@format_option
@click.option("--repetitions", type=click.IntRange(min=1), help="Repetitions of every grid point (overrides "
              "the file's; with --resume it may only grow: the new repetitions are appended).")
@click.option("--include-invalid", is_flag=True, help="Keep runs invalid for comparison (censored windows, generator "
              "behind) in the cell statistics; by default they are left out and counted.")
def sweep(config: Path | None, state_dir: Path | None, results_dir: Path, resume: Path | None, dry_run: bool,
          fmt: str, repetitions: int | None, include_invalid: bool) -> None:
    """Run an experiment grid from a sweep file CONFIG (YAML), one bench run per grid point and repetition,
    into results/<sweep-id>/<run-id>/ with an index.csv of every run and its status.

    \b
    workload: ysb              # required, unless the grid varies it: grid: {workload: [ysb, nyt]}
    name: fig6a                # optional: sweep directory name (default: the file's)
    mode: simulate             # optional: klinkctl simulate each run (no stack needed); default bench
    repetitions: 3             # default 3 (the paper: 10); seed = base-seed + repetition - 1
    base-seed: 42              # repetition k of every grid point uses the same seed
    warmup-runs: 1             # runs first, kept and indexed, left out of the tables (default 0)
    order: shuffled            # grid points per repetition: grid (as listed, default) or shuffled
    on-lost-taskmanager: stop  # a run that loses a TaskManager, or whose job runs out of heap, stops the
                               # sweep; restart: the local stack restarts with its settings and the sweep
                               # goes on (restarts.csv)
    fixed: {duration: 30s, warmup: 8s, window: 3s, cores: 2, generator-cpus: "0"}
    grid: {queries: [2, 4], rate: [10000, 60000], delay: ["const:300ms"]}   # or also policy: [...]
    variants:                  # optional: named bench settings, side by side at every grid point
      default: {policy: default}
      klink-f90: {policy: klink, enforce: priority, confidence: 0.9}

    fixed, grid and each variant take every `klinkctl bench` setting (same names); a grid value is a
    list. Runs go repetition by repetition, grid point by grid point, the policies and variants of a
    point back to back (their order rotated per repetition). Every run is validated before the first
    starts. A failed run is recorded and the sweep goes on (exit 4 at the end); Ctrl-C ends the current
    run as interrupted and stops the sweep; --resume DIR later runs what is not completed. Every run
    directory is kept. See docs/sweep.md.
    """
    from klinkctl.run.sweep_directory import open_sweep
    from klinkctl.run.sweep_plan import read_sweep_file

    if fmt == "json" and not dry_run:
        raise click.UsageError("--format json lists the planned runs: it needs --dry-run")
    if config is None and resume is None:
        raise KlinkError("no sweep file: klinkctl sweep configs/<name>.yaml, or --resume <sweep dir> to continue one")
    if config is not None and resume is not None:
        raise KlinkError(f"give {config} or --resume {resume}, not both: a resumed sweep runs its own sweep.yaml")
    existing = open_sweep(resume, repetitions) if resume is not None else None
    if existing is not None:
        spec, runs = existing.spec, existing.unfinished()
    else:
        spec, runs = read_sweep_file(config, repetitions)  # every run validated: nothing started yet
    if dry_run and fmt == "json":
        click.echo(_plan_json(runs, existing))
    elif dry_run:
        _print_plan(runs, existing)
    elif not runs:
        click.echo(f"all {len(existing.runs)} runs of {resume} completed; nothing to run; its cells:")
        print_cells(existing, console, include_invalid)
    else:
        _run(existing, spec, runs, state_dir, results_dir, include_invalid)


def _run(existing: Sweep | None, spec: SweepSpec, runs: list[PlannedRun], state_dir: Path | None, results_dir: Path,
         include_invalid: bool = False) -> None:
    from klinkctl.run.sweep import run_sweep
    from klinkctl.run.sweep_directory import create_sweep

    if existing is not None:
        locks.hold(existing.directory / locks.SWEEP_LOCK, f"sweep {existing.directory}")
    stack, processes = (None, {}) if spec.simulated else running_stack(state_dir)
    restart = taskmanager_restarter(stack) if stack is not None and spec.on_lost_taskmanager == "restart" else None
    target = existing or create_sweep(spec, runs, results_dir)
    locks.hold(target.directory / locks.SWEEP_LOCK, f"sweep {target.directory}")
    todo = target.unfinished()
    console.print(f"sweep {target.directory}: {len(todo)} of {len(target.runs)} runs to do, estimated "
                  f"{format_duration(sum(run.estimated_s for run in todo))}", soft_wrap=True)
    with Progress(SpinnerColumn(), MofNCompleteColumn(), BarColumn(bar_width=24), TimeElapsedColumn(),
                  TextColumn("ETA {task.fields[eta]}"), TextColumn("{task.description}"),
                  console=console, disable=not console.is_terminal) as progress:
        outcome = run_sweep(target, stack, processes, SweepProgress(progress, todo), restart)
    _report(target, outcome, console, include_invalid)


def _report(target: Sweep, outcome: SweepOutcome, console: Console, include_invalid: bool) -> None:
    counts = ", ".join(f"{outcome.counts[status]} {status}" for status in ("completed", "failed", "interrupted", "pending")
                       if outcome.counts[status])
    console.print(f"sweep {target.directory}: {counts} (index.csv)", soft_wrap=True)
    if outcome.restarts:
        console.print(f"restarted the stack {outcome.restarts} time(s) after a run lost TaskManagers or ran out of "
                      "heap (restarts.csv)", soft_wrap=True)
    if outcome.interrupted:
        click.echo(f"interrupted; resume with: klinkctl sweep --resume {target.directory}", err=True)
        sys.exit(ExitCode.INTERRUPTED)
    if outcome.stack_down:
        raise StackNotRunning(f"sweep stopped: {outcome.stack_down}; check `klinkctl status`, restart the stack "
                         f"(`klinkctl down`, `klinkctl up`) and resume with klinkctl sweep --resume {target.directory}")
    if outcome.failed:
        numbers = ", ".join(str(row.index) for row in outcome.failed)
        raise SweepIncomplete(f"{len(outcome.failed)} of {len(target.runs)} runs failed (run {numbers}; reasons in "
                         f"{target.directory / 'index.csv'}); rerun them with klinkctl sweep --resume {target.directory}")
    print_cells(target, console, include_invalid)
    click.echo(f"all {len(target.runs)} runs completed; figures: klinkctl report {target.directory}")


def print_cells(target: Sweep, console: Console, include_invalid: bool = False) -> None:
    """Statistics across repetitions per grid cell and ratios to the baseline (klinkctl.results.sweep_table);
    runs invalid for comparison are left out and counted."""
    from klinkctl.results import sweep_table

    try:
        runset, cells = sweep_table.write_cells(target.directory, target.spec.axes, include_invalid)
    except KlinkError as error:
        click.echo(f"no table of the runs: {error}", err=True)
        return
    shown = [c for c in cells.columns if not c.endswith(CI_SUFFIXES) and c not in HIDDEN_CELL_COLUMNS]
    table = Table(*(CELL_HEADERS.get(c, c) for c in shown),
                  title=f"means over repetitions, [..] = CI across runs ({target.directory.name}; all columns in "
                        "cells.csv)")
    for _, row in cells.iterrows():
        table.add_row(*(escape(_cell_with_ci(row, column)) for column in shown))
    # a log file gets every column; a terminal its own width
    (console if console.is_terminal else Console(file=console.file, width=200)).print(table)
    for note in sweep_table.cells_note_lines(runset, cells):
        click.echo(f"note: {note}")


#: Short headers for cells.csv's columns, so the table fits a terminal.
CELL_HEADERS = {"mean_ms": "mean ms [CI]", "p99_ms": "p99 ms [CI]", "source_records_per_s": "source rec/s",
                "generator_events_per_s": "gen ev/s", "generator_behind": "gen behind",
                "taskmanager_cpu_percent": "TM cpu %", "taskmanager_jit_percent": "TM JIT %", "latency_growth": "growth",
                "mean_error": "error", "max_error": "max error", "within_target": "in target",
                "sampling_rate": "sampled", "ratio": "mean × [CI]", "n_invalid": "invalid",
                # per-record latency (klinkctl.results.groups.RECORD_METRICS), in runs that measure it
                "record_p99_ms": "record p99 ms [CI]",
                "record_p999_ms": "record p99.9 ms [CI]", "record_p99_ratio": "record p99 × [CI]",
                "record_p999_ratio": "record p99.9 × [CI]"}
CI_SUFFIXES = ("_ci_low", "_ci_high")
HIDDEN_CELL_COLUMNS = ("p99_ratio", "significant", "record_mean_ms", "record_mean_ratio",  # all in cells.csv
                       "record_queueing_ms", "record_queueing_ratio")
CI_OF = {"mean_ms": "mean", "p99_ms": "p99", "ratio": "ratio",
         **{f"{name}_ms": name for name in ("record_p99", "record_p999")},
         **{f"{name}_ratio": f"{name}_ratio" for name in ("record_p99", "record_p999")}}


def _cell_with_ci(row, column: str) -> str:
    """A cell's text; a statistic with a CI (mean_ms, p99_ms, ratio) as ``value [low–high]``."""
    text = _cell(row[column], column)
    prefix = CI_OF.get(column)
    if prefix is None or any(_missing(row[f"{prefix}{suffix}"]) for suffix in CI_SUFFIXES):
        return text
    return f"{text} [{_cell(row[prefix + '_ci_low'], column)}–{_cell(row[prefix + '_ci_high'], column)}]"


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _cell(value: object, column: str) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return "-"
        if column.endswith(("error", "rate", "target", "behind", "growth")) and "records" not in column:
            return f"{value:.1%}"
        if column.endswith("ratio"):
            return f"{value:.2f}"
        return f"{value:.0f}" if abs(value) >= 100 or value.is_integer() else f"{value:.3g}"
    return str(value)


class SweepProgress:
    """The sweep's progress bar (a klinkctl.run.sweep.SweepObserver): runs done of those to do, and an ETA
    that learns from the finished runs."""

    def __init__(self, progress: Progress, todo: list[PlannedRun]) -> None:
        self.progress = progress
        self.position = {run.index: number for number, run in enumerate(todo, start=1)}
        self.total = len(todo)
        self.remaining_estimate_s = sum(run.estimated_s for run in todo)
        self.done_actual_s = self.done_estimate_s = 0.0
        self.current: PlannedRun | None = None
        self.current_started = time.monotonic()
        self.task = progress.add_task("", total=len(todo), eta=self._eta())

    def run_started(self, run: PlannedRun) -> None:
        self.current, self.current_started = run, time.monotonic()
        self._update(run.label)
        if self.progress.disable:  # no live bar (not a terminal): one line per run instead
            self.progress.console.print(f"[{self.position[run.index]}/{self.total}] running {run.label}, seed "
                                        f"{run.seed}, ~{format_duration(run.estimated_s)} (sweep ETA {self._eta()})",
                                        soft_wrap=True)

    def run_progress(self, line: str) -> None:
        if self.current is not None:
            self._update(f"{self.current.label}: {line}")

    def run_finished(self, run: PlannedRun, row: IndexRow) -> None:
        wall_s = time.monotonic() - self.current_started
        self.done_actual_s += wall_s
        self.done_estimate_s += run.estimated_s
        self.remaining_estimate_s -= run.estimated_s
        self.current = None
        self.progress.advance(self.task)
        self._update("")
        where = f" -> {row.run_dir}" if row.run_dir else ""
        why = f": {row.reason}" if row.reason else ""
        self.progress.console.print(f"[{self.position[run.index]}/{self.total}] {row.status} {run.label} "
                                    f"({format_duration(wall_s)}){where}{why}", markup=False, highlight=False,
                                    soft_wrap=True)

    def _update(self, description: str) -> None:
        self.progress.update(self.task, description=description, eta=self._eta())

    def _eta(self) -> str:
        in_current = min(time.monotonic() - self.current_started, self.current.estimated_s) if self.current else 0.0
        return format_duration(eta_s(self.remaining_estimate_s - in_current, self.done_actual_s, self.done_estimate_s))


def _print_plan(runs: list[PlannedRun], existing: Sweep | None) -> None:
    keys = list(runs[0].params) if runs else []
    table = Table("#", "rep", "seed", *keys, "estimate", *(["status"] if existing else []),
                  title=f"unfinished runs of {existing.directory}" if existing else "runs, in order")
    for run in runs:
        table.add_row(str(run.index), "warm-up" if run.warmup else str(run.repetition), str(run.seed),
                      *(str(run.params[k]) for k in keys),
                      format_duration(run.estimated_s), *([existing.row(run).status] if existing else []))
    out.print(table)
    total = sum(run.estimated_s for run in runs)
    warmups = sum(run.warmup for run in runs)
    click.echo(f"{len(runs)} runs{f' ({warmups} warm-up)' if warmups else ''}, estimated {format_duration(total)} "
               "(+ the stack's start if none runs)")


def _plan_json(runs: list[PlannedRun], existing: Sweep | None) -> str:
    """The planned runs as a JSON list, in order (with their index.csv status when resuming)."""
    return json.dumps([{"index": run.index, "repetition": run.repetition, "warmup": run.warmup, "seed": run.seed,
                        "params": run.params, "estimated_s": run.estimated_s,
                        **({"status": existing.row(run).status} if existing else {})} for run in runs],
                      indent=2, default=str)
