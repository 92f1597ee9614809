"""`klinkctl capacity`: the Click command; cli.py registers it with ``main.add_command(capacity_command(bench))``
so that it takes every bench option (declared once, on bench) but the rate, which it searches for.

The library (klinkctl.run.capacity: SciPy, pandas) is imported inside the command, so that the CLI starts fast.
"""

from __future__ import annotations

import time

from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from klinkctl.errors import KlinkError

if TYPE_CHECKING:
    from klinkctl.run.capacity import Probe, SearchResult

#: bench's parameters the capacity search sets itself.
SEARCHED = ("rate", "load", "capacity")
AUTO = "auto"
#: A TaskManager reads far below its steady rate in its first jobs (docs/capacity.md, "Warm-up runs"): 0.1x
#: in the first, 0.5x in the second, and the fourth job on a fresh whole-core stack still fell behind at a
#: rate the fifth to eleventh sustained; `--warmup-runs auto` runs jobs until the JobManager has run this many.
WARM_AFTER_JOBS = 4
#: Warm-up runs are not judged: shorter than a probe (the runs of the warm-up measurement were 15 s).
WARMUP_RUN_MS = 15_000

HELP = """Find the maximum sustainable rate (events/s per query) of a WORKLOAD configuration on the running
stack: short bench runs (probes) at an exponentially growing rate until one is not sustainable, then
bisection. Sustainable (Karimov et al., ICDE'18): SWM latency does not trend upward, Flink's sources read
>= 99 % of what the generator offered, the generator kept its schedule. Every probe is kept in
results/capacity-<workload>-<time>/; capacity.json says the rate, the bottleneck (flink, generator, or
not reached) and why each probe passed or failed. Takes every bench option but --rate; --duration and
--warmup default to 30s and 6s per probe. See docs/capacity.md."""


def capacity_command(bench: click.Command) -> click.Command:
    shared = [param for param in bench.params if param.name not in SEARCHED]
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
                          f"has run {WARM_AFTER_JOBS} jobs (none on a stack that has); or a number."),
        click.Option(["--max-rate"], type=int, default=None, help="Never probe above this rate per query. [no limit]"),
        click.Option(["--out"], type=click.Path(path_type=Path, dir_okay=False), default=None,
                     help="Where capacity.json is written. [inside the capacity directory]"),
    ]
    return click.Command("capacity", callback=capacity, params=[*shared, *own], help=HELP,
                         short_help="Maximum sustainable rate of a configuration (capacity.json).")


