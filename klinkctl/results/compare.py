"""`klinkctl compare`: runs grouped by configuration, statistics across runs, ratios to the first group.

By default one row per group (``groups``): n runs, invalid runs left out, mean and p99 with CIs across runs,
the ratio to the reference group (the group of the first run given) with a CI across runs and a verdict, and
the records/s Flink's sources read (summary.json → throughput.flink_source_records_per_s) with its CI across runs
and its ratio to the reference's with a CI, as for latency (no verdict; empty for runs without the field).
``per_run`` gives the former one row per run, with bootstrap CIs over its windows labelled *within-run*: they
treat a run's windows as independent and say nothing about run-to-run spread, so they carry no verdict; each row
has the records/s that run's sources read (empty for a run without the field).
"""

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
from rich.markup import escape  # labels such as klink[priority,C=2] are not markup
from rich.table import Table

from klinkctl.errors import KlinkError
from klinkctl.results import groups, stats
from klinkctl.results.runs import RunData, expand_inputs, load_run

#: The rates a group shows besides latency: the records/s Flink's sources read (groups.RATES).
RATES = ("source_records",)
SOURCE_RATE = groups.RATES["source_records"]
COLUMNS = groups.group_columns(pd.DataFrame(), RATES)  # those of runs without per-record latency
PER_RUN_COLUMNS = [
    "run", "label", "valid", "invalid_reasons", "windows", "mean", "p50", "p90", "p95", "p99", "max",
    "mean_within_run_ci_low", "mean_within_run_ci_high", "p99_within_run_ci_low", "p99_within_run_ci_high",
    "ratio_mean", "status", "generator_events_per_s", SOURCE_RATE, "fell_behind",
]
INCOMPLETE = ("failed", "interrupted")


def load_runs(paths: Iterable[str | Path]) -> list[RunData]:
    """Every run the paths name (a directory of run directories, e.g. a sweep, gives all of them)."""
    runs = [load_run(path) for path in expand_inputs(list(paths))]
    if not runs:
        raise KlinkError("no runs to compare: give at least one run directory or latency CSV")
    return runs


def _check_confidence(confidence: float) -> None:
    if not 0 < confidence < 1:
        raise KlinkError(f"confidence must be between 0 and 1 (exclusive), got {confidence}")


def run_frame(runs: list[RunData]) -> pd.DataFrame:
    """One row per run: id, settings (config.yaml's bench, or just the policy of a run without one), policy
    label, validity, mean and p99 latency, and the records/s its sources read (nan: not in its summary.json)."""
    rows = [{**groups.run_row(run.label, groups.settings(run.bench) or {"policy": run.policy or "unknown"},
                              run.validity, run.latency, run.repetition, run.summary.get("record_latency")),
             SOURCE_RATE: _source_rate(run)}
            for run in runs]
    return pd.DataFrame(rows)


def _source_rate(run: RunData) -> float:
    """The records/s the run's sources read (summary.json → throughput.flink_source_records_per_s; nan: none)."""
    return _nan(_dig(run.summary, "throughput", "flink_source_records_per_s"))


def setting_keys(runs: list[RunData]) -> list[str]:
    """The settings the runs have, in config.yaml order."""
    return list(dict.fromkeys(key for run in runs for key in (groups.settings(run.bench) or {"policy": None})))


def grouping_keys(runs: list[RunData], group_by: list[str] | None) -> list[str]:
    """``group_by`` checked against the runs' settings, or every setting but the repetition's."""
    known = setting_keys(runs)
    if not group_by:
        return [key for key in known if key not in groups.REPETITION_KEYS]
    unknown = [key for key in group_by if key not in known]
    if unknown:
        raise KlinkError(f"unknown grouping key {', '.join(unknown)}; valid: {', '.join(known)}")
    return list(dict.fromkeys(group_by))


