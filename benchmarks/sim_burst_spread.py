"""How much the real TaskManager's stalls vary from run to run: the spread behind the simulator's
--background-burst-spread (docs/simulator.md, "Stalls that vary from run to run").

Per run of the validations' real sweeps (klinkctl.sim.validation), a stall length:
- serial collector sweeps (their summary.json "scheduler" section; their scheduler.csv is not kept): how far the
  p99 interval between scheduler cycles exceeds the cycle r (a stall delays the next cycle), and the longest cycle
  (a stall inside it);
- G1 sweeps (their scheduler.csv): the collector's mean pause per collection, gc_ms over the cycles that had one,
  and its share of the background CPU.
The spread is the standard deviation of the log of that length across the repetitions of one cell (a policy at a
rate), pooled over the cells (root mean of the variances): the s of a log-normal.

    python benchmarks/sim_burst_spread.py
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from klinkctl.sim.options import SimOptions
from klinkctl.sim.validation import VALIDATIONS

#: The scheduler's cycle in every validation sweep (Klink's r, the agent's default).
CYCLE_MS = 120.0
#: A cell: the runs of one policy (variant) at one rate in one validation, its repetitions.
CELL = ("validation", "variant", "rate")
STALLS = ("interval_excess_ms", "longest_cycle_ms", "collector_pause_ms")
BACKGROUND_CPU = SimOptions.model_fields["background_cpu"].default


def collector(run_dir: Path) -> dict:
    """A run's collections from its scheduler.csv (gc_ms per cycle; NaN without it): the mean pause per collection,
    ms of wall time, and the collector's share of the background CPU (--background-cpu): its pauses' share of the
    wall time (the TaskManager's whole quota goes to the collector while it stops the world) over that share."""
    path = run_dir / "scheduler.csv"
    if not path.exists():
        return {"collector_pause_ms": np.nan, "collector_share": np.nan}
    cycles = pd.read_csv(path, usecols=["time", "gc_ms"])
    paused = cycles["gc_ms"][cycles["gc_ms"] > 0]
    wall_ms = cycles["time"].iloc[-1] - cycles["time"].iloc[0]
    return {"collector_pause_ms": float(paused.mean()) if len(paused) else np.nan,
            "collector_share": float(paused.sum() / wall_ms / BACKGROUND_CPU) if wall_ms > 0 else np.nan}


def run_stalls(sweep_dir: Path) -> pd.DataFrame:
    """One row per scheduled run: its cell (variant, rate) and its stall lengths, ms."""
    index = pd.read_csv(sweep_dir / "index.csv")
    rows = []
    for _, run in index[index["status"].eq("completed")].iterrows():
        run_dir = sweep_dir / run["run_dir"]
        scheduler = json.loads((run_dir / "summary.json").read_text()).get("scheduler") or {}
        if not scheduler:
            continue  # Default: no scheduler cycles to read
        rate = yaml.safe_load((run_dir / "config.yaml").read_text())["bench"]["rate"]
        rows.append({"variant": run["variant"], "rate": rate,
                     "interval_excess_ms": scheduler["p99_cycle_interval_ms"] - CYCLE_MS,
                     "longest_cycle_ms": scheduler["max_cycle_us"] / 1000,
                     "light_cycle_fraction": scheduler["light_cycle_fraction"],
                     **collector(run_dir)})
    return pd.DataFrame(rows)


def pooled_log_spread(stalls: pd.DataFrame, column: str) -> tuple[float, int]:
    """The pooled within-cell standard deviation of log(column), and the number of cells it pools."""
    logs = np.log(stalls[column].where(stalls[column] > 0))
    variances = logs.groupby([stalls[key] for key in CELL]).var(ddof=1).dropna()
    return float(np.sqrt(variances.mean())) if len(variances) else np.nan, len(variances)


def print_spreads(label: str, stalls: pd.DataFrame) -> None:
    spreads = {column: pooled_log_spread(stalls, column) for column in STALLS}
    print(f"  {label}: spread (sd of log across repetitions, pooled over cells): " + ", ".join(
        f"{column} {spread:.2f} ({cells} cells)" for column, (spread, cells) in spreads.items() if cells))


def main() -> None:
    every = []
    for validation in VALIDATIONS:
        stalls = run_stalls(validation.real_sweep).assign(validation=validation.name)
        print(f"{validation.name} ({validation.real_sweep.name}): {len(stalls)} scheduled runs; medians, ms:")
        medians = stalls.groupby(["variant", "rate"])[[*STALLS, "collector_share"]].median()
        print(medians.dropna(axis=1, how="all").to_string(float_format=lambda v: f"{v:.3g}"))
        print_spreads(validation.name, stalls)
        every.append(stalls)
    stalls = pd.concat(every, ignore_index=True)
    serial = stalls[stalls["collector_pause_ms"].isna()]
    print_spreads("the serial collector's sweeps", serial)
    print_light_against_stalls(serial[serial["variant"].eq("klink")])


def print_light_against_stalls(runs: pd.DataFrame) -> None:
    """Does a run in which Klink paused more (a lower light fraction) have longer stalls than the other runs of its
    cell? Spearman's rho between the light fraction and each stall length, ranked within each cell (the cells'
    loads differ) and pooled over the runs."""
    ranks = runs.groupby(list(CELL))[["light_cycle_fraction", "interval_excess_ms", "longest_cycle_ms"]].rank()
    rhos = {column: ranks["light_cycle_fraction"].corr(ranks[column]) for column in ("interval_excess_ms",
                                                                                      "longest_cycle_ms")}
    print(f"  Klink's {len(runs)} serial runs, Spearman's rho within cells of the light fraction against: " +
          ", ".join(f"{column} {rho:+.2f}" for column, rho in rhos.items()))


if __name__ == "__main__":
    main()
