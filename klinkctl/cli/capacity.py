"""`klinkctl capacity`: the maximum sustainable rate of a configuration (klinkctl.run.capacity). Built by
``capacity_command(bench, simulate)`` so that it takes every bench option (declared once, on bench) but the rate,
which it searches for, and simulate's options of the simulated machine (for `--simulate`).

The library (klinkctl.run.capacity: SciPy, pandas) is imported inside the command, so that the CLI starts fast.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from klinkctl.cli import output
from klinkctl.cli.options import FORMAT
from klinkctl.cli.output import console, format_duration
from klinkctl.cli.stack import running_stack
from klinkctl.stack.running import ON_LOST_TASKMANAGER
from klinkctl.errors import KlinkError, RunNotCompleted
from klinkctl.run.capacity_warmup import (AUTO, JIT_SETTLED_SHARE, MAX_AUTO_WARMUPS, WARM_AFTER_JOBS, parse_warmup_runs,
                                         warmups_needed)
from klinkctl.sim.options import SIM_OPTION_NAMES

if TYPE_CHECKING:
    from klinkctl.run.capacity import Probe, SearchResult

#: bench's parameters the capacity search sets itself.
SEARCHED = ("rate", "load", "capacity")

HELP = """Find the maximum sustainable rate (events/s per query) of a WORKLOAD configuration on the running
stack: short bench runs (probes) at an exponentially growing rate until one is not sustainable, then
bisection. Sustainable (Karimov et al., ICDE'18): SWM latency does not trend upward, Flink's sources read
>= 99 % of what the generator offered, the generator kept its schedule. Every probe is kept in
results/capacity-<workload>-<time>/; capacity.json says the rate, the bottleneck (flink, generator, or
not reached) and why each probe passed or failed. Takes every bench option but --rate; --duration and
--warmup default to 30s and 6s per probe. See docs/capacity.md."""


def capacity_command(bench: click.Command, simulate: click.Command) -> click.Command:
    shared = [param for param in bench.params if param.name not in (*SEARCHED, FORMAT)]
    simulated_machine = [param for param in simulate.params if param.name in SIM_OPTION_NAMES]
    own = [
        click.Option(["--start-rate"], type=int, default=10_000, show_default=True,
                     help="Events/s per query of the first probe."),
        click.Option(["--factor"], type=float, default=4.0, show_default=True,
                     help="The ramp multiplies the rate by this after each sustainable probe (divides while "
                          "every probe fails)."),
        click.Option(["--precision"], type=float, default=0.05, show_default=True,
                     help="Stop once the lowest unsustainable rate is within this fraction of the highest "
                          "sustainable one."),
        click.Option(["--max-probes"], type=int, default=8, show_default=True, help="Probes at most."),
        click.Option(["--warmup-runs"], type=str, default=AUTO, show_default=True,
                     help="Runs at the start rate before the first probe, kept but not judged: a fresh "
                          "TaskManager's first jobs read far below its steady rate. auto = until the JobManager "
                          f"has run {WARM_AFTER_JOBS} jobs and the TaskManagers' JIT compilers used at most "
                          f"{JIT_SETTLED_SHARE:.0%} of their CPU in the last warm-up run (at most "
                          f"{MAX_AUTO_WARMUPS} runs); or a number."),
        click.Option(["--on-lost-taskmanager"], type=click.Choice(ON_LOST_TASKMANAGER), default=ON_LOST_TASKMANAGER[0],
                     show_default=True,
                     help="A probe that loses a TaskManager (e.g. out of heap): stop = end the search there; "
                          "restart = count it as not sustainable, restart the local stack with its settings, run "
                          "the warm-up runs again and go on (each restart in capacity.json)."),
        click.Option(["--max-rate"], type=int, default=None, help="Never probe above this rate per query. [no limit]"),
        click.Option(["--out"], type=click.Path(path_type=Path, dir_okay=False), default=None,
                     help="Where capacity.json is written. [inside the capacity directory]"),
        click.Option(["--simulate"], is_flag=True, default=False,
                     help="Probe with `klinkctl simulate` runs (the machine the (simulate) options describe) "
                          "instead of the running stack: no stack needed, no warm-up runs (a simulated "
                          "TaskManager does not warm up). For sweeps with `mode: simulate` at a --load."),
    ]
    return click.Command("capacity", callback=capacity, params=[*shared, *simulated_machine, *own], help=HELP,
                         short_help="Maximum sustainable rate of a configuration (capacity.json).")


def capacity(workload: str, state_dir: Path | None, results_dir: Path, config_file: Path | None, start_rate: int,
             factor: float, precision: float, max_probes: int, max_rate: int | None, warmup_runs: str,
             on_lost_taskmanager: str, out: Path | None, simulate: bool, **options) -> None:
    from klinkctl.run import capacity as cap
    from klinkctl.run.bench import run_bench
    from klinkctl.run.capacity_criteria import BROKE_THE_STACK, Thresholds
    from klinkctl.run.capacity_warmup import run_warmups
    from klinkctl.run.config import resolve
    from klinkctl.stack.health import lost_taskmanagers, stack_problem
    from klinkctl.stack.running import taskmanager_restarter

    settings = cap.SearchSettings(start_rate, factor, precision, max_probes, max_rate).validate()
    thresholds = Thresholds()
    requested_warmups = parse_warmup_runs(warmup_runs)
    given = {"warmup_given": bool(options["warmup_ms"]), "duration_given": bool(options["duration_ms"])}
    options["duration_ms"] = options["duration_ms"] or cap.PROBE_DURATION_MS
    options["warmup_ms"] = options["warmup_ms"] or cap.PROBE_WARMUP_MS
    config = resolve(config_file, {"workload": workload, **options})
    if config.load is not None:
        raise KlinkError(f"{config_file}: load/capacity set the rate, which `klinkctl capacity` searches for; "
                         "remove them")
    duration_ms, warmup_ms, timing_note = cap.probe_times(config, **given)
    config = cap.probe_config(config, settings.start_rate).changed(duration_ms=duration_ms, warmup_ms=warmup_ms)
    if out is not None and out.is_dir():
        raise KlinkError(f"--out {out} is a directory; give a file name, e.g. {out / 'capacity.json'}")
    given_sim_options = [name for name in SIM_OPTION_NAMES if _given(name)]
    if given_sim_options and not simulate:
        option = "--" + given_sim_options[0].replace("_", "-")
        raise KlinkError(f"{option} describes a simulated machine: add --simulate, or leave it out on the real stack")
    if simulate:
        for name, option in (("warmup_runs", "--warmup-runs"), ("on_lost_taskmanager", "--on-lost-taskmanager")):
            if _given(name):
                raise KlinkError(f"{option} is for the real stack; a simulated TaskManager neither warms up nor is "
                                 "lost: leave it out with --simulate")
        return _simulated_capacity(workload, config, settings, thresholds, results_dir, out)
    spec, processes = running_stack(state_dir)
    restart = taskmanager_restarter(spec, asked_by="--on-lost-taskmanager restart") \
        if on_lost_taskmanager == "restart" else None
    warmup_rule, warmup_runs = warmups_needed(spec, requested_warmups)
    directory = cap.new_capacity_dir(results_dir, workload)
    started = time.monotonic()
    with Progress(SpinnerColumn(), MofNCompleteColumn(), BarColumn(bar_width=24), TimeElapsedColumn(),
                  TextColumn("{task.description}"), console=console, disable=not console.is_terminal) as bar:
        task = bar.add_task(f"probe 1 at {settings.start_rate} events/s per query", total=settings.max_probes)
        probes: list[Probe] = []
        warmups: list[str] = []
        restarts: list[dict] = []

        def say(line: str) -> None:
            bar.console.print(line, markup=False, highlight=False, soft_wrap=True)

        def warm_up(count: int) -> None:
            warmups.extend(run_warmups(config, count, lambda warmup_config, n: run(
                warmup_config, f"warm-up run {n}", await_last_windows=False), until_compiled=requested_warmups is None,
                report=say))

        def restarts_after(probe_count: int) -> bool:
            return any(r["before_probe"] == probe_count + 1 for r in restarts)

        def recover() -> None:  # the last probe broke the stack (lost a TaskManager, ran out of heap): a fresh one
            problem = stack_problem(spec) or ("a TaskManager's process is gone" if lost_taskmanagers(spec)
                                              else f"the last probe's verdict: {probes[-1].assessment.verdict}")
            say(f"{problem}: restarting the stack")
            processes.update(restart())
            restarts.append({"time": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "before_probe": len(probes) + 1,
                             "problem": problem, "warmup_runs_before": len(warmups)})
            rule, count = warmups_needed(spec, requested_warmups)
            say(f"warm-up runs after the restart, not judged: {rule}")
            warm_up(count)

        def run(probe_settings, what: str = "", await_last_windows: bool = True):
            broke = bool(probes) and probes[-1].assessment.verdict in BROKE_THE_STACK and not restarts_after(len(probes))
            if restart is not None and (broke or lost_taskmanagers(spec)):
                recover()
            what = what or f"probe {len(probes) + 1}/{settings.max_probes} at most"
            say(f"[{what}] {probe_settings.rate} events/s per query")
            return run_bench(spec, probe_settings, directory, processes, progress=lambda line: bar.update(
                task, description=f"{probe_settings.rate}/s: {line}"), await_last_windows=await_last_windows)

        def finished(probe: Probe) -> None:
            probes.append(probe)
            bar.advance(task)
            say(f"  {probe.assessment.verdict}: {probe.assessment.why} -> {probe.run_dir}")

        if timing_note:
            say(timing_note)
        say(f"warm-up runs, not judged: {warmup_rule}")
        warm_up(warmup_runs)
        probe = cap.bench_probe(config, run, thresholds, lost=lambda: lost_taskmanagers(spec),
                                restarts=restart is not None)
        result = cap.search(probe, settings, finished)
    document = cap.capacity_document(workload, config.to_dict(), spec.to_dict(), directory, result, settings,
                                     thresholds, warmups, warmup_rule, restarts)
    if restarts:
        click.echo(f"restarted the stack {len(restarts)} time(s) after a probe lost a TaskManager (capacity.json)")
    _finish(document, directory, out, result, int(config.queries), time.monotonic() - started)


def _given(name: str) -> bool:
    """The command line (or an environment variable) set this parameter, rather than its default."""
    return click.get_current_context().get_parameter_source(name) not in (None, click.core.ParameterSource.DEFAULT)


def _finish(document: dict, directory: Path, out: Path | None, result: SearchResult, queries: int,
            took_s: float) -> None:
    """Writes capacity.json (and the --out copy), prints the probes and the result."""
    from klinkctl.run import capacity as cap
    from klinkctl.run.capacity_criteria import ABORTED

    path = cap.write_capacity(directory / "capacity.json", document)
    if out is not None:  # a copy where the user wants it; the search directory stays complete
        path = cap.write_capacity(out, document)
    _print_result(result, queries, format_duration(took_s))
    click.echo(f"capacity.json: {path}")
    if result.bottleneck == ABORTED:
        raise RunNotCompleted(f"capacity search ended: {result.stopped}")


def _simulated_capacity(workload: str, config, settings, thresholds, results_dir: Path, out: Path | None) -> None:
    """The search with simulated probes: the same criteria on the same files, no stack."""
    from klinkctl.run import capacity as cap
    from klinkctl.sim.graphs import check_simulable
    from klinkctl.sim.run import run_simulation

    check_simulable(config)  # refused before a directory is made, not by the first probe
    directory = cap.new_capacity_dir(results_dir, workload)
    started = time.monotonic()
    with console.status("simulated probes") as spinner:
        def finished(probe: Probe) -> None:
            spinner.console.print(f"  {probe.rate} events/s per query: {probe.assessment.verdict}: "
                                  f"{probe.assessment.why} -> {probe.run_dir}", markup=False, highlight=False,
                                  soft_wrap=True)

        probe = cap.bench_probe(config, lambda probe_settings: run_simulation(probe_settings, directory), thresholds)
        result = cap.search(probe, settings, finished)
    document = cap.capacity_document(workload, config.to_dict(), {"simulated": True}, directory, result, settings,
                                     thresholds, warmup_rule="none: simulated")
    _finish(document, directory, out, result, int(config.queries), time.monotonic() - started)


def _print_result(result: SearchResult, queries: int, took: str) -> None:
    table = Table("#", "rate/query", "total/s", "verdict", "read", "sent", "send lag ms", "latency growth",
                  title=f"capacity probes ({took})")
    for number, probe in enumerate(result.probes, start=1):
        criteria = probe.assessment.criteria
        values = {name: c.values for name, c in criteria.items()}
        table.add_row(str(number), str(probe.rate), str(probe.rate * queries), probe.assessment.verdict,
                      _percent(values.get("source_read", {}).get("read_fraction")),
                      _percent(values.get("generator", {}).get("achieved_fraction")),
                      _lag(values.get("generator", {})),
                      _percent(values.get("latency_trend", {}).get("growth_fraction")))
    output.out.print(table)  # `out` is capacity's --out
    rate = f"{result.rate} events/s per query ({result.rate * queries} in total)" if result.rate else "none found"
    click.echo(f"capacity: {rate}; bottleneck: {result.bottleneck}; {result.stopped}")


def _lag(generator: dict) -> str:
    """(c)'s send lag with its statistic when it is not the windows' (capacity_criteria.generator_schedule)."""
    from klinkctl.run.capacity_criteria import LAG_ENTERING

    value = generator.get("lag_ms", generator.get("lag_p99_ms"))
    statistic = generator.get("lag_statistic")
    return _number(value) + ("" if statistic in (None, LAG_ENTERING) else f" ({statistic})")


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def _percent(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}%}"
