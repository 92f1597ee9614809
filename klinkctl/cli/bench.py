"""`klinkctl bench`: one benchmark run. Its options are the bench settings (klinkctl.run.config); `capacity`
takes them from here (klinkctl.cli.capacity)."""

from __future__ import annotations

from pathlib import Path

import click

from klinkctl.cli.options import format_option, results_option, state_dir_option
from klinkctl.cli.output import console, report_outcome
from klinkctl.cli.stack import running_stack
from klinkctl.options import click_options
from klinkctl.run.declared import OPTIONS
from klinkctl.sim.options import SIM_OPTION_NAMES


@click.command()
@format_option  # kept apart from the bench settings below
@click.argument("workload")
@state_dir_option
@results_option
@click.option("--config", "config_file", type=click.Path(path_type=Path, dir_okay=False),
              help="YAML file of bench settings (same names as these options); options given here win.")
@click_options(OPTIONS, skip=["workload", *SIM_OPTION_NAMES])
def bench(fmt: str, workload: str, state_dir: Path | None, results_dir: Path, config_file: Path | None,
          **options) -> None:
    """Run a benchmark WORKLOAD (ysb, nyt, lrb, kmeans, exclamation, ysb-records, rides, average, bigrams,
    lrb-segments) on the stack and write results/<run-id>/."""
    from klinkctl.run.bench import run_bench
    from klinkctl.run.config import resolve

    config = resolve(config_file, {"workload": workload, **options})  # every value checked before anything starts
    spec, processes = running_stack(state_dir)
    with console.status(f"{workload} run") as spinner:
        outcome = run_bench(spec, config, results_dir, processes, progress=lambda line: spinner.update(line))
    report_outcome(outcome, fmt, "run")
