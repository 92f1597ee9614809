"""Options several commands share."""

from __future__ import annotations

from pathlib import Path

import click

state_dir_option = click.option(
    "--state-dir", type=click.Path(path_type=Path), default=None, envvar="KLINK_STATE_DIR",
    help="Where config, logs, pids and data live (default ./.klink).")

results_option = click.option("--results", "results_dir", type=click.Path(path_type=Path), default=Path("results"),
                              show_default=True, help="Where run directories are written.")


def confidence_level(ctx: click.Context, param: click.Parameter, value: float) -> float:
    """Checks a --confidence: a level between 0 and 1."""
    if not 0 < value < 1:
        raise click.BadParameter(f"must be between 0 and 1 (exclusive), got {value}")
    return value


#: ``--format``'s parameter name (`capacity` leaves it out of the bench options it takes over).
FORMAT = "fmt"
#: text: for reading; json: one JSON document on stdout for scripts (messages go to stderr).
format_option = click.option("--format", FORMAT, type=click.Choice(("text", "json")), default="text",
                             show_default=True, help="text: for reading; json: one JSON document on stdout "
                             "for scripts (messages go to stderr).")