def compare_groups(paths: Iterable[str | Path], confidence: float = 0.95, group_by: list[str] | None = None,
                   include_invalid: bool = False, reference: str | None = None) -> pd.DataFrame:
    """One row per group of runs (columns: COLUMNS, with the per-record latency ones when runs have it:
    ``groups.group_columns``); the reference is the group labelled ``reference``, or the
    first run's group. ``df.attrs``: confidence, reference (its label), notes (lines for the reader)."""
    _check_confidence(confidence)
    runs = load_runs(paths)
    keys = grouping_keys(runs, group_by)
    per_run = run_frame(runs)
    table = groups.describe_groups(per_run, keys, confidence, include_invalid, RATES)
    labels = groups.group_labels(table, keys, by_configuration=not group_by)
    table = groups.add_ratios(table, [_reference_position(list(labels), reference)] * len(table), confidence)
    table[groups.LABEL] = labels
    frame = table[groups.group_columns(table, RATES)].reset_index(drop=True)
    notes = [line for line in (groups.invalid_line(per_run, include_invalid),) if line]
    notes += _incomplete_notes(runs) + groups.sample_size_notes(frame)
    frame.attrs.update(confidence=confidence, reference=labels[_reference_position(list(labels), reference)],
                       notes=notes, include_invalid=include_invalid)
    return frame


def _reference_position(labels: list[str], reference: str | None) -> int:
    if reference is None:
        return 0
    if reference in labels:
        return labels.index(reference)
    raise KlinkError(f"--reference {reference!r} names no group; the groups are: {', '.join(labels)}")


def compare_per_run(paths: Iterable[str | Path], confidence: float = 0.95, seed: int = 0) -> pd.DataFrame:
    """One row per run (columns: PER_RUN_COLUMNS) with within-run bootstrap CIs at ``confidence`` and the
    ratio of its mean to the first run's (no CI, no verdict). ``df.attrs``: confidence, seed, notes."""
    _check_confidence(confidence)
    runs = load_runs(paths)
    labels = run_frame(runs)[groups.POLICY_LABEL].tolist()
    rows = [_run_row(run, label, runs[0], confidence, seed) for run, label in zip(runs, labels)]
    frame = pd.DataFrame(rows, columns=PER_RUN_COLUMNS)
    notes = _incomplete_notes(runs) + [f"{run.label} has {run.latency.size} window(s) after warm-up: no "
                                       "confidence interval" for run in runs if run.latency.size < 2]
    frame.attrs.update(confidence=confidence, seed=seed, notes=notes)
    return frame


def _run_row(run: RunData, label: str, reference: RunData, confidence: float, seed: int) -> dict[str, Any]:
    summary = stats.latency_summary(run.latency)
    mean_ci = stats.bootstrap_ci(run.latency, "mean", confidence, seed)
    p99_ci = stats.bootstrap_ci(run.latency, "p99", confidence, seed)
    ratio = (float(run.latency.mean() / reference.latency.mean())
             if run.latency.size and reference.latency.size and reference.latency.mean() else math.nan)
    return {
        "run": run.label, "label": label, "valid": run.validity.valid,
        "invalid_reasons": "; ".join(run.validity.reasons), "windows": summary["count"],
        **{key: _nan(summary[key]) for key in ("mean", "p50", "p90", "p95", "p99", "max")},
        "mean_within_run_ci_low": mean_ci[0], "mean_within_run_ci_high": mean_ci[1],
        "p99_within_run_ci_low": p99_ci[0], "p99_within_run_ci_high": p99_ci[1],
        "ratio_mean": ratio,
        "status": run.summary.get("status"),
        "generator_events_per_s": _nan(_dig(run.summary, "throughput", "generator_events_per_s")),
        SOURCE_RATE: _source_rate(run),
        "fell_behind": _dig(run.summary, "generator", "fell_behind"),
    }