def capacity(workload: str, state_dir: Path | None, results_dir: Path, config_file: Path | None, start_rate: int,
             factor: float, precision: float, max_probes: int, max_rate: int | None, warmup_runs: str,
             out: Path | None, **options) -> None:
    from klinkctl.cli import _ensure_stack, console
    from klinkctl.run import capacity as cap
    from klinkctl.run.bench import run_bench
    from klinkctl.run.config import resolve
    from klinkctl.run.sweep_cli import format_duration

    settings = cap.SearchSettings(start_rate, factor, precision, max_probes, max_rate).validate()
    thresholds = cap.Thresholds()
    requested_warmups = parse_warmup_runs(warmup_runs)
    options["duration_ms"] = options["duration_ms"] or cap.PROBE_DURATION_MS
    options["warmup_ms"] = options["warmup_ms"] or cap.PROBE_WARMUP_MS
    config = resolve(config_file, {"workload": workload, **options})
    if config.load is not None:
        raise KlinkError(f"{config_file}: load/capacity set the rate, which `klinkctl capacity` searches for; "
                         "remove them")
    config = cap.probe_config(config, settings.start_rate)  # every value checked before anything starts
    if out is not None and out.is_dir():
        raise KlinkError(f"--out {out} is a directory; give a file name, e.g. {out / 'capacity.json'}")
    spec, processes = _ensure_stack(state_dir)
    warmup_rule, warmup_runs = warmups_needed(spec, requested_warmups)
    directory = cap.new_capacity_dir(results_dir, workload)
    started = time.monotonic()
    with Progress(SpinnerColumn(), MofNCompleteColumn(), BarColumn(bar_width=24), TimeElapsedColumn(),
                  TextColumn("{task.description}"), console=console, disable=not console.is_terminal) as bar:
        task = bar.add_task(f"probe 1 at {settings.start_rate} events/s per query", total=settings.max_probes)
        probes: list[Probe] = []

        def run(probe_settings, what: str = ""):
            what = what or f"probe {len(probes) + 1}/{settings.max_probes} at most"
            bar.console.print(f"[{what}] {probe_settings.rate} events/s per query", markup=False, highlight=False,
                              soft_wrap=True)
            return run_bench(spec, probe_settings, directory, processes, progress=lambda line: bar.update(
                task, description=f"{probe_settings.rate}/s: {line}"))

        def finished(probe: Probe) -> None:
            probes.append(probe)
            bar.advance(task)
            bar.console.print(f"  {probe.assessment.verdict}: {probe.assessment.why} -> {probe.run_dir}",
                              markup=False, highlight=False, soft_wrap=True)

        warmups = []
        warmup_config = warmup_run_config(config)
        for n in range(warmup_runs):
            outcome = run(warmup_config, f"warm-up run {n + 1}/{warmup_runs} ({warmup_rule}), not judged")
            warmups.append(str(outcome.run_dir))
            if outcome.summary.get("status") != "completed":
                raise KlinkError(f"capacity search ended before its first probe: warm-up run {outcome.run_dir} "
                                 f"{outcome.summary.get('status')}: {outcome.summary.get('reason')}")
        result = cap.search(cap.bench_probe(config, run, thresholds), settings, finished)
    document = cap.capacity_document(workload, config.to_dict(), spec.to_dict(), directory, result, settings,
                                     thresholds, warmups, warmup_rule)
    path = cap.write_capacity(directory / "capacity.json", document)
    if out is not None:  # a copy where the user wants it; the search directory stays complete
        path = cap.write_capacity(out, document)
    _print_result(result, int(config.queries), format_duration(time.monotonic() - started))
    click.echo(f"capacity.json: {path}")
    if result.bottleneck == cap.ABORTED:
        raise KlinkError(f"capacity search ended: {result.stopped}")


def parse_warmup_runs(value: str) -> int | None:
    """None for auto, else the number of warm-up runs asked for."""
    if value.strip().lower() == AUTO:
        return None
    if not value.strip().isascii() or not value.strip().isdigit():
        raise KlinkError(f"--warmup-runs must be auto or a whole number of runs (0 or more), got {value!r}")
    return int(value)


def warmup_run_config(config):
    """A probe's config, shortened to WARMUP_RUN_MS (never below its own warm-up, never above its duration)."""
    duration = min(config.duration_ms, max(WARMUP_RUN_MS, config.warmup_ms + 1000))
    return config.changed(duration_ms=duration)


def warmups_needed(spec, requested: int | None) -> tuple[str, int]:
    """(why, how many) warm-up runs: as asked, or (auto) as many as the JobManager is short of WARM_AFTER_JOBS."""
    if requested is not None:
        return f"--warmup-runs {requested}", requested
    from klinkctl import flink_jobs

    run_before = flink_jobs.jobs_run(spec)
    return (f"auto: the JobManager had run {run_before} jobs, warm after {WARM_AFTER_JOBS}",
            max(0, WARM_AFTER_JOBS - run_before))


def _print_result(result: SearchResult, queries: int, took: str) -> None:
    from klinkctl.cli import out

    table = Table("#", "rate/query", "total/s", "verdict", "read", "sent", "lag p99 ms", "latency growth",
                  title=f"capacity probes ({took})")
    for number, probe in enumerate(result.probes, start=1):
        criteria = probe.assessment.criteria
        values = {name: c.values for name, c in criteria.items()}
        table.add_row(str(number), str(probe.rate), str(probe.rate * queries), probe.assessment.verdict,
                      _percent(values.get("source_read", {}).get("read_fraction")),
                      _percent(values.get("generator", {}).get("achieved_fraction")),
                      _number(values.get("generator", {}).get("lag_p99_ms")),
                      _percent(values.get("latency_trend", {}).get("growth_fraction")))
    out.print(table)
    rate = f"{result.rate} events/s per query ({result.rate * queries} in total)" if result.rate else "none found"
    click.echo(f"capacity: {rate}; bottleneck: {result.bottleneck}; {result.stopped}")


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def _percent(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}%}"
