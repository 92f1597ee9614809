"""`klinkctl report`: plots and index.html for a set of runs (klinkctl.results.report_build)."""

from __future__ import annotations

from pathlib import Path

import click

from klinkctl.cli.options import confidence_level


@click.command("report")
@click.argument("directory", type=click.Path(path_type=Path))
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=None,
              help="Where to write the plots and index.html. [DIRECTORY/report]")
@click.option("--confidence", type=float, default=0.95, show_default=True, callback=confidence_level,
              help="Level of the Student t confidence intervals over repetitions, between 0 and 1.")
@click.option("--include-invalid", is_flag=True, help="Keep completed runs invalid for comparison (censored "
              "windows, generator behind; docs/results.md) in the figures.")
def report(directory: Path, out_dir: Path | None, confidence: float, include_invalid: bool) -> None:
    """Plots (PNG + SVG) and one self-contained index.html for the runs in DIRECTORY: the analogues of
    the Klink paper's Figs. 6a–6d, 8, 9c and 9d, each where its data exists; for a regime map
    (configs/klink-regimes.yaml) also regimes.csv and regimes.md: per cell each policy with CIs and Klink's
    share of the reduction an ideal order reaches in the fluid model (docs/scheduler.md, "Regime map").

    DIRECTORY is a sweep directory (index.csv), a directory holding run directories, or one run directory.
    Only completed runs valid for comparison are used; the others are listed with their reason.
    """
    from klinkctl.results.report_build import build_report

    outcome = build_report(directory, out_dir, confidence, include_invalid)
    runset = outcome.runset
    click.echo(f"{len(runset.runs)} run{'s' * (len(runset.runs) != 1)} used, {len(runset.excluded)} left out; "
               f"varying: {', '.join(runset.varying) or 'nothing'}")
    for run, status, reason in runset.excluded.itertuples(index=False):
        click.echo(f"left out: {run} ({status}){f': {reason}' if reason else ''}")
    for note in runset.notes:
        click.echo(f"note: {note}")
    for section in outcome.written:
        click.echo(f"Fig. {section.spec.key}: {', '.join(path.name for path in section.files)}")
    for section in outcome.skipped:
        click.echo(f"Fig. {section.spec.key} skipped: {section.skipped}")
    if outcome.regime_files:
        click.echo(f"regime map (per cell: CIs across runs, Klink's share of the ideal reduction): "
                   f"{', '.join(str(path) for path in outcome.regime_files)}")
    click.echo(f"report: {outcome.html}")
