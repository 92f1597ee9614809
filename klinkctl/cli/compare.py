"""`klinkctl compare`: runs grouped by configuration, statistics across runs (klinkctl.results.compare)."""

from __future__ import annotations

from pathlib import Path

import click

from klinkctl.cli.options import confidence_level

#: Output formats of `compare` (klinkctl.results.compare.render; named here so the CLI starts without pandas).
FORMATS = ("table", "csv", "json")


def _keys(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> list[str] | None:
    """Every --group-by's KEY[,KEY...] merged: the keys in the order given, each once (None: no --group-by)."""
    keys = [key for value in values for key in _split_keys(value)]
    return list(dict.fromkeys(keys)) or None


def _split_keys(value: str) -> list[str]:
    keys = [key.strip() for key in value.split(",") if key.strip()]
    if not keys:
        raise click.BadParameter(f"{value!r} names no setting; give one or more bench settings, e.g. policy "
                                 "or policy,rate")
    return keys


def _refuse_group_options(group_by: list[str] | None, include_invalid: bool, reference: str | None) -> None:
    """--per-run shows every run against the first one: options that shape groups would be silently dropped."""
    given = [name for name, value in (("--group-by", group_by), ("--include-invalid", include_invalid),
                                       ("--reference", reference)) if value]
    if given:
        raise click.UsageError(f"{', '.join(given)} apply only to the grouped table, not to --per-run; "
                               "drop them, or drop --per-run")


@click.command("compare")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
              help="table: for reading; csv / json: for scripts and plots (notes go to stderr).")
@click.option("--confidence", type=float, default=0.95, show_default=True, callback=confidence_level,
              help="Level of the confidence intervals, between 0 and 1.")
@click.option("--group-by", "group_by", metavar="KEY[,KEY...]", multiple=True, callback=_keys,
              help="Group runs by just these bench settings (default: every setting but the seed). Repeatable: "
                   "the keys merge in order, each once (--group-by queries --group-by rate = queries,rate).")
@click.option("--include-invalid", is_flag=True,
              help="Keep runs invalid for comparison (censored windows, generator behind) in the statistics.")
@click.option("--reference", metavar="LABEL",
              help="The group the ratios are to, by its label as the table prints it (default: the first run's).")
@click.option("--per-run", is_flag=True,
              help="One row per run with bootstrap CIs over its windows (within-run: no verdict) and the records/s its "
                   "sources read.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the --per-run bootstrap.")
def compare(runs: tuple[Path, ...], fmt: str, confidence: float, group_by: list[str] | None,
            include_invalid: bool, reference: str | None, per_run: bool, seed: int) -> None:
    """Compare configurations across repetitions: runs of the same bench settings (all but the seed) form a
    group; per group the number of runs, the mean and p99 SWM latency with confidence intervals across runs,
    and the ratio to the reference group (--reference, or the first run's) with a CI across runs and a verdict (only with >= 2 valid runs a side),
    and the records/s Flink's sources read (summary.json) with its CI and its ratio to the reference's.
    Runs invalid for comparison (not completed, censored windows, generator below 99 % of the requested
    rate or lagging) are left out and counted; see docs/results.md.

    RUNS are run directories (results/<run-id>/), latency CSV files, or directories of run directories
    (a sweep directory); the first run's group is the reference.
    """
    from klinkctl.results.compare import compare_groups, compare_per_run, render

    if per_run:
        _refuse_group_options(group_by, include_invalid, reference)
        frame = compare_per_run(runs, confidence=confidence, seed=seed)
    else:
        frame = compare_groups(runs, confidence=confidence, group_by=group_by, include_invalid=include_invalid,
                               reference=reference)
    click.echo(render(frame, fmt), nl=False)
    if fmt != "table":
        for note in frame.attrs.get("notes", []):
            click.echo(f"note: {note}", err=True)
