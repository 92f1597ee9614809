"""The table a finished sweep prints (and writes as cells.csv): one row per grid cell, statistics across its
repetitions, ratios to a baseline cell.

A cell is a configuration (every varying setting but the seed; ``groups``; with variants, the settings only the
variants vary are named by the variant). Each run contributes its mean and p99 SWM latency, the generator's and
Flink's source throughput, the generator's schedule lag, the median TaskManager CPU of resources.csv and, with a
sampler or --accuracy, its accuracy; a cell shows
``n`` runs used and ``n_invalid`` runs invalid for comparison (left out unless included), the mean over runs
with a Student t CI across runs for the latencies, the mean over runs of the other numbers, and the ratio to
the baseline cell with the same other settings (e.g. the first variant, policy default, or sampler kslack: the first
value the sweep file lists) with a Welch CI across runs and a verdict (``groups``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as scipy_stats

from klinkctl.files import write_atomically
from klinkctl.results import groups, stats
from klinkctl.results.runset import Run, RunSet, load_runset
from klinkctl.results.tables import generation_end_ms, measured_rows, read_table
from klinkctl.jit import PREFIX as JIT_PREFIX

#: Grid keys whose first listed value is the baseline of the ratios, by preference.
BASELINE_KEYS = ("variant", "policy", "sampler")
VARIANT = "variant"
CELLS_FILE = "cells.csv"
LOAD = ("generator_events_per_s", "source_records_per_s", "surge_read_events_per_s", "generator_behind",
        "taskmanager_cpu_percent", "taskmanager_jit_percent", "latency_growth")
ACCURACY = {"mean_error": "mean_error", "max_error": "max_error", "within_target": "within_target_fraction",
            "sampling_rate": "mean_sampling_rate"}
OTHER_METRICS = (*LOAD, *ACCURACY)
RAW = "_raw_"  # prefix of a cell's setting as the sweep file names it (the policy, not its label)


def baseline(grid: dict[str, list[Any]]) -> tuple[str, Any] | None:
    """(key, value) whose cells the others are compared with: the policy or sampler axis' first value."""
    key = next((k for k in BASELINE_KEYS if k in grid and len(grid[k]) > 1), None)
    return (key, grid[key][0]) if key else None


def _run_row(run: Run) -> dict[str, Any]:
    summary = run.summary
    accuracy, throughput = summary.get("accuracy") or {}, summary.get("throughput") or {}
    return {**groups.run_row(run.run_id, run.params, run.data.validity, run.data.latency,
                             run.repetition, summary.get("record_latency")),
            **{f"{RAW}{key}": run.params.get(key) if key == VARIANT else run.config["bench"].get(key)
               for key in BASELINE_KEYS},
            "generator_events_per_s": throughput.get("generator_events_per_s"),
            "source_records_per_s": throughput.get("flink_source_records_per_s"),
            "surge_read_events_per_s": (throughput.get("during_surge") or {}).get("read_events_per_s"),
            "generator_behind": (summary.get("generator") or {}).get("behind_fraction"),
            **taskmanager_load(run.run_dir),
            "latency_growth": latency_growth(run),
            **{column: accuracy.get(key) for column, key in ACCURACY.items()}}


def run_rows(runset: RunSet) -> pd.DataFrame:
    """One row per completed run, the invalid ones left out of the statistics included (column ``valid``)."""
    return pd.DataFrame([_run_row(run) for run in runset.runs + runset.invalid_runs])


def taskmanager_load(run_dir) -> dict[str, float]:
    """The run's TaskManager CPU and JIT columns, from one read of its resources.csv."""
    resources = read_table(run_dir / "resources.csv")
    return {"taskmanager_cpu_percent": _median_cpu(resources, ""),
            "taskmanager_jit_percent": _median_cpu(resources, JIT_PREFIX)}


def taskmanager_cpu_percent(run_dir, prefix: str = "") -> float:
    """Median over the run's resources.csv samples of the TaskManagers' CPU (% of one core, summed); with
    prefix JIT_PREFIX, of their JIT compiler threads' CPU (a part of it)."""
    return _median_cpu(read_table(run_dir / "resources.csv"), prefix)


def _median_cpu(resources: pd.DataFrame, prefix: str) -> float:
    if resources.empty:
        return np.nan
    taskmanagers = resources[resources["component"].astype(str).str.startswith(prefix + "taskmanager")]
    return float(taskmanagers.groupby("time")["cpu_percent"].sum().median()) if len(taskmanagers) else np.nan


def latency_growth(run: Run) -> float:
    """How much SWM latency grew over the run's measured span, as a fraction of its mean (Theil-Sen slope ×
    span / mean, stats.latency_trend): about 0 for a sustainable load, growing past the capacity."""
    latency = read_table(run.run_dir / "latency.csv")
    end = generation_end_ms(run.summary, run.config.get("bench") or {})
    if latency.empty or end is None:
        return np.nan
    measured = measured_rows(latency, end)
    trend = stats.latency_trend(measured["window_end"].to_numpy(), measured["swm_latency_ms"].to_numpy())
    return trend["growth_fraction"] if trend else np.nan


