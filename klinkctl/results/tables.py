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


def generation_end_ms(summary: dict, bench: dict) -> int | None:
    """When the run's generator stopped (epoch ms): the end of its measured span, or None if unknown. Windows
    ending after it are partial (the generator stopped inside them) and are not measured."""
    start = summary.get("warmup_until_ms")
    if start is None or "duration_ms" not in bench:
        return None
    return int(start) - int(bench.get("warmup_ms", 0)) + int(bench["duration_ms"])


def measured_rows(frame: pd.DataFrame, generation_end_ms: int | None = None) -> pd.DataFrame:
    """Rows after the warm-up (`warmup` column); with generation_end_ms, also no window ending after it (partial:
    the generator stopped inside it)."""
    if "warmup" in frame:
        frame = frame[~frame["warmup"].astype(str).str.lower().eq("true")]
    if generation_end_ms is not None and "window_end" in frame:
        frame = frame[frame["window_end"] <= generation_end_ms]
    return frame