def _incomplete_notes(runs: list[RunData]) -> list[str]:
    return [f"{run.label} {run.summary['status']}{f' ({reason})' if (reason := run.summary.get('reason')) else ''}: "
            "its numbers cover only what it measured" for run in runs if run.summary.get("status") in INCOMPLETE]


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
    """The comparison as text: ``table`` (fixed-width, for people, with its notes), ``csv`` (header = the
    frame's columns, empty cells for undefined values) or ``json`` (a list of records, undefined values null).
    csv and json leave the notes (``frame.attrs["notes"]``) to the caller."""
    if fmt == "csv":
        return frame.to_csv(index=False)
    if fmt == "json":
        return json.dumps([_json_record(record) for record in frame.to_dict("records")], indent=2) + "\n"
    if fmt == "table":
        title, table = _per_run_table(frame) if "windows" in frame else _group_table(frame)
        width = RECORD_WIDTH if any(f"{name}_ms" in frame for name in RECORD_SHOWN) else WIDTH
        return title + "\n" + _text(table, width) + "".join(f"note: {note}\n" for note in frame.attrs.get("notes", []))
    raise ValueError(f"unknown format {fmt!r}: use table, csv or json")


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


def _read_cell(row: pd.Series) -> str:
    """The records/s Flink's sources read as ``read k/s`` shows it: thousands, one decimal, with the row's CI
    when it has one (a group's; a run's has none)."""
    return _with_ci(*(row.get(f"{SOURCE_RATE}{suffix}", math.nan) / 1000 for suffix in ("", "_ci_low", "_ci_high")))


#: What ``read k/s`` is, in the titles of both tables.
READ_MEANING = ("read k/s = thousands of records/s Flink's sources read in the measured span (summary.json → "
                "throughput.flink_source_records_per_s)")


VERDICTS = {groups.REFERENCE: "ref", groups.SIGNIFICANT: "yes", groups.NOT_SIGNIFICANT: "no",
            groups.NO_VERDICT: "—"}


def _new_table(headers: tuple[str, ...], left: tuple[str, ...]) -> Table:
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    for header in headers:
        table.add_column(header, justify="left" if header in left else "right", overflow="fold")
    return table


#: Per-record metrics the group table shows, with their ratios (all of groups.RECORD_METRICS are in csv / json).
RECORD_SHOWN = ("record_p99", "record_p999")
WIDTH, RECORD_WIDTH = 200, 260  # characters of the table, without and with per-record columns
RECORD_TITLE = ("\nrecord = per-record end-to-end latency in ms (summary.json → record_latency, all records of a run's "
                "measured span merged): mean over its runs of each run's p99 / p99.9, [..] and ratios × as above "
                "(the mean too in csv / json).")


def _record_cells(row: pd.Series, names: list[str]) -> list[str]:
    """A group's per-record statistics and ratios, with their CIs, as the table shows them."""
    return ([_with_ci(row[f"{name}_ms"], row[f"{name}_ci_low"], row[f"{name}_ci_high"]) for name in names]
            + [_with_ci(row[f"{name}_ratio"], row[f"{name}_ratio_ci_low"], row[f"{name}_ratio_ci_high"], 3)
               for name in names])


