"""A sampler's accuracy: each fired window's result against the exact result computed from every generated event.

exact.csv (query, window_end, key, exact) is written at the end of a run from the input topics; results.csv has
the keys' results the windows emitted; error.csv gets one row per fired window:

    relative_error = sum_k |emitted_k - exact_k| / sum_k exact_k     (keys missing on either side count as 0)

the L1 relative error over the window's keys (for YSB: views per campaign), and sampling_rate = events that
reached the window / exact events of the window.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from klinkctl.results.tables import measured_rows, read_table

WINDOW = ["query", "window_end"]
ERROR_COLUMNS = ["run", "policy", "sampler", "query", "window_end", "exact_events", "window_events", "sampling_rate",
                 "exact_keys", "emitted_keys", "relative_error", "within_target", "warmup"]


def error_table(latency: pd.DataFrame, results: pd.DataFrame, exact: pd.DataFrame, sampler: str,
                error_target: float) -> pd.DataFrame:
    """One row per fired window of latency.csv, its error against the exact results."""
    if latency.empty:
        return pd.DataFrame(columns=ERROR_COLUMNS)
    fired = latency[["run", "policy", *WINDOW, "events", "warmup"]].drop_duplicates(WINDOW)
    emitted = (results.groupby([*WINDOW, "key"], as_index=False)["value"].sum() if not results.empty
               else pd.DataFrame(columns=[*WINDOW, "key", "value"]))
    emitted, exact = emitted.astype({"value": float}), exact.astype({"exact": float})
    keys = emitted.merge(exact, on=[*WINDOW, "key"], how="outer").fillna({"value": 0, "exact": 0})
    keys = keys.merge(fired[WINDOW], on=WINDOW)
    keys["abs_error"] = (keys["value"] - keys["exact"]).abs()
    per_window = keys.groupby(WINDOW).agg(exact_events=("exact", "sum"), abs_error=("abs_error", "sum"),
                                          exact_keys=("exact", lambda x: int((x > 0).sum())),
                                          emitted_keys=("value", lambda x: int((x > 0).sum()))).reset_index()
    table = fired.merge(per_window, on=WINDOW, how="left").fillna({"exact_events": 0, "abs_error": 0,
                                                                   "exact_keys": 0, "emitted_keys": 0})
    exact_events = table["exact_events"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        table["relative_error"] = np.where(exact_events > 0, table["abs_error"] / exact_events,
                                           np.where(table["abs_error"] > 0, np.inf, 0.0))
        table["sampling_rate"] = np.where(exact_events > 0, table["events"] / exact_events, np.nan)
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


def write_error_table(run_dir: Path, sampler: str, error_target: float) -> pd.DataFrame | None:
    """error.csv from latency.csv, results.csv and exact.csv of a run dir; None if exact.csv is missing."""
    exact_file = run_dir / "exact.csv"
    if not exact_file.is_file():
        return None
    keys_as_text = {"dtype": {"key": str}}
    table = error_table(read_table(run_dir / "latency.csv"), read_table(run_dir / "results.csv", **keys_as_text),
                        read_table(exact_file, **keys_as_text), sampler, error_target)
    table.to_csv(run_dir / "error.csv", index=False)
    return table
