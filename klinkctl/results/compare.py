"""Side-by-side comparison of runs: one row per run, each against the first (the reference)."""

from __future__ import annotations

import json
import math
from io import StringIO
from pathlib import Path
from typing import Any, Iterable

import numpy as np
import pandas as pd
from rich import box
from rich.console import Console
from rich.table import Table

from klinkctl.errors import KlinkError
from klinkctl.results import stats
from klinkctl.results.runs import RunData, load_run

COLUMNS = [
    "run", "policy", "windows", "mean", "p50", "p90", "p95", "p99", "max",
    "mean_ci_low", "mean_ci_high", "p99_ci_low", "p99_ci_high",
    "ratio_mean", "ratio_ci_low", "ratio_ci_high", "significant", "mannwhitney_p",
    "status", "generator_events_per_s", "fell_behind",
]
from klinkctl.results.compare_cli import FORMATS
INCOMPLETE = ("failed", "interrupted")


def compare_runs(paths: Iterable[str | Path], confidence: float = 0.95, seed: int = 0) -> pd.DataFrame:
    """Load every run and return one row per run (columns: COLUMNS). Latencies are
    swm_latency_ms without warm-up rows; CIs are bootstrap CIs at ``confidence``; ratio_* and
    significant compare each run's mean with the first run's (the first run has ratio 1.0 and
    significant None). ``df.attrs`` holds confidence, seed and each run's status reason."""
    if not 0 < confidence < 1:
        raise KlinkError(f"confidence must be between 0 and 1 (exclusive), got {confidence}")
    runs = [load_run(path) for path in paths]
    if not runs:
        raise KlinkError("no runs to compare: give at least one run directory or latency CSV")
    rows = [_row(run, runs[0], index == 0, confidence, seed) for index, run in enumerate(runs)]
    frame = pd.DataFrame(rows, columns=COLUMNS)
    frame.attrs.update(confidence=confidence, seed=seed,
                       reasons={run.label: run.summary.get("reason") for run in runs})
    return frame


def _row(run: RunData, reference: RunData, is_reference: bool, confidence: float, seed: int) -> dict[str, Any]:
    summary = stats.latency_summary(run.latency)
    mean_ci = stats.bootstrap_ci(run.latency, "mean", confidence, seed)
    p99_ci = stats.bootstrap_ci(run.latency, "p99", confidence, seed)
    if is_reference:
        versus = {"ratio_mean": 1.0 if run.latency.size else math.nan, "ratio_ci_low": math.nan,
                  "ratio_ci_high": math.nan, "significant": None, "mannwhitney_p": math.nan}
    else:
        versus = stats.compare_samples(reference.latency, run.latency, confidence, seed)
    return {
        "run": run.label, "policy": run.policy, "windows": summary["count"],
        **{key: _nan(summary[key]) for key in ("mean", "p50", "p90", "p95", "p99", "max")},
        "mean_ci_low": mean_ci[0], "mean_ci_high": mean_ci[1],
        "p99_ci_low": p99_ci[0], "p99_ci_high": p99_ci[1],
        **versus,
        "status": run.summary.get("status"),
        "generator_events_per_s": _nan(_dig(run.summary, "throughput", "generator_events_per_s")),
        "fell_behind": _dig(run.summary, "generator", "fell_behind"),
    }


def _dig(mapping: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        mapping = mapping.get(key) if isinstance(mapping, dict) else None
    return mapping


def _nan(value: Any) -> float:
    try:
        return float(value) if value is not None else math.nan
    except (TypeError, ValueError):
        return math.nan


def render(frame: pd.DataFrame, fmt: str) -> str:
    """The comparison as text: ``table`` (fixed-width, for people), ``csv`` (header = COLUMNS,
    empty cells for undefined values) or ``json`` (a list of records, undefined values null)."""
    if fmt == "csv":
        return frame.to_csv(index=False)
    if fmt == "json":
        return json.dumps([_json_record(record) for record in frame.to_dict("records")], indent=2) + "\n"
    if fmt == "table":
        return _render_table(frame)
    raise ValueError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")


def _json_record(record: dict[str, Any]) -> dict[str, Any]:
    return {key: _json_value(value) for key, value in record.items()}


def _json_value(value: Any) -> Any:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return None
    return value.item() if isinstance(value, np.generic) else value


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _num(value: Any, digits: int = 1) -> str:
    return "—" if _missing(value) else f"{value:,.{digits}f}"


def _with_ci(value: Any, low: Any, high: Any, digits: int = 1) -> str:
    if _missing(low) or _missing(high):
        return _num(value, digits)
    return f"{_num(value, digits)} [{_num(low, digits)}–{_num(high, digits)}]"


def _verdict(row: pd.Series, is_reference: bool) -> str:
    if is_reference:
        return "ref"
    return {True: "yes", False: "no"}.get(row["significant"], "—")


def _render_table(frame: pd.DataFrame) -> str:
    level = f"{frame.attrs.get('confidence', 0.95) * 100:g}% CI"
    reference = frame["run"].iloc[0] if len(frame) else "the first run"
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, title_justify="left",
                  title=f"SWM latency in ms, warm-up excluded; [..] = {level}; "
                        f"ratio = mean / mean of {reference}; signif. = ratio CI excludes 1; "
                        f"MW p = Mann-Whitney U p-value vs {reference}")
    for header in ("run", "policy", "status", "windows", "mean [CI]", "p50", "p90", "p95",
                   "p99 [CI]", "max", "ratio [CI]", "signif.", "MW p", "gen ev/s", "behind"):
        table.add_column(header, justify="left" if header in ("run", "policy", "status") else "right",
                         overflow="fold")
    for index, row in frame.iterrows():
        status = row["status"] or "—"
        table.add_row(
            str(row["run"]), row["policy"] or "—",
            status.upper() if status in INCOMPLETE else status, str(row["windows"]),
            _with_ci(row["mean"], row["mean_ci_low"], row["mean_ci_high"]),
            _num(row["p50"]), _num(row["p90"]), _num(row["p95"]),
            _with_ci(row["p99"], row["p99_ci_low"], row["p99_ci_high"]), _num(row["max"]),
            _with_ci(row["ratio_mean"], row["ratio_ci_low"], row["ratio_ci_high"], 3),
            _verdict(row, index == 0),
            "—" if _missing(row["mannwhitney_p"]) else f"{row['mannwhitney_p']:.3g}",
            _num(row["generator_events_per_s"], 0),
            "—" if _missing(row["fell_behind"]) else ("yes" if row["fell_behind"] else "no"),
        )
    buffer = StringIO()
    Console(file=buffer, width=200, color_system=None, force_terminal=False).print(table)
    lines = [line.rstrip() for line in buffer.getvalue().splitlines()]
    return "\n".join(lines) + "\n" + "".join(_notes(frame))


def _notes(frame: pd.DataFrame) -> list[str]:
    reasons = frame.attrs.get("reasons", {})
    notes = []
    for _, row in frame.iterrows():
        if row["status"] in INCOMPLETE:
            reason = reasons.get(row["run"])
            notes.append(f"note: {row['run']} {row['status']}{f' ({reason})' if reason else ''}: "
                         "its numbers cover only what it measured\n")
        if row["windows"] < 2:
            notes.append(f"note: {row['run']} has {row['windows']} window(s) after warm-up: "
                         "no confidence interval\n")
    return notes
