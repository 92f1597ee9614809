"""`klinkctl simulate`: one simulated run (klinkctl.sim); needs no stack."""

from __future__ import annotations

from pathlib import Path

import click

from klinkctl.cli.options import format_option, results_option
from klinkctl.cli.output import console, report_outcome
from klinkctl.options import click_options
from klinkctl.run.declared import OPTIONS


@click.command()
@format_option
@click.argument("config_file", required=False, type=click.Path(path_type=Path, dir_okay=False, exists=True))
@results_option
@click_options(OPTIONS)
def simulate(fmt: str, config_file: Path | None, results_dir: Path, **options) -> None:
    """Simulate the run CONFIG_FILE (bench settings, YAML) describes, with the real policy classes on simulated
    query pipelines, and write results/sim-<run-id>/ as bench writes a real run. Options override the file."""
    from klinkctl.run.config import resolve
    from klinkctl.sim.run import run_simulation

    config = resolve(config_file, options)
    with console.status("simulating") as spinner:
        outcome = run_simulation(config, results_dir, progress=lambda line: spinner.update(line))
    report_outcome(outcome, fmt, "simulation")
