"""The table a finished sweep prints: one row per grid cell, medians over its repetitions, ratios to a baseline.

A run contributes its summary.json numbers (SWM latency mean and p99 over the measured windows, the generator's
and Flink's source throughput, the generator's schedule lag, the median TaskManager CPU of resources.csv and,
with a sampler or --accuracy, its accuracy); a cell shows their medians over repetitions and the ratio of its
median latencies to those of the baseline cell with the same other parameters (e.g. the first variant,
policy default, or sampler kslack: the first value the sweep file lists).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from klinkctl.results.report import RunSet
from klinkctl.results.tables import read_table

#: Grid keys whose first listed value is the baseline of the ratios, by preference.
BASELINE_KEYS = ("variant", "policy", "sampler")
VARIANT = "variant"
LOAD = ("generator_events_per_s", "source_records_per_s", "generator_behind", "taskmanager_cpu_percent")
LATENCY = ("mean_latency_ms", "p99_latency_ms")
ACCURACY = {"mean_error": "mean_error", "max_error": "max_error", "within_target": "within_target_fraction",
            "sampling_rate": "mean_sampling_rate"}


def baseline(grid: dict[str, list[Any]]) -> tuple[str, Any] | None:
    """(key, value) whose cells the others are compared with: the policy or sampler axis' first value."""
    key = next((k for k in BASELINE_KEYS if k in grid and len(grid[k]) > 1), None)
    return (key, grid[key][0]) if key else None


def run_rows(runset: RunSet) -> pd.DataFrame:
    rows = []
    for run in runset.runs:
        summary = run.summary
        latency, accuracy = summary.get("swm_latency_ms") or {}, summary.get("accuracy") or {}
        throughput = summary.get("throughput") or {}
        rows.append({"run": run.run_id, "mean_latency_ms": latency.get("mean"), "p99_latency_ms": latency.get("p99"),
                     "generator_events_per_s": throughput.get("generator_events_per_s"),
                     "source_records_per_s": throughput.get("flink_source_records_per_s"),
                     "generator_behind": (summary.get("generator") or {}).get("behind_fraction"),
                     "taskmanager_cpu_percent": taskmanager_cpu_percent(run.run_dir),
                     **{column: accuracy.get(key) for column, key in ACCURACY.items()}})
    return runset.params.merge(pd.DataFrame(rows), on="run")


def taskmanager_cpu_percent(run_dir) -> float:
    """Median over the run's resources.csv samples of the TaskManagers' CPU (% of one core, summed)."""
    resources = read_table(run_dir / "resources.csv")
    if resources.empty:
        return np.nan
    taskmanagers = resources[resources["component"].astype(str).str.startswith("taskmanager")]
    return float(taskmanagers.groupby("time")["cpu_percent"].sum().median()) if len(taskmanagers) else np.nan


def cell_keys(runs: pd.DataFrame, varying: list[str]) -> list[str]:
    """What tells cells apart: every varying parameter but the seed; with variants, the settings only the
    variants vary are named by the variant (so its ratio is to the baseline variant at the same grid point)."""
    keys = [k for k in varying if k != "seed"] or ["workload"]
    if VARIANT not in keys:
        return keys
    per_variant = runs.groupby(VARIANT, dropna=False)
    return [k for k in keys if k == VARIANT or (per_variant[k].nunique(dropna=False) > 1).any()]


def cell_table(runset: RunSet, base: tuple[str, Any] | None) -> pd.DataFrame:
    """Per grid cell (every varying parameter but the seed): runs and medians; latency ratios to the baseline."""
    runs = run_rows(runset)
    keys = cell_keys(runs, runset.varying)
    metrics = [c for c in (*LATENCY, *LOAD, *ACCURACY) if runs[c].notna().any()]
    cells = runs.groupby(keys, dropna=False, sort=False)
    table = cells[metrics].median().reset_index()
    table.insert(len(keys), "runs", cells.size().to_numpy())
    if base and base[0] in keys:
        key, value = base
        others = [k for k in keys if k != key]
        reference = table[table[key].astype(str) == str(value)][others + list(LATENCY)]
        reference = reference.rename(columns={c: f"{c}_base" for c in LATENCY})
        table = table.merge(reference, on=others, how="left") if others else table.assign(
            **{f"{c}_base": reference[f"{c}_base"].iloc[0] if len(reference) else np.nan for c in LATENCY})
        for column in LATENCY:
            table[f"{column.removesuffix('_latency_ms')}_ratio"] = table[column] / table.pop(f"{column}_base")
    return table
