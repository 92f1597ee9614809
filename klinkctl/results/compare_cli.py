"""`klinkctl compare`: the Click command; the lead registers it with ``main.add_command(compare)``."""

from __future__ import annotations

from pathlib import Path

import click

#: Output formats of `compare` (kept here so the CLI starts without importing pandas and SciPy).
FORMATS = ("table", "csv", "json")


def _confidence(ctx: click.Context, param: click.Parameter, value: float) -> float:
    if not 0 < value < 1:
        raise click.BadParameter(f"must be between 0 and 1 (exclusive), got {value}")
    return value


@click.command("compare")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
              help="table: for reading; csv / json: for scripts and plots.")
@click.option("--confidence", type=float, default=0.95, show_default=True, callback=_confidence,
              help="Level of the bootstrap confidence intervals, between 0 and 1.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap resampling.")
def compare(runs: tuple[Path, ...], fmt: str, confidence: float, seed: int) -> None:
    """Compare runs side by side: SWM latency summary, bootstrap confidence intervals, and each run's ratio
    of mean latency to the first run's with a significance verdict.

    RUNS are run directories (results/<run-id>/) or latency CSV files; the first is the reference.
    """
    from klinkctl.results.compare import compare_runs, render

    click.echo(render(compare_runs(runs, confidence=confidence, seed=seed), fmt), nl=False)
