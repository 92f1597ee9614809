"""The runs behind `klinkctl report` as tables: which runs were found, which were left out and why,
which bench parameters vary (they become plot axes, series and panels), and per figure the numbers
it plots — means over repetitions with Student t intervals (``stats.t_interval``).

Input: a sweep directory (``index.csv`` + ``sweep.yaml``), a directory holding run directories at
any depth (each with ``summary.json`` and ``config.yaml``), or one run directory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from klinkctl.errors import KlinkError
from klinkctl.results import groups, stats, summary as run_summary
from klinkctl.results.labels import policy_label
from klinkctl.results.runs import SUMMARY_FILE, RunData, read_summary, load_run
from klinkctl.results.tables import read_table

INDEX_FILE = "index.csv"
SWEEP_FILE = "sweep.yaml"
CONFIG_FILE = "config.yaml"
REPORT_DIR = "report"
EXPECTED = "expected a sweep directory (index.csv), a directory of run directories or a run directory"

#: Settings runs at a load (--load F --capacity FILE) get from it and their cell: no panels (RunSet.others).
SET_BY_LOAD = ("rate", "capacity")
SERIES = "policy"  # one line / bar colour per policy label (klink[C=2]) in every figure
REPETITION_PARAMS = groups.REPETITION_KEYS  # differ between repetitions of one configuration: never an axis
CDF_PERCENTILES = np.arange(40, 100)  # Fig. 6b: 40th to 99th percentile
MB = 1024 * 1024


class MissingData(Exception):
    """The data a figure needs is not in these runs; the message says which data."""


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
                if key not in (SERIES, *used) and not self._names_series(key) and not self._set_by_load(key)]

    def _set_by_load(self, key: str) -> bool:
        """Whether ``key`` follows from runs at a load: their rate (load × the capacity's) and their capacity file
        (one per cell of a regime map) vary with the cell, so they make no panels of their own."""
        return key in SET_BY_LOAD and "load" in self.params and bool(self.params["load"].notna().all())

    def _names_series(self, key: str) -> bool:
        """Whether ``key`` and the policy label name each other one to one (a sweep's variants named after their
        policies): the lines already tell them apart, so they make no panels."""
        pairs = self.params[[key, SERIES]].astype(str).drop_duplicates()
        return bool(pairs[key].is_unique and pairs[SERIES].is_unique)

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
            for run in runs if run.data.latency.size == 0]


# --- tables ------------------------------------------------------------------------------------

def mean_with_ci(frame: pd.DataFrame, keys: list[str], column: str, confidence: float) -> pd.DataFrame:
    """Per group of ``keys``: runs (rows), n (rows with a value), mean of ``column`` and its
    Student t interval over the runs (nan when n < 2)."""
    grouped = frame.groupby(keys, dropna=False, sort=True)[column]
    table = grouped.agg(runs="size", n="count", mean="mean")
    intervals = grouped.apply(lambda values: stats.t_interval(values.dropna(), confidence))
    table["ci_low"] = [low for low, _ in intervals]
    table["ci_high"] = [high for _, high in intervals]
    return table.reset_index()


def run_table(runset: RunSet) -> pd.DataFrame:
    """One row per completed run: its parameters and the numbers every figure starts from."""
    rows = [_run_metrics(run) for run in runset.runs]
    return runset.params.merge(pd.DataFrame(rows), on="run")


def _run_metrics(run: Run) -> dict[str, Any]:
    latency, summary = run.data.latency, run.summary
    throughput = summary.get("throughput") or {}
    return {
        "run": run.run_id,
        "windows": int(latency.size),
        "mean_latency_ms": float(latency.mean()) if latency.size else np.nan,
        "p99_latency_ms": float(np.percentile(latency, 99)) if latency.size else np.nan,
        "flink_source_records_per_s": _float(throughput.get("flink_source_records_per_s")),
        "generator_events_per_s": _float(throughput.get("generator_events_per_s")),
        "fell_behind": (summary.get("generator") or {}).get("fell_behind"),
        "flags": len(summary.get("flags") or []),
    }


def _float(value: Any) -> float:
    return float(value) if value is not None else np.nan


def _require(frame: pd.DataFrame, column: str, missing: str) -> pd.DataFrame:
    if frame.empty or frame[column].isna().all():
        raise MissingData(missing)
    return frame


def latency_means(runset: RunSet) -> pd.DataFrame:
    """Fig. 6a: per configuration, the mean over repetitions of each run's mean SWM latency."""
    runs = _require(run_table(runset), "mean_latency_ms", "no completed run measured a window after the "
                    "warm-up (latency.csv → swm_latency_ms)")
    return mean_with_ci(runs, runset.keys_with(runset.x_param), "mean_latency_ms", runset.confidence)


def latency_percentiles(runset: RunSet) -> pd.DataFrame:
    """Fig. 6b: per configuration, the 40th…99th percentile of the SWM latencies of all its
    repetitions pooled (long: one row per percentile)."""
    latencies = pd.DataFrame([{"run": run.run_id, "latency_ms": value}
                              for run in runset.runs for value in run.data.latency])
    if latencies.empty:
        raise MissingData("no completed run measured a window after the warm-up (latency.csv → swm_latency_ms)")
    pooled = latencies.merge(runset.params, on="run").groupby(runset.group_keys, dropna=False)["latency_ms"]
    return pooled.apply(_percentile_rows).reset_index(level=-1, drop=True).reset_index()


def _percentile_rows(values: pd.Series) -> pd.DataFrame:
    return pd.DataFrame({"percentile": CDF_PERCENTILES, "latency_ms": np.percentile(values, CDF_PERCENTILES),
                         "windows": len(values)})


SLOWDOWN_MISSING = ("slowdown needs runs of a query alone (queries = 1) with the same other parameters: "
                    "slowdown = mean SWM latency / mean SWM latency of the same policy with one query. "
                    "The paper's own definition (§6.1.2: SWM latency / the sum over operators of the "
                    "execution cost of one event) needs per-operator execution costs, which run directories "
                    "do not record")


def slowdowns(runset: RunSet) -> pd.DataFrame:
    """Fig. 6c: each run's mean latency divided by the mean latency of the same configuration with
    queries = 1 (the query alone), then mean and t interval over the repetitions."""
    runs = run_table(runset).dropna(subset=["mean_latency_ms"])
    if "queries" not in runset.varying or not (runs["queries"] == 1).any():
        raise MissingData(SLOWDOWN_MISSING)
    same = [key for key in runset.group_keys if key != "queries"]
    alone = (runs[runs["queries"] == 1].groupby(same, dropna=False)["mean_latency_ms"].mean()
             .rename("alone_ms").reset_index())
    runs = runs.merge(alone, on=same)
    runs["slowdown"] = runs["mean_latency_ms"] / runs["alone_ms"]
    return mean_with_ci(_require(runs, "slowdown", SLOWDOWN_MISSING), runset.group_keys, "slowdown",
                        runset.confidence)


THROUGHPUT_METRICS = {"flink_source_records_per_s": "Flink sources (records/s)",
                      "generator_events_per_s": "generator (events/s)"}


def throughputs(runset: RunSet) -> pd.DataFrame:
    """Fig. 6d: per configuration and metric (Flink source records/s, generator events/s), the mean over
    repetitions with its t interval (long: a ``metric`` column)."""
    runs = run_table(runset)
    tables = [mean_with_ci(runs, runset.keys_with(runset.x_param), metric, runset.confidence).assign(metric=metric)
              for metric in THROUGHPUT_METRICS if runs[metric].notna().any()]
    if not tables:
        raise MissingData("no summary.json has throughput.flink_source_records_per_s or "
                          "throughput.generator_events_per_s")
    table = pd.concat(tables, ignore_index=True)
    return table[["metric", *table.columns.drop("metric")]]


def resources(runset: RunSet) -> pd.DataFrame:
    """Fig. 8: resources.csv of every run, seconds since the run's first sample, RSS in MB; averaged
    over the repetitions of a configuration per component and second."""
    frames = [_resource_frame(run) for run in runset.runs]
    frames = [frame for frame in frames if not frame.empty]
    if not frames:
        raise MissingData("no run has resources.csv (CPU and RSS per component, sampled each second)")
    samples = pd.concat(frames, ignore_index=True).merge(runset.params, on="run")
    keys = runset.group_keys + ["component", "second"]
    return samples.groupby(keys, dropna=False)[["cpu_percent", "rss_mb"]].mean().reset_index()


def _resource_frame(run: Run) -> pd.DataFrame:
    frame = read_table(run.run_dir / "resources.csv")
    if frame.empty:
        return frame
    second = (frame["time"] - frame["time"].min()) // 1000
    return pd.DataFrame({"run": run.run_id, "component": frame["component"], "second": second,
                         "cpu_percent": frame["cpu_percent"], "rss_mb": frame["rss_bytes"] / MB})


def memory_mode(runset: RunSet) -> pd.DataFrame:
    """Klink's memory management over time: the TaskManager's live heap (scheduler.csv memory_used, the fraction
    Klink compares with b) and the share of the second's cycles decided in memory mode (`why` starting mm:),
    seconds since the run's first cycle, averaged over the repetitions of a configuration."""
    frames = [_memory_frame(run) for run in runset.runs]
    frames = [frame for frame in frames if not frame.empty]
    if not frames:
        raise MissingData("no run has scheduler.csv with memory_used (runs of a pausing policy, eleventh session on)")
    samples = pd.concat(frames, ignore_index=True).merge(runset.params, on="run")
    keys = runset.group_keys + ["second"]
    return samples.groupby(keys, dropna=False)[["memory_used", "memory_mode"]].mean().reset_index()


def _memory_frame(run: Run) -> pd.DataFrame:
    frame = read_table(run.run_dir / "scheduler.csv")
    if frame.empty or "memory_used" not in frame:
        return pd.DataFrame()
    frame = frame[frame["tasks"] > 0]
    why = frame["why"].fillna("").astype(str) if "why" in frame else pd.Series("", index=frame.index)
    return pd.DataFrame({"run": run.run_id, "second": (frame["time"] - frame["time"].min()) // 1000,
                         "memory_used": frame["memory_used"], "memory_mode": why.str.startswith("mm:").astype(float)})


def estimator_accuracy(runset: RunSet) -> pd.DataFrame:
    """Fig. 9c: per configuration and estimator (klink, lr), the percentage of SWMs ingested inside the
    predicted interval — mean over repetitions with its t interval — next to the interval's median width and
    the point estimate's mean |error| (means over repetitions), the SWMs scored and those skipped."""
    rows = [{"run": run.run_id, "estimator": name, "swms": acc["swms"], "inside_pct": 100 * acc["inside_fraction"],
             "mean_abs_error_ms": acc["mean_abs_error_ms"], "median_width_ms": acc.get("median_width_ms", np.nan),
             "skipped": sum((acc.get("skipped") or {}).values())}
            for run in runset.runs for name, acc in _estimator_summary(run).items() if acc.get("swms")]
    if not rows:
        raise MissingData("no run has estimator data (estimator.csv / summary.json → estimator; "
                          "written by the klink and klink-nomm policies)")
    runs = pd.DataFrame(rows).merge(runset.params, on="run")
    keys = runset.keys_with("delay", "confidence") + ["estimator"]
    table = mean_with_ci(runs, keys, "inside_pct", runset.confidence)
    extra = runs.groupby(keys, dropna=False).agg(swms=("swms", "sum"), skipped=("skipped", "sum"),
                                                 median_width_ms=("median_width_ms", "mean"),
                                                 mean_abs_error_ms=("mean_abs_error_ms", "mean"))
    return table.merge(extra.reset_index(), on=keys)


def _estimator_summary(run: Run) -> dict[str, dict[str, Any]]:
    """summary.json → estimator, or (older summaries) the same numbers from estimator.csv."""
    return run.summary.get("estimator") or run_summary.estimator_accuracy(
        read_table(run.run_dir / "estimator.csv"), run.summary.get("warmup_until_ms"))


def scheduler_overhead(runset: RunSet) -> pd.DataFrame:
    """Fig. 9d: per configuration, the scheduler's mean time per cycle in µs and as a percentage of
    the cycle length r (the share of one core the scheduler thread takes), mean over repetitions."""
    rows = [{"run": run.run_id, "cycles": overhead["cycles"], "mean_cycle_us": overhead["mean_cycle_us"],
             "overhead_pct": 100 * overhead["mean_cycle_us"] / (1000 * float(run.params.get("cycle_ms") or np.nan))}
            for run in runset.runs if (overhead := _scheduler_summary(run)).get("cycles")]
    if not rows:
        raise MissingData("no run has scheduler data (scheduler.csv → cycle_ns / summary.json → scheduler; "
                          "written by every policy except default)")
    runs = pd.DataFrame(rows).merge(runset.params, on="run")
    keys = runset.keys_with("confidence", "cycle_ms")
    table = mean_with_ci(runs, keys, "overhead_pct", runset.confidence)
    extra = runs.groupby(keys, dropna=False).agg(cycles=("cycles", "sum"), mean_cycle_us=("mean_cycle_us", "mean"))
    return table.merge(extra.reset_index(), on=keys)


def _scheduler_summary(run: Run) -> dict[str, Any]:
    """summary.json → scheduler, or (older summaries) the same numbers from scheduler.csv."""
    return run.summary.get("scheduler") or run_summary.scheduler_overhead(read_table(run.run_dir / "scheduler.csv"))

