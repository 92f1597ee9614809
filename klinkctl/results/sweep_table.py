"""The table a finished sweep prints: one row per grid cell, medians over its repetitions, ratios to a baseline.

A run contributes its summary.json numbers (SWM latency mean and p99 over the measured windows, Flink's source
throughput and, with a sampler or --accuracy, its accuracy); a cell shows their medians over repetitions and
the ratio of its median latencies to those of the baseline cell with the same other parameters (e.g. policy
default, or sampler kslack: the first value the sweep file lists).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from klinkctl.results.report import RunSet

#: Grid keys whose first listed value is the baseline of the ratios, by preference.
BASELINE_KEYS = ("policy", "sampler")
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
        rows.append({"run": run.run_id, "mean_latency_ms": latency.get("mean"), "p99_latency_ms": latency.get("p99"),
                     "source_records_per_s": (summary.get("throughput") or {}).get("flink_source_records_per_s"),
                     **{column: accuracy.get(key) for column, key in ACCURACY.items()}})
    return runset.params.merge(pd.DataFrame(rows), on="run")


def cell_table(runset: RunSet, base: tuple[str, Any] | None) -> pd.DataFrame:
    """Per grid cell (every varying parameter but the seed): runs and medians; latency ratios to the baseline."""
    runs = run_rows(runset)
    keys = [k for k in runset.varying if k != "seed"] or ["workload"]
    metrics = [c for c in (*LATENCY, "source_records_per_s", *ACCURACY) if runs[c].notna().any()]
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
