"""`klinkctl archive`: a figure's small files copied out of results/ for committing (klinkctl.results.archive)."""

from __future__ import annotations

from pathlib import Path

import click

from klinkctl.results.archive import archive


@click.command("archive")
@click.argument("source", type=click.Path(path_type=Path, file_okay=False))
@click.option("--to", "destination_root", type=click.Path(path_type=Path, file_okay=False),
              default=Path("docs/data"), show_default=True, help="Where the archive directory is created.")
def archive_command(source: Path, destination_root: Path) -> None:
    """Copy what a figure needs out of SOURCE (a sweep, capacity or run directory in the git-ignored
    results/) into --to/<name>/ for committing: configs, summaries, per-window latency, indexes and cell
    tables; not the raw marker, watermark and throughput streams. `klinkctl compare` and `klinkctl sweep
    --resume` read the archive as they read the original."""
    destination, tally = archive(source, destination_root)
    left_out = ", ".join(sorted(tally.left_out)) or "nothing"
    click.echo(f"archived {tally.runs} runs ({tally.files} files, {tally.bytes / 1024:.0f} KiB) to {destination}; "
               f"left out: {left_out}")