def _group_table(frame: pd.DataFrame) -> tuple[str, Table]:
    level = f"{frame.attrs.get('confidence', 0.95) * 100:g}% CI"
    names = [name for name in RECORD_SHOWN if f"{name}_ms" in frame]
    windowless = "; runs without windows: the record p99's" if names else ""
    title = (f"SWM latency in ms, warm-up excluded, one row per configuration (n runs; invalid runs "
             f"{'included' if frame.attrs.get('include_invalid') else 'left out'}).\n"
             f"mean / p99 = mean over its runs of each run's mean / p99, [..] = {level} across runs (Student t).\n"
             f"ratio = geometric mean of per-run means / that of {frame.attrs.get('reference')}, [..] = {level} "
             f"across runs (Welch t on log latency);\nsignif. = the ratio CI excludes 1 (needs ≥ 2 valid runs "
             f"per group{windowless});\npaired = geometric mean of the ratios (of the means{windowless}) within "
             f"each sweep repetition (pairs), [..] = {level} across them: the common drift of a repetition taken out.\n"
             f"{READ_MEANING}, mean over its runs, [..] = {level} across runs (Student t);\n"
             f"read × = geometric mean of per-run read/s / that of {frame.attrs.get('reference')}, [..] = {level} "
             f"across runs (Welch t on log read/s); — = no run records it.")
    table = _new_table(
        ("group", "n", "invalid", "mean [CI]", "p99 [CI]", "ratio [CI]", "signif.", "paired [CI] (pairs)",
         *(f"{groups.RECORD_LABELS[name]} ms [CI]" for name in names),
         *(f"{groups.RECORD_LABELS[name]} × [CI]" for name in names), "read k/s [CI]", "read × [CI]"), ("group",))
    for _, row in frame.iterrows():
        table.add_row(escape(str(row["label"])), str(row["n"]), str(row["n_invalid"]),
                      _with_ci(row["mean_ms"], row["mean_ci_low"], row["mean_ci_high"]),
                      _with_ci(row["p99_ms"], row["p99_ci_low"], row["p99_ci_high"]),
                      _with_ci(row["ratio"], row["ratio_ci_low"], row["ratio_ci_high"], 3),
                      VERDICTS[row["verdict"]], _paired(row), *_record_cells(row, names),
                      _read_cell(row),
                      _with_ci(row["source_records_ratio"], row["source_records_ratio_ci_low"],
                               row["source_records_ratio_ci_high"], 3))
    title += RECORD_TITLE if names else ""
    return title, table


def _paired(row: pd.Series) -> str:
    if not row["pairs"]:
        return "—"
    return f"{_with_ci(row['paired_ratio'], row['paired_ratio_ci_low'], row['paired_ratio_ci_high'], 3)} ({row['pairs']})"


def _per_run_table(frame: pd.DataFrame) -> tuple[str, Table]:
    level = f"{frame.attrs.get('confidence', 0.95) * 100:g}% within-run CI"
    reference = frame["run"].iloc[0] if len(frame) else "the first run"
    title = (f"SWM latency in ms per run, warm-up excluded; [..] = {level}: a bootstrap over the run's windows, "
             "taken as independent;\nit is not a CI across runs, so no verdict (compare without --per-run for "
             f"that). ratio = mean / mean of {reference}.\n{READ_MEANING}; — = not in its summary.json.")
    table = _new_table(
        ("run", "label", "status", "valid", "windows", "mean [within-run CI]", "p50",
         "p99 [within-run CI]", "max", "ratio", "gen ev/s", "read k/s", "behind"),
        ("run", "label", "status", "valid"))
    for _, row in frame.iterrows():
        status = row["status"] or "—"
        table.add_row(
            escape(str(row["run"])), escape(str(row["label"])), status.upper() if status in INCOMPLETE else status,
            "yes" if row["valid"] else f"no: {row['invalid_reasons']}", str(row["windows"]),
            _with_ci(row["mean"], row["mean_within_run_ci_low"], row["mean_within_run_ci_high"]),
            _num(row["p50"]),
            _with_ci(row["p99"], row["p99_within_run_ci_low"], row["p99_within_run_ci_high"]), _num(row["max"]),
            _num(row["ratio_mean"], 3), _num(row["generator_events_per_s"], 0), _read_cell(row),
            "—" if _missing(row["fell_behind"]) else ("yes" if row["fell_behind"] else "no"),
        )
    return title, table


def _text(table: Table, width: int = WIDTH) -> str:
    buffer = StringIO()
    Console(file=buffer, width=width, color_system=None, force_terminal=False).print(table)
    return "\n".join(line.rstrip() for line in buffer.getvalue().splitlines()) + "\n"
