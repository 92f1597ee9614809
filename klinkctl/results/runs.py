"""Loading a finished run for comparison: a run directory or a latency CSV on its own."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from klinkctl.errors import KlinkError
from klinkctl.results.tables import generation_end_ms
from klinkctl.results.validity import Validity, assess

LATENCY_FILE = "latency.csv"
SUMMARY_FILE = "summary.json"
CONFIG_FILE = "config.yaml"
INDEX_FILE = "index.csv"
LATENCY_COLUMN = "swm_latency_ms"
EXPECTED = ("expected a run directory with latency.csv, a latency CSV file, or a directory of run directories "
            "(e.g. a sweep directory)")
_TRUE = {"true", "1", "yes", "t", "y"}


@dataclass
class RunData:
    """One run as the comparison sees it.

    ``latency`` holds ``swm_latency_ms`` of every measured window: not in the warm-up (rows with ``warmup``
    true) and not ending after the generator stopped (partial windows), as in summary.json; ``summary`` is summary.json, or {}, with its
    ``comparison`` entry recomputed (``validity.assess``) so that older runs have it too; ``bench`` is
    config.yaml's bench settings, or {}.
    """

    label: str
    policy: str | None
    latency: np.ndarray
    summary: dict[str, Any] = field(default_factory=dict)
    source: Path | None = None
    warmup_rows: int = 0
    bench: dict[str, Any] = field(default_factory=dict)
    repetition: int | None = None  # its repetition when it is a run of a sweep (the sweep's index.csv)

    @property
    def validity(self) -> Validity:
        comparison = self.summary.get("comparison") or {}
        return Validity(bool(comparison.get("valid")), list(comparison.get("invalid_reasons") or []))


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
    summary["comparison"] = assess(summary).as_summary()
    bench = read_bench(run_dir / CONFIG_FILE) if run_dir is not None else {}
    partial = _partial_mask(frame, generation_end_ms(summary, bench))
    return RunData(
        label=run_dir.resolve().name if run_dir is not None else csv_path.stem,
        policy=_single_policy(frame) or _str_or_none(summary.get("policy")),
        latency=_latency_values(frame.loc[~warmup & ~partial], csv_path),
        summary=summary,
        source=csv_path,
        warmup_rows=int(warmup.sum()),
        bench=bench,
        repetition=sweep_repetition(run_dir) if run_dir is not None else None,
    )


def sweep_repetition(run_dir: Path) -> int | None:
    """The repetition of a run directory that a sweep made, from the index.csv beside it; None otherwise."""
    index = run_dir.parent / INDEX_FILE
    try:
        return _repetitions(index, index.stat().st_mtime_ns).get(run_dir.name)
    except OSError:
        return None


@functools.lru_cache(maxsize=8)
def _repetitions(index: Path, mtime_ns: int) -> dict[str, int]:
    """run_dir → repetition of a sweep's index.csv, read once per version of the file (a report or compare
    loads every run of a sweep, up to thousands)."""
    try:
        rows = pd.read_csv(index, dtype=str, keep_default_na=False)
        counts = rows["run_dir"].value_counts()
        return {name: int(rep) for name, rep in zip(rows["run_dir"], rows["repetition"]) if counts[name] == 1}
    except (OSError, KeyError, ValueError, pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError):
        return {}


def _partial_mask(frame: pd.DataFrame, end_ms: int | None) -> pd.Series:
    """True for windows ending after the generator stopped (partial, left out as in summary.json)."""
    if end_ms is None or "window_end" not in frame.columns:
        return pd.Series(False, index=frame.index)
    return pd.to_numeric(frame["window_end"], errors="coerce") > end_ms


def expand_inputs(paths: list[str | Path]) -> list[Path]:
    """Each path as given, except a directory without latency.csv: the run directories it holds (index.csv's
    rows for a sweep directory but its warm-up runs, else every directory below it with latency.csv, a report/ directory left out).
    A directory holding none stays as given, so that load_run names what is missing."""
    expanded: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir() and not (path / LATENCY_FILE).is_file():
            expanded.extend(_run_dirs_in(path) or [path])
        else:
            expanded.append(path)
    return expanded


def _run_dirs_in(root: Path) -> list[Path]:
    if (root / INDEX_FILE).is_file():
        try:
            index = pd.read_csv(root / INDEX_FILE, dtype=str, keep_default_na=False)
        except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError):
            raise KlinkError(f"{root / INDEX_FILE}: not a readable CSV; {EXPECTED}") from None
        measured = index[~index.get("warmup", pd.Series("", index=index.index)).str.lower().eq("true")]
        listed = [root / run_dir for run_dir in measured.get("run_dir", [])]  # a sweep's warm-up runs left out
        return [path for path in listed if str(path) != str(root) and (path / LATENCY_FILE).is_file()]
    return sorted(path.parent for path in root.rglob(LATENCY_FILE)
                  if "report" not in path.relative_to(root).parts)


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


def read_bench(config_path: Path) -> dict[str, Any]:
    """config.yaml's bench settings, {} when the file is missing or has no bench section."""
    if not config_path.is_file():
        return {}
    try:
        config = yaml.safe_load(config_path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError):
        raise KlinkError(f"{config_path}: not valid YAML; delete it or rerun the run") from None
    bench = config.get("bench") if isinstance(config, dict) else None
    return bench if isinstance(bench, dict) else {}


def _str_or_none(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None