def cell_keys(runs: pd.DataFrame, varying: list[str]) -> list[str]:
    """What tells cells apart: every varying setting but the seed; with variants, the settings only the
    variants vary are named by the variant (so its ratio is to the baseline variant at the same grid point)."""
    keys = [k for k in varying if k != "seed"] or ["workload"]
    if VARIANT not in keys:
        return keys
    per_variant = runs.groupby(VARIANT, dropna=False)
    return [k for k in keys if k == VARIANT or (per_variant[k].nunique(dropna=False) > 1).any()]


def cell_table(runset: RunSet, base: tuple[str, Any] | None) -> pd.DataFrame:
    """Per grid cell: its settings, n, n_invalid, latency means with CIs across runs, the other metrics'
    means, and ratios to the baseline cell (columns of ``groups.GROUP_COLUMNS`` but label and runs)."""
    runs = run_rows(runset)
    keys = cell_keys(runs, runset.varying)
    raw_keys = [f"{RAW}{key}" for key in BASELINE_KEYS]
    cells = groups.describe_groups(runs, keys, runset.confidence, runset.include_invalid)
    used = runs if runset.include_invalid else runs[runs["valid"]]
    others = [c for c in OTHER_METRICS if pd.to_numeric(used[c], errors="coerce").notna().any()]
    extra = (used.assign(**{c: pd.to_numeric(used[c], errors="coerce") for c in others})
             .groupby(keys, dropna=False, sort=False)[others].mean().reset_index())
    firsts = runs.groupby(keys, dropna=False, sort=False)[raw_keys].first().reset_index()
    cells = cells.merge(firsts, on=keys, how="left").merge(extra, on=keys, how="left")
    cells = groups.add_ratios(cells, _references(cells, keys, base), runset.confidence)
    columns = [c for c in groups.group_columns(cells) if c not in (groups.LABEL, "runs")]
    ordered = keys + columns[:columns.index("ratio")] + others + columns[columns.index("ratio"):]
    return cells[ordered]


def _references(cells: pd.DataFrame, keys: list[str], base: tuple[str, Any] | None) -> list[int | None]:
    """Per cell, the position of the baseline cell with the same other settings (None: no baseline)."""
    if not base or base[0] not in keys:
        return [None] * len(cells)
    key, value = base
    others = [k for k in keys if k != key]
    is_base = cells[f"{RAW}{key}"].astype(str) == str(value)
    same = cells[others].astype(str).agg("\x1f".join, axis=1) if others else pd.Series("", index=cells.index)
    positions = {signature: position for position, (signature, base_cell) in enumerate(zip(same, is_base))
                 if base_cell}
    return [positions.get(signature) for signature in same]


def cells_note_lines(runset: RunSet, cells: pd.DataFrame) -> list[str]:
    """The lines printed under the table: the invalid runs left out, and cells with too few runs."""
    runs = run_rows(runset)
    labelled = cells.assign(**{groups.LABEL: groups.group_labels(cells, [k for k in cells.columns
                                                                          if k in runset.varying], False)})
    return list(filter(None, [groups.invalid_line(runs, runset.include_invalid),
                              warming_up_line(runs, [k for k in cells.columns if k in runset.varying])])) + \
        groups.sample_size_notes(labelled)


#: A trend between repetition and source rate this unlikely under no trend is reported (Kendall's tau test).
DRIFT_P = 0.01


def warming_up_line(runs: pd.DataFrame, keys: list[str]) -> str | None:
    """A note when later repetitions read systematically more (or less) than earlier ones of the same cell:
    Kendall's tau between the repetition and each valid run's source rate relative to its cell's mean. A fresh
    stack warms up over many runs (docs/capacity.md), and rotation spreads that drift over every variant only
    as noise: the CIs widen, and a cell's mean depends on when its runs came."""
    valid = runs[runs["valid"] & runs[groups.REPETITION].notna()].dropna(subset=["source_records_per_s"])
    if len(valid) < 6 or not keys:
        return None
    relative = valid["source_records_per_s"] / valid.groupby(keys, dropna=False)["source_records_per_s"].transform("mean")
    tau, p = scipy_stats.kendalltau(valid[groups.REPETITION].astype(float), relative)
    if not np.isfinite(p) or p >= DRIFT_P:
        return None
    return (f"later repetitions read {'more' if tau > 0 else 'less'} than earlier ones (Kendall tau {tau:+.2f} "
            f"between repetition and source rate relative to the cell's mean, p = {p:.1g}, {len(valid)} runs): "
            "the stack drifted during the sweep (a fresh stack warms up for many runs: docs/capacity.md); "
            "add warm-up runs or check resources.csv (jit:taskmanager-N rows); on a CPU quota, "
            "`klinkctl up --tm-jit-cpu outside-quota` keeps the JIT compilers out of it")


def write_cells(directory: Path, grid: dict[str, list[Any]],
                include_invalid: bool = False) -> tuple[RunSet, pd.DataFrame]:
    """A sweep directory's runs and its cell table, which is written to cells.csv. Raises KlinkError when the
    directory holds no usable runs."""
    runset = load_runset(directory, include_invalid=include_invalid)
    cells = cell_table(runset, baseline(grid))
    write_atomically(directory / CELLS_FILE, cells.to_csv(index=False))
    return runset, cells
