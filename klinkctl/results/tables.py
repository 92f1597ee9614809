"""Reading a run's CSV tables."""

from __future__ import annotations

from pathlib import Path

import pandas as pd


def read_table(path: Path, **read_csv_options) -> pd.DataFrame:
    """A run dir's CSV, or an empty frame if the run never wrote it (or wrote only nothing)."""
    try:
        return pd.read_csv(path, **read_csv_options)
    except (FileNotFoundError, pd.errors.EmptyDataError):
        return pd.DataFrame()


def measured_rows(frame: pd.DataFrame, generation_end_ms: int | None = None) -> pd.DataFrame:
    """Rows after the warm-up (`warmup` column); with generation_end_ms, also no window ending after it (partial:
    the generator stopped inside it)."""
    if "warmup" in frame:
        frame = frame[~frame["warmup"].astype(str).str.lower().eq("true")]
    if generation_end_ms is not None and "window_end" in frame:
        frame = frame[frame["window_end"] <= generation_end_ms]
    return frame
