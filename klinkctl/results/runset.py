"""The runs behind `klinkctl report` (and the sweep's cell table): which runs were found, which were left out
and why, and which bench parameters vary (they become plot axes, series and panels).

Input: a sweep directory (``index.csv`` + ``sweep.yaml``), a directory holding run directories at
any depth (each with ``summary.json`` and ``config.yaml``), or one run directory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from klinkctl.errors import KlinkError
from klinkctl.results import groups
from klinkctl.results.labels import policy_label
from klinkctl.results.runs import SUMMARY_FILE, RunData, read_summary, load_run

INDEX_FILE = "index.csv"
SWEEP_FILE = "sweep.yaml"
CONFIG_FILE = "config.yaml"
REPORT_DIR = "report"
EXPECTED = "expected a sweep directory (index.csv), a directory of run directories or a run directory"

#: Settings runs at a load (--load F --capacity FILE) get from it and their cell: no panels (RunSet.others).
SET_BY_LOAD = ("rate", "capacity")
SERIES = "policy"  # one line / bar colour per policy label (klink[C=2]) in every figure
REPETITION_PARAMS = groups.REPETITION_KEYS  # differ between repetitions of one configuration: never an axis


@dataclass
class Run:
    """A completed run as the report uses it: its resolved config, summary.json and latencies."""

    run_id: str
    run_dir: Path
    config: dict[str, Any]
    params: dict[str, Any]
    data: RunData
    repetition: int | None = None

    @property
    def summary(self) -> dict[str, Any]:
        return self.data.summary


@dataclass
class Candidate:
    """A run the input names (an index.csv row or a directory found by scanning), not yet loaded."""

    run_id: str
    run_dir: Path | None
    status: str = ""
    reason: str = ""
    repetition: int | None = None
    variant: str = ""  # the sweep's variant name (index.csv), a group key beside the run's bench settings


@dataclass
class RunSet:
    """The completed runs of a report, the runs left out (run, status, reason) and the sweep file.

    ``runs`` are the runs the statistics use: the valid ones (``validity``), or every completed run with
    ``include_invalid``; ``invalid_runs`` are the completed runs left out as invalid (also in ``excluded``)."""

    root: Path
    runs: list[Run]
    excluded: pd.DataFrame
    confidence: float = 0.95
    sweep_text: str | None = None
    notes: list[str] = field(default_factory=list)
    invalid_runs: list[Run] = field(default_factory=list)

    @property
    def simulated_runs(self) -> int:
        """Runs made by `klinkctl simulate` (summary.json: simulated), whose figures come from the model."""
        return sum(1 for run in self.runs if run.summary.get("simulated"))
    include_invalid: bool = False

    @cached_property
    def params(self) -> pd.DataFrame:
        """One row per run: run, repetition and every bench parameter of config.yaml."""
        rows = [{"run": run.run_id, "repetition": run.repetition, **run.params} for run in self.runs]
        frame = pd.DataFrame(rows)
        configuration = [key for key in self.bench_keys if key not in REPETITION_PARAMS]
        numbered = frame.groupby(configuration, dropna=False).cumcount() + 1
        frame["repetition"] = pd.to_numeric(frame["repetition"]).fillna(numbered).astype(int)
        return frame

    @cached_property
    def bench_keys(self) -> list[str]:
        """Every bench parameter, in config.yaml order (union over runs)."""
        return list(dict.fromkeys(key for run in self.runs for key in run.params))

    @cached_property
    def varying(self) -> list[str]:
        """Bench parameters with more than one value across the completed runs (seed excepted)."""
        keys = [key for key in self.bench_keys if key not in REPETITION_PARAMS]
        return [key for key in keys if self.params[key].nunique(dropna=False) > 1]

    @cached_property
    def group_keys(self) -> list[str]:
        """What identifies a configuration: the policy and every other varying parameter."""
        return [SERIES] + [key for key in self.varying if key != SERIES]

    def keys_with(self, *always: str) -> list[str]:
        """``group_keys`` plus ``always`` (parameters a figure needs even when they do not vary)."""
        return self.group_keys + [key for key in always if key not in self.group_keys and key in self.bench_keys]

    def others(self, *used: str) -> list[str]:
        """Varying parameters other than the policy and ``used``: one plot panel per combination."""
        return [key for key in self.varying
                if key not in (SERIES, *used) and not self._set_by_series(key) and not self._set_by_load(key)]

    def _set_by_load(self, key: str) -> bool:
        """Whether ``key`` follows from runs at a load: their rate (load × the capacity's) and their capacity file
        (one per cell of a regime map) vary with the cell, so they make no panels of their own."""
        return key in SET_BY_LOAD and "load" in self.params and bool(self.params["load"].notna().all())

    def _set_by_series(self, key: str) -> bool:
        """Whether the policy label sets ``key`` (a sweep's variants named after their policies, or a variant's own
        setting such as latency-balance's --balance-period): the lines already tell them apart, so it makes no panels
        and no axis."""
        pairs = self.params[[key, SERIES]].astype(str).drop_duplicates()
        return bool(pairs[SERIES].is_unique)

    @cached_property
    def x_param(self) -> str:
        """x axis of the "vs number of queries" figures: ``queries`` when it varies, else the first
        numeric parameter that does (e.g. ``rate``) on its own, else ``queries`` (one point per policy).
        A parameter set by another one is no axis: NYT's slide in a sweep over the workload."""
        if "queries" in self.varying:
            return "queries"
        numeric = [key for key in self.others() if _is_numeric(self.params[key]) and not self._follows(key)]
        return numeric[0] if numeric else "queries"

    def _follows(self, key: str) -> bool:
        """Whether a varying non-numeric parameter (e.g. the workload) determines ``key``'s value."""
        return any(self.params.groupby(other, dropna=False)[key].nunique(dropna=False).max() == 1
                   for other in self.others(key) if not _is_numeric(self.params[other]))


def _is_numeric(column: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)


# --- finding and loading runs ----------------------------------------------------------------

def load_runset(root: str | Path, confidence: float = 0.95, include_invalid: bool = False) -> RunSet:
    """Every run under ``root``; only completed ones are loaded, the others listed with their reason; completed
    runs invalid for comparison are left out too (status ``invalid``) unless ``include_invalid``.
    Raises KlinkError (one line) when ``root`` is missing, holds no run or no completed run."""
    root = Path(root)
    if not root.is_dir():
        raise KlinkError(f"{root}: no such directory; {EXPECTED}")
    candidates = find_candidates(root)
    if not candidates:
        raise KlinkError(f"{root}: no runs found (no {INDEX_FILE}, and no directory with {SUMMARY_FILE} "
                         f"and {CONFIG_FILE}); {EXPECTED}")
    runs, excluded = [], []
    for candidate in candidates:
        loaded = _load_candidate(candidate)
        (runs if isinstance(loaded, Run) else excluded).append(loaded)
    if not runs:
        raise KlinkError(f"{root}: none of the {len(candidates)} runs completed "
                         f"({_status_counts(pd.DataFrame(excluded, columns=['run', 'status', 'reason']))}); "
                         "nothing to report")
    _unique_ids(runs, root)
    validity = pd.DataFrame([{"valid": run.data.validity.valid, "invalid_reasons": run.data.validity.reasons}
                             for run in runs])
    invalid = [] if include_invalid else [run for run in runs if not run.data.validity.valid]
    if len(invalid) == len(runs):
        raise KlinkError(f"{root}: {groups.invalid_line(validity, include_invalid)}; nothing else to report")
    excluded += [(run.run_id, "invalid", "; ".join(run.data.validity.reasons)) for run in invalid]
    used = [run for run in runs if all(run is not left_out for left_out in invalid)]
    sweep = root / SWEEP_FILE
    runset = RunSet(root, used, pd.DataFrame(excluded, columns=["run", "status", "reason"]), confidence,
                    sweep.read_text() if sweep.is_file() else None, invalid_runs=invalid,
                    include_invalid=include_invalid)
    runset.notes.extend(filter(None, [groups.invalid_line(validity, include_invalid)]))
    runset.notes.extend(_starved_notes(used))
    return runset


def _unique_ids(runs: list[Run], root: Path) -> None:
    """Runs with the same id (copies in two directories) are named by their path under ``root``."""
    counts = pd.Series([run.run_id for run in runs]).value_counts()
    for run in runs:
        if counts[run.run_id] > 1:
            run.run_id = str(run.run_dir.resolve().relative_to(root.resolve()))


def _status_counts(excluded: pd.DataFrame) -> str:
    counts = excluded["status"].replace("", "unknown").value_counts()
    return ", ".join(f"{status}: {count}" for status, count in counts.items())


def find_candidates(root: Path) -> list[Candidate]:
    """The runs ``root`` names: index.csv rows, ``root`` itself if it is a run directory, or
    every directory below it with summary.json and config.yaml (the report directory left out)."""
    if (root / INDEX_FILE).is_file():
        return _index_candidates(root)
    if _is_run_dir(root):
        return [Candidate(root.resolve().name, root)]
    found = sorted(path.parent for path in root.rglob(SUMMARY_FILE) if _is_run_dir(path.parent))
    return [Candidate(path.name, path) for path in found if REPORT_DIR not in path.relative_to(root).parts]


def _is_run_dir(path: Path) -> bool:
    return (path / SUMMARY_FILE).is_file() and (path / CONFIG_FILE).is_file()


def _index_candidates(root: Path) -> list[Candidate]:
    try:
        index = pd.read_csv(root / INDEX_FILE, dtype=str, keep_default_na=False)
    except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError):
        raise KlinkError(f"{root / INDEX_FILE}: not a readable CSV; {EXPECTED}") from None
    missing = {"run_id", "status", "run_dir"} - set(index.columns)
    if missing:
        raise KlinkError(f"{root / INDEX_FILE}: no {', '.join(sorted(missing))} column; {EXPECTED}")
    measured = index[index.get("warmup", pd.Series("false", index=index.index)) != "true"]  # warm-ups: never reported
    return [Candidate(row["run_id"] or f"index row {row.get('index', number)}",
                      root / row["run_dir"] if row["run_dir"] else None,
                      row["status"], row.get("reason", ""), _int_or_none(row.get("repetition")), row.get("variant", ""))
            for number, row in measured.iterrows()]


def _int_or_none(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _load_candidate(candidate: Candidate) -> Run | tuple[str, str, str]:
    """The run, or (run, status, reason) saying why it is left out."""
    status = candidate.status or "unknown"
    if candidate.run_dir is None:
        return candidate.run_id, status, candidate.reason or "no run directory"
    summary_path = candidate.run_dir / SUMMARY_FILE
    if not summary_path.is_file():
        return candidate.run_id, status, candidate.reason or f"no {SUMMARY_FILE} in {candidate.run_dir}"
    try:
        summary = read_summary(summary_path)
        if summary.get("status") != "completed":
            return (candidate.run_id, str(summary.get("status") or "unknown"),
                    str(summary.get("reason") or candidate.reason or ""))
        data, config = load_run(candidate.run_dir), _read_config(candidate.run_dir / CONFIG_FILE)
    except KlinkError as error:
        return candidate.run_id, status, str(error)
    params = {**({"variant": candidate.variant} if candidate.variant else {}), **groups.settings(config["bench"])}
    params[SERIES] = policy_label(config["bench"]) if config["bench"].get(SERIES) else data.policy or "unknown"
    return Run(str(summary.get("run") or candidate.run_id), candidate.run_dir, config, params, data,
               candidate.repetition)


def _read_config(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise KlinkError(f"{path}: missing; the run's resolved config is needed to group it")
    try:
        config = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError):
        raise KlinkError(f"{path}: not valid YAML") from None
    if not isinstance(config, dict) or not isinstance(config.get("bench"), dict):
        raise KlinkError(f"{path}: no bench: section")
    return config


def _starved_notes(runs: list[Run]) -> list[str]:
    return [f"{run.run_id} ({run.params.get(SERIES)}) completed but measured no window after the warm-up "
            "(queries starved?): it has no latency and is left out of the latency figures"
            for run in runs if run.data.latency.size == 0 and not _measured_records(run)]


def _measured_records(run: Run) -> bool:
    """Whether the run measured per-record latency (a workload without windows is not starved)."""
    return bool((run.summary.get("record_latency") or {}).get("count"))


# --- tables ------------------------------------------------------------------------------------
