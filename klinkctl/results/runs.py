"""Loading a finished run for comparison: a run directory or a latency CSV on its own."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from klinkctl.errors import KlinkError

LATENCY_FILE = "latency.csv"
SUMMARY_FILE = "summary.json"
LATENCY_COLUMN = "swm_latency_ms"
EXPECTED = "expected a run directory with latency.csv or a latency CSV file"
_TRUE = {"true", "1", "yes", "t", "y"}


@dataclass
class RunData:
    """One run as the comparison sees it.

    ``latency`` holds ``swm_latency_ms`` of every window firing outside the warm-up (rows with
    ``warmup`` true are left out, as in summary.json); ``summary`` is summary.json, or {}.
    """

    label: str
    policy: str | None
    latency: np.ndarray
    summary: dict[str, Any] = field(default_factory=dict)
    source: Path | None = None
    warmup_rows: int = 0


def load_run(path: str | Path) -> RunData:
    """Load a run directory (latency.csv, and summary.json if present) or a latency CSV file.

    A file named latency.csv is read as its run directory (label = directory name, summary.json
    beside it); any other CSV is labelled by its stem and has no summary.
    Raises KlinkError (one line naming the path) when the input is not one of these.
    """
    path = Path(path)
    if path.is_dir():
        csv_path, run_dir = path / LATENCY_FILE, path
        if not csv_path.is_file():
            raise KlinkError(f"{path}: no {LATENCY_FILE} in this directory; {EXPECTED}")
    elif path.is_file():
        csv_path = path
        run_dir = path.parent if path.name == LATENCY_FILE else None
    else:
        raise KlinkError(f"{path}: no such file or directory; {EXPECTED}")
    frame = _read_latency_csv(csv_path)
    warmup = _warmup_mask(frame)
    summary = read_summary(run_dir / SUMMARY_FILE) if run_dir is not None else {}
    return RunData(
        label=run_dir.resolve().name if run_dir is not None else csv_path.stem,
        policy=_single_policy(frame) or _str_or_none(summary.get("policy")),
        latency=_latency_values(frame.loc[~warmup], csv_path),
        summary=summary,
        source=csv_path,
        warmup_rows=int(warmup.sum()),
    )


def _read_latency_csv(csv_path: Path) -> pd.DataFrame:
    try:
        frame = pd.read_csv(csv_path, dtype=str, keep_default_na=False)
    except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError) as error:
        reason = "file is empty" if isinstance(error, pd.errors.EmptyDataError) else "not a readable CSV"
        raise KlinkError(f"{csv_path}: {reason}; {EXPECTED}") from None
    frame.columns = [str(column).strip() for column in frame.columns]
    if LATENCY_COLUMN not in frame.columns:
        raise KlinkError(f"{csv_path}: no {LATENCY_COLUMN} column; {EXPECTED}")
    return frame


def _warmup_mask(frame: pd.DataFrame) -> pd.Series:
    """True for warm-up rows; a CSV without a warmup column has none."""
    if "warmup" not in frame.columns:
        return pd.Series(False, index=frame.index)
    return frame["warmup"].str.strip().str.lower().isin(_TRUE)


def _latency_values(frame: pd.DataFrame, csv_path: Path) -> np.ndarray:
    """The latency column as floats; empty cells are skipped, anything else non-numeric refused."""
    text = frame[LATENCY_COLUMN].str.strip()
    text = text[text != ""]
    values = pd.to_numeric(text, errors="coerce")
    bad = values.isna()
    if bad.any():
        line = int(bad.idxmax()) + 2  # header is line 1
        raise KlinkError(f"{csv_path}: {LATENCY_COLUMN} is not a number on line {line} "
                         f"({text[bad].iloc[0]!r}); {EXPECTED}")
    return values.to_numpy(dtype=float)


def _single_policy(frame: pd.DataFrame) -> str | None:
    if "policy" not in frame.columns:
        return None
    policies = {value.strip() for value in frame["policy"] if value.strip()}
    return policies.pop() if len(policies) == 1 else None


def read_summary(summary_path: Path) -> dict[str, Any]:
    if not summary_path.is_file():
        return {}
    try:
        summary = json.loads(summary_path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        raise KlinkError(f"{summary_path}: not valid JSON; delete it or rerun the run") from None
    if not isinstance(summary, dict):
        raise KlinkError(f"{summary_path}: expected a JSON object; delete it or rerun the run")
    return summary


def _str_or_none(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None
