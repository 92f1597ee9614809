"""A sampler's accuracy: each fired window's result against the exact result computed from every generated event.

exact.csv (query, window_end, key, exact, events[, workload columns]) is written at the end of a run from the input
topics; results.csv has the keys' results the windows emitted (value, unrounded weight, fields); error.csv gets one
row per fired window with its relative error, as the workload defines it (`Workload.window_errors`):

- `l1_over_keys` (YSB: views per campaign):

      relative_error = sum_k |emitted_k - exact_k| / sum_k exact_k     (keys missing on either side count as 0)

- `nyt.average_fare_errors`: the relative error of the window's average fare per trip.
- `kmeans.centroid_errors`: the mean distance between the emitted and the exact centroids, matched one to one at the
  least total distance, relative to the spread of the window's points.

and sampling_rate = events that reached the window / exact events of the window.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from klinkctl.results.tables import measured_rows, read_table

WINDOW = ["query", "window_end"]
ERROR_COLUMNS = ["run", "policy", "sampler", "query", "window_end", "exact_events", "window_events", "sampling_rate",
                 "exact_keys", "emitted_keys", "relative_error", "within_target", "warmup"]
#: What a workload's window_errors returns: per window (WINDOW) its exact events and keys, the keys it emitted
#: and its relative error.
WINDOW_ERROR_COLUMNS = [*WINDOW, "exact_events", "exact_keys", "emitted_keys", "relative_error"]

#: (results.csv rows, exact.csv rows) -> per window WINDOW_ERROR_COLUMNS.
WindowErrors = Callable[[pd.DataFrame, pd.DataFrame], pd.DataFrame]
#: results.csv rows -> the emitted value per row, comparable with exact.csv's `exact`.
EmittedValue = Callable[[pd.DataFrame], pd.Series]


def result_value(results: pd.DataFrame) -> pd.Series:
    """The window's (rounded) count per key: YSB's views per campaign."""
    return results["value"].astype(float)


def result_fields(results: pd.DataFrame) -> np.ndarray:
    """The rows' fields (NYT: averages; kMeans: the centroid) as a float matrix, one row per result."""
    if results.empty:
        return np.zeros((0, 0))
    return np.array([json.loads(f) if isinstance(f, str) else f for f in results["fields"]], dtype=float)


def divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where both are 0 and inf where only the denominator is."""
    numerator, denominator = np.asarray(numerator, dtype=float), np.asarray(denominator, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, numerator / denominator, np.where(numerator > 0, np.inf, 0.0))


def l1_over_keys(emitted_value: EmittedValue = result_value) -> WindowErrors:
    """The L1 error over a window's keys relative to its exact total, the emitted value per key from results."""
    def window_errors(results: pd.DataFrame, exact: pd.DataFrame) -> pd.DataFrame:
        emitted = results.assign(value=emitted_value(results) if not results.empty else 0.0)
        emitted = emitted.groupby([*WINDOW, "key"], as_index=False)["value"].sum()
        keys = emitted.merge(exact_with_events(exact)[[*WINDOW, "key", "exact", "events"]], on=[*WINDOW, "key"],
                             how="outer").fillna({"value": 0.0, "exact": 0.0, "events": 0.0})
        keys["abs_error"] = (keys["value"] - keys["exact"]).abs()
        per_window = keys.groupby(WINDOW).agg(exact_total=("exact", "sum"), abs_error=("abs_error", "sum"),
                                              exact_events=("events", "sum"),
                                              exact_keys=("exact", lambda x: int((x > 0).sum())),
                                              emitted_keys=("value", lambda x: int((x > 0).sum()))).reset_index()
        per_window["relative_error"] = divide(per_window["abs_error"], per_window["exact_total"])
        return per_window[WINDOW_ERROR_COLUMNS]
    return window_errors


def exact_with_events(exact: pd.DataFrame) -> pd.DataFrame:
    """exact.csv with its `events` column (files written before it existed: the exact count is the events)."""
    exact = exact.astype({"exact": float})
    return exact if "events" in exact.columns else exact.assign(events=exact["exact"])


def error_table(latency: pd.DataFrame, results: pd.DataFrame, exact: pd.DataFrame, sampler: str,
                error_target: float, window_errors: WindowErrors | None = None) -> pd.DataFrame:
    """One row per fired window of latency.csv, its error against the exact results (L1 over keys by default)."""
    if latency.empty:
        return pd.DataFrame(columns=ERROR_COLUMNS)
    fired = latency[["run", "policy", *WINDOW, "events", "warmup"]].drop_duplicates(WINDOW)
    if results.empty:
        results = pd.DataFrame(columns=[*WINDOW, "key", "value", "weight", "fields"])
    per_window = (window_errors or l1_over_keys())(results, exact)
    table = fired.merge(per_window, on=WINDOW, how="left").fillna({"exact_events": 0, "relative_error": 0.0,
                                                                   "exact_keys": 0, "emitted_keys": 0})
    table["sampling_rate"] = (table["events"] / table["exact_events"]).where(table["exact_events"] > 0)
    table["window_events"] = table["events"]
    table["within_target"] = table["relative_error"] <= error_target
    table["sampler"] = sampler
    return table[ERROR_COLUMNS]


def accuracy_summary(errors: pd.DataFrame, sampling: pd.DataFrame, error_target: float,
                     generation_end_ms: int | None = None) -> dict:
    """Mean / p95 / max error, the fraction of windows within the target and the mean sampling rate, over the
    windows after the warm-up that end by the generation's end (a later window is partial); stragglers the
    sampler dropped (all sub-streams)."""
    if errors.empty:
        return {}
    measured = measured_rows(errors, generation_end_ms)
    error = measured["relative_error"].astype(float)
    dropped = int(sampling.groupby("query")["dropped_late"].max().sum()) if not sampling.empty else 0
    return {
        "error_target": error_target,
        "windows": int(len(measured)),
        "mean_error": float(error.mean()) if len(error) else None,
        "p95_error": float(error.quantile(0.95)) if len(error) else None,
        "max_error": float(error.max()) if len(error) else None,
        "within_target_fraction": float(measured["within_target"].astype(bool).mean()) if len(error) else None,
        "mean_sampling_rate": float(measured["sampling_rate"].astype(float).mean()) if len(error) else None,
        "sampler_dropped_late": dropped,
    }


def write_error_table(run_dir: Path, sampler: str, error_target: float,
                      window_errors: WindowErrors | None = None) -> pd.DataFrame | None:
    """error.csv from latency.csv, results.csv and exact.csv of a run dir; None if exact.csv is missing."""
    exact_file = run_dir / "exact.csv"
    if not exact_file.is_file():
        return None
    keys_as_text = {"dtype": {"key": str}}
    table = error_table(read_table(run_dir / "latency.csv"), read_table(run_dir / "results.csv", **keys_as_text),
                        read_table(exact_file, **keys_as_text), sampler, error_target, window_errors)
    table.to_csv(run_dir / "error.csv", index=False)
    return table
