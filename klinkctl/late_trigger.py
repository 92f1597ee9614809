"""The AION paper's Fig. 9 (seed aion-late-events-esteves.txt §5 Q4; docs/late-state.md) for our delay models: a
late event arrives its delay after its window's end, so the late arrivals over the allowed lateness T are the
delay's distribution on [0, T] (the paper's model: the window index of a late event is log-normal), normalised
to the events that arrive within T. Java (io.klink.workloads.late.StalenessFigure) computes, per distribution and
trigger, the maximum staleness for 1..k executions and the fewest executions for each bound.

    python -m klinkctl.late_trigger [--lateness 10s] [--delay SPEC ...] [--max-executions 20] [--bound B ...]
"""

from __future__ import annotations

import io
import subprocess
import sys
import tempfile
from pathlib import Path

import click
import numpy as np
import pandas as pd

from klinkctl import delay
from klinkctl.errors import KlinkError
from klinkctl.paths import JAVA_UDFS_DIR
from klinkctl.units import duration_ms

WORKLOADS_JAR = JAVA_UDFS_DIR / "klink-workloads" / "target" / "klink-workloads.jar"
FIGURE = "io.klink.workloads.late.StalenessFigure"
#: Fig. 9's distributions as our delay models, for T = 10 s (1 s windows: the paper's log-normal(0, 1) in windows).
DELAYS = ("lognormal:1s:1", "pareto:1s:1.5", "exp:2s", "uniform:0-10s")
BOUNDS = (0.1, 0.05, 0.01)
CELLS = 1000


def cdf_points(spec: str, lateness_ms: int, cells: int = CELLS) -> np.ndarray:
    """F at i·T/cells (i = 0..cells) of the delays that fall in [0, T], from 0 to 1."""
    model = delay.parse_delay(spec)
    points = np.asarray(model.distribution.cdf(np.linspace(0, lateness_ms, cells + 1)), dtype=float)
    within = points[-1] - points[0]
    if not within > 0:
        raise KlinkError(f"--delay {spec}: no delay falls within the lateness of {lateness_ms} ms")
    return (points - points[0]) / within


def compute(specs: tuple[str, ...], lateness_ms: int, max_executions: int,
            bounds: tuple[float, ...]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(max staleness per distribution, trigger and executions; fewest executions per bound), from Java."""
    if max_executions < 1 or any(not 0 < b <= 1 for b in bounds):
        raise KlinkError("--max-executions must be >= 1 and every --bound in (0, 1]")
    lines = [",".join([spec.split(":")[0], *(f"{p:.12g}" for p in cdf_points(spec, lateness_ms))]) for spec in specs]
    if not WORKLOADS_JAR.is_file():
        raise KlinkError(f"{WORKLOADS_JAR} is missing; build it with: .venv/bin/python -m klinkctl.artifacts")
    with tempfile.NamedTemporaryFile("w", suffix=".csv") as cdfs:
        cdfs.write("\n".join(lines) + "\n")
        cdfs.flush()
        done = subprocess.run(["java", "-cp", str(WORKLOADS_JAR), FIGURE, cdfs.name, str(max_executions),
                               *map(str, bounds)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise KlinkError(f"{FIGURE} failed: {(done.stderr.strip().splitlines() or ['no output'])[-1]}")
    curves, fewest = done.stdout.split("distribution,trigger,bound,executions\n")
    return pd.read_csv(io.StringIO(curves)), pd.read_csv(io.StringIO("distribution,trigger,bound,executions\n"
                                                                     + fewest))


def tables(curves: pd.DataFrame, fewest: pd.DataFrame) -> str:
    """Markdown: per distribution the max staleness by executions (triggers as columns); the fewest executions
    per bound, with aion's share of deltat's and deltaev's."""
    parts = []
    for name, rows in curves.groupby("distribution", sort=False):
        wide = rows.pivot(index="executions", columns="trigger", values="max_staleness")[["aion", "deltat", "deltaev"]]
        parts.append(f"max staleness, {name}\n\n" + markdown(wide, "{:.4g}"))
    wide = fewest.pivot_table(index=["distribution", "bound"], columns="trigger", values="executions",
                              sort=False)[["aion", "deltat", "deltaev"]]
    wide["aion/deltat"] = wide["aion"] / wide["deltat"]
    wide["aion/deltaev"] = wide["aion"] / wide["deltaev"]
    parts.append("fewest executions for a bound (empty: more than 1000)\n\n" + markdown(wide, "{:.3g}"))
    return "\n\n".join(parts)


def markdown(table: pd.DataFrame, number: str) -> str:
    """A markdown table of a frame: its index levels, then its columns; NaN empty."""
    names = [str(n) for n in table.index.names] + [str(c) for c in table.columns]
    rows = []
    for index, values in zip(table.index, table.to_numpy()):
        keys = index if isinstance(index, tuple) else (index,)
        rows.append([str(k) for k in keys] + ["" if pd.isna(v) else number.format(v) for v in values])
    lines = ["| " + " | ".join(names) + " |", "|" + " --- |" * len(names)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


@click.command()
@click.option("--lateness", default="10s", show_default=True, help="Allowed lateness T.")
@click.option("--delay", "specs", multiple=True, help=f"Delay model (docs/delays.md); default {', '.join(DELAYS)}.")
@click.option("--max-executions", default=20, show_default=True, help="Executions per window, 1..this.")
@click.option("--bound", "bounds", multiple=True, type=float, help="Staleness bound; default 0.1, 0.05, 0.01.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), help="Also write the two CSVs here.")
def main(lateness: str, specs: tuple[str, ...], max_executions: int, bounds: tuple[float, ...],
         out: Path | None) -> None:
    try:
        curves, fewest = compute(specs or DELAYS, duration_ms(lateness, "--lateness"), max_executions,
                                 bounds or BOUNDS)
    except KlinkError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(1)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        curves.to_csv(out / "staleness.csv", index=False)
        fewest.to_csv(out / "executions.csv", index=False)
    click.echo(tables(curves, fewest))


if __name__ == "__main__":
    main()
