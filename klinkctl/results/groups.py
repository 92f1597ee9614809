"""Statistics across repetitions: runs grouped by configuration, one number per run, intervals over runs.

A *configuration* is every bench setting but the ones that only tell repetitions apart (``REPETITION_KEYS``).
Each run contributes its mean and its p99 SWM latency (warm-up excluded) and, when its workload measures
per-record latency (summary.json → record_latency), its mean, p99 and p99.9 per-record latency; a group shows

* ``n`` runs in its statistics and ``n_invalid`` runs invalid for comparison (``validity``; left out unless
  invalid runs are included),
* the mean over its runs of their mean (and of their p99) with a Student t interval over the runs
  (``stats.t_interval``),
* the ratio to a reference group with an interval over the runs, and a verdict.

Why Welch's t on the log of per-run means, not a bootstrap over runs: a sweep has 2–10 runs per group, and a
bootstrap over so few values has only a handful of distinct resamples and is known to give too narrow
intervals; the t interval is exact for normal data at any n. Latency effects are multiplicative and run-to-run
spread is right-skewed, so the test is on log latency, where the difference of means is the log of the ratio of
geometric means: exponentiated, Welch's interval (``scipy.stats.ttest_ind(equal_var=False)``, which does not
assume both policies vary alike) is a CI for ``ratio`` = geometric mean of the group's per-run means / that of
the reference. A ratio is *significant* when that CI excludes 1; it needs ≥ 2 runs on both sides, so a
single run gets no verdict.

A sweep runs every variant of a cell once per repetition, back to back in rotated order, so a machine whose state
drifts during a sweep (a TaskManager that gets faster with the jobs it has run, page-cache writeback) moves a
repetition's runs together. Where runs carry their repetition, ``paired_ratio`` is also given: the geometric mean
of the per-repetition ratios (other / reference, repetitions where both sides have a valid run) with the t
interval of their logs — the analysis of a blocked design, which takes that common drift out. The verdict stays
on the unpaired (Welch) interval, the more conservative of the two; the paired one is shown beside it.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from typing import Any, Iterable, Sequence

import numpy as np
import pandas as pd
from scipy import stats as sps

from klinkctl.results import stats
from klinkctl.results.labels import DEFAULTS, SCHEDULER_SETTINGS, policy_label
from klinkctl.results.validity import Validity

#: Settings that only tell repetitions of one configuration apart.
REPETITION_KEYS = ("seed",)
#: The project's bar for a figure: at least this many interleaved repetitions per side.
ENOUGH_RUNS = 5
#: Per-run numbers (columns of the run table) and the name of their group statistics.
METRICS = {"mean": "mean_latency_ms", "p99": "p99_latency_ms"}
#: Per-record latency, compared like METRICS when the runs have it: metric → its key in summary.json →
#: record_latency. Group columns: <metric>_ms with its CI, <metric>_ratio with its CI (record_p99_ratio, ...).
RECORD_METRICS = {"record_mean": "mean_ms", "record_p99": "p99_ms", "record_p999": "p999_ms",
                  "record_queueing": "queueing_mean_ms"}
RECORD_COLUMNS = {name: f"{name}_latency_ms" for name in RECORD_METRICS}  # their per-run columns
RECORD_LABELS = {"record_mean": "record mean", "record_p99": "record p99", "record_p999": "record p99.9",
                 "record_queueing": "record queueing"}
#: Rates (per second) a group is also described by when asked (``describe_groups(rates=...)``, compare): name → the
#: per-run column, which is also the group's column (mean over runs, with <column>_ci_low / _ci_high, Student t);
#: its ratio to the reference is <name>_ratio with its CI, as for latency (``ratio_interval``). Not in ``n``.
RATES = {"source_records": "source_records_per_s"}  # records/s Flink's sources read (throughput.flink_source_records_per_s)
LABEL, POLICY_LABEL = "label", "policy_label"
REFERENCE, SIGNIFICANT, NOT_SIGNIFICANT, NO_VERDICT = "reference", "significant", "not significant", "no verdict"
GROUP_COLUMNS = [
    LABEL, "n", "n_invalid",
    "mean_ms", "mean_ci_low", "mean_ci_high", "p99_ms", "p99_ci_low", "p99_ci_high",
    "ratio", "ratio_ci_low", "ratio_ci_high", "p99_ratio", "p99_ratio_ci_low", "p99_ratio_ci_high",
    "significant", "verdict", "paired_ratio", "paired_ratio_ci_low", "paired_ratio_ci_high", "pairs", "runs",
]
REPETITION = "repetition"


def compared_metrics(runs: pd.DataFrame) -> dict[str, str]:
    """metric → per-run column: METRICS, and RECORD_METRICS when some run of ``runs`` has per-record latency."""
    return {**METRICS, **{name: column for name, column in RECORD_COLUMNS.items() if column in runs}}


def group_columns(groups: pd.DataFrame, rates: Iterable[str] = ()) -> list[str]:
    """GROUP_COLUMNS, with each record metric's statistics after p99's and its ratio after p99_ratio's when
    ``groups`` has them (runs without per-record latency: GROUP_COLUMNS as it is), and those of ``rates`` (names
    of RATES) after them."""
    names = [name for name in RECORD_METRICS if f"{name}_ms" in groups]
    statistics = [f"{name}{suffix}" for name in names for suffix in ("_ms", "_ci_low", "_ci_high")]
    statistics += [f"{RATES[name]}{suffix}" for name in rates for suffix in ("", "_ci_low", "_ci_high")]
    ratios = [f"{name}_ratio{suffix}" for name in [*names, *rates] for suffix in ("", "_ci_low", "_ci_high")]
    at_statistics, at_ratios = GROUP_COLUMNS.index("p99_ci_high") + 1, GROUP_COLUMNS.index("p99_ratio_ci_high") + 1
    return [*GROUP_COLUMNS[:at_statistics], *statistics, *GROUP_COLUMNS[at_statistics:at_ratios], *ratios,
            *GROUP_COLUMNS[at_ratios:]]


def settings(bench: dict[str, Any]) -> dict[str, Any]:
    """A run's bench settings as group keys: settings missing from an older config.yaml take their default,
    nested values become JSON-like text (hashable)."""
    merged = {**DEFAULTS, **bench} if bench else {}
    return {key: json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else value
            for key, value in merged.items()}


def configuration_keys(runs: pd.DataFrame, known: Iterable[str]) -> list[str]:
    """The columns of ``runs`` among ``known`` settings, repetition keys left out."""
    return [key for key in known if key in runs.columns and key not in REPETITION_KEYS]


def per_run_values(values: Iterable[float]) -> np.ndarray:
    array = np.asarray(list(values), dtype=float)
    return array[np.isfinite(array)]


def ratio_interval(reference: Sequence[float], other: Sequence[float],
                   confidence: float = 0.95) -> tuple[float, float, float]:
    """(ratio, low, high): ratio of the geometric means of ``other`` and ``reference`` (one value per run) and
    the exponentiated Welch t interval of the difference of their log means. nan where undefined: an empty
    side or a value ≤ 0 (no ratio), fewer than 2 runs on a side or no spread at all (no interval)."""
    a, b = per_run_values(reference), per_run_values(other)
    if not a.size or not b.size or (a <= 0).any() or (b <= 0).any():
        return (math.nan, math.nan, math.nan)
    log_a, log_b = np.log(a), np.log(b)
    ratio = float(np.exp(log_b.mean() - log_a.mean()))
    if a.size < 2 or b.size < 2:
        return (ratio, math.nan, math.nan)
    with stats.quiet():
        interval = sps.ttest_ind(log_b, log_a, equal_var=False).confidence_interval(confidence)
    low, high = float(np.exp(interval.low)), float(np.exp(interval.high))
    return (ratio, low, high) if math.isfinite(low) and math.isfinite(high) else (ratio, math.nan, math.nan)


def paired_ratio_interval(reference: dict[int, float], other: dict[int, float],
                          confidence: float = 0.95) -> tuple[float, float, float, int]:
    """(ratio, low, high, pairs): geometric mean of other[rep] / reference[rep] over the repetitions both hold
    (values > 0) and the exponentiated t interval of the mean log ratio; nan without pairs (no ratio), with
    one pair or no spread (no interval)."""
    common = [rep for rep in reference if rep in other and reference[rep] > 0 and other[rep] > 0]
    logs = np.log([other[rep] / reference[rep] for rep in common])
    if not logs.size:
        return (math.nan, math.nan, math.nan, 0)
    ratio = float(np.exp(logs.mean()))
    low, high = stats.t_interval(logs, confidence)
    if not (math.isfinite(low) and math.isfinite(high)) or low == high:
        return (ratio, math.nan, math.nan, int(logs.size))
    return (ratio, float(np.exp(low)), float(np.exp(high)), int(logs.size))


def significance(n_reference: int, n_other: int, low: float, high: float) -> bool | None:
    """Whether the ratio CI excludes 1; None (no verdict) with fewer than 2 runs on a side or no CI."""
    if n_reference < 2 or n_other < 2 or not (math.isfinite(low) and math.isfinite(high)):
        return None
    return bool(low > 1.0 or high < 1.0)


def describe_groups(runs: pd.DataFrame, keys: list[str], confidence: float = 0.95,
                    include_invalid: bool = False, rates: Iterable[str] = ()) -> pd.DataFrame:
    """One row per configuration of ``keys`` (in order of first appearance): the keys, ``n``, ``n_invalid``,
    the mean and t interval over runs of each METRICS column (and of the RATES named by ``rates``: nan where
    no run has it), and ``runs`` (their ids). ``runs`` needs the columns ``run``, ``valid`` and METRICS' values;
    invalid runs count in ``n_invalid`` and are left out of the statistics unless ``include_invalid``. Hidden
    columns ``_<metric>_values`` keep the per-run values."""
    rows, metrics = [], compared_metrics(runs)
    for key_values, group in runs.groupby(keys, dropna=False, sort=False):
        used = group if include_invalid else group[group["valid"]]
        row = dict(zip(keys, key_values if isinstance(key_values, tuple) else (key_values,)))
        row.update(n_invalid=int((~group["valid"]).sum()), runs=" ".join(map(str, used["run"])))
        for name, column in metrics.items():
            row.update(_described(used, column, name, f"{name}_ms", name, confidence))
        row["n"] = max(int(row[f"_{name}_values"].size) for name in metrics)  # runs with windows, or records
        for name in rates:
            row.update(_described(used, RATES[name], name, RATES[name], RATES[name], confidence))
        row["_mean_by_repetition"] = _by_repetition(used)
        if POLICY_LABEL in group:
            row[POLICY_LABEL] = group[POLICY_LABEL].iloc[0]
        rows.append(row)
    return pd.DataFrame(rows)


def _described(runs: pd.DataFrame, column: str, name: str, statistic: str, interval: str,
               confidence: float) -> dict[str, Any]:
    """The mean over ``runs`` of ``column`` as ``statistic`` (nan without values), its t interval as
    ``<interval>_ci_low`` / ``_ci_high`` and its per-run values as ``_<name>_values``."""
    values = per_run_values(runs[column]) if column in runs else np.array([])
    low, high = stats.t_interval(values, confidence)
    return {statistic: float(values.mean()) if values.size else math.nan, f"{interval}_ci_low": low,
            f"{interval}_ci_high": high, f"_{name}_values": values}


def _by_repetition(runs: pd.DataFrame) -> dict[int, float]:
    """repetition → the run's mean latency (per-record runs, which have no windows: its record p99, the figure
    their verdict is on), for runs that know their repetition (one run per repetition: a repetition twice in a
    group, which a sweep never makes, keeps no pair)."""
    if REPETITION not in runs:
        return {}
    column = METRICS["mean"]
    if not np.isfinite(runs[column]).any() and RECORD_COLUMNS["record_p99"] in runs:
        column = RECORD_COLUMNS["record_p99"]
    known = runs[pd.to_numeric(runs[REPETITION], errors="coerce").notna() & np.isfinite(runs[column])]
    counts = known[REPETITION].value_counts()
    return {int(rep): float(value) for rep, value in zip(known[REPETITION], known[column]) if counts[rep] == 1}


def add_ratios(groups: pd.DataFrame, references: Sequence[int | None], confidence: float = 0.95) -> pd.DataFrame:
    """``groups`` with each row's ratios to the row ``references[i]`` (a position; None: no reference):
    ratio and p99_ratio with their CIs over runs (and <name>_ratio of the record metrics and rates ``groups``
    has), ``significant`` (of the mean ratio; for per-record workloads,
    which have no windows, of the record p99 ratio: the tail they are about) and ``verdict``."""
    groups = groups.copy()
    results = [_versus(groups, position, reference, confidence) for position, reference in enumerate(references)]
    for column in results[0] if results else ():
        groups[column] = [result[column] for result in results]
    return groups


def _versus(groups: pd.DataFrame, position: int, reference: int | None, confidence: float) -> dict[str, Any]:
    row = groups.iloc[position]
    out: dict[str, Any] = {}
    records = [(name, f"{name}_ratio") for name in (*RECORD_METRICS, *RATES) if f"_{name}_values" in groups]
    for name, prefix in (("mean", "ratio"), ("p99", "p99_ratio"), *records):
        if reference is None:
            ratio = low = high = math.nan
        elif reference == position:  # the reference itself: 1 by definition (if it has a rate), no interval
            measured = row[f"_{name}_values"].size if name in RATES else row["n"]
            ratio, low, high = (1.0 if measured else math.nan), math.nan, math.nan
        else:
            ratio, low, high = ratio_interval(groups.iloc[reference][f"_{name}_values"], row[f"_{name}_values"],
                                              confidence)
        out.update({prefix: ratio, f"{prefix}_ci_low": low, f"{prefix}_ci_high": high})
    if reference is None or reference == position:
        paired = (math.nan, math.nan, math.nan, 0)
    else:
        paired = paired_ratio_interval(groups.iloc[reference]["_mean_by_repetition"], row["_mean_by_repetition"],
                                       confidence)
    out.update(zip(("paired_ratio", "paired_ratio_ci_low", "paired_ratio_ci_high", "pairs"), paired))
    if reference is None:
        out.update(significant=None, verdict=NO_VERDICT)
    elif reference == position:
        out.update(significant=None, verdict=REFERENCE)
    else:
        judged = "ratio" if not math.isnan(out["ratio"]) or "record_p99_ratio" not in out else "record_p99_ratio"
        verdict = significance(groups.iloc[reference]["n"], row["n"], out[f"{judged}_ci_low"], out[f"{judged}_ci_high"])
        out.update(significant=verdict,
                   verdict={True: SIGNIFICANT, False: NOT_SIGNIFICANT}.get(verdict, NO_VERDICT))
    return out


def group_labels(groups: pd.DataFrame, keys: list[str], by_configuration: bool) -> list[str]:
    """A distinct name per group. By configuration: its policy label, plus the other settings that differ
    between the groups (``klink[C=2] rate=10000``); grouped by chosen keys: ``key=value`` of each key."""
    def pairs(row: pd.Series, names: list[str]) -> str:
        return ",".join(f"{name}={_text(row[name])}" for name in names)

    if not by_configuration or POLICY_LABEL not in groups:
        return [pairs(row, keys) for _, row in groups.iterrows()]
    varying = [key for key in keys if key != "policy" and groups[key].nunique(dropna=False) > 1]
    for shown in ([key for key in varying if key not in SCHEDULER_SETTINGS], varying):
        labels = [" ".join(filter(None, (row[POLICY_LABEL], pairs(row, shown)))) for _, row in groups.iterrows()]
        if len(set(labels)) == len(labels):
            break
    return labels


def _text(value: Any) -> str:
    if isinstance(value, float):
        return "—" if math.isnan(value) else f"{value:g}"
    return str(value)


def invalid_reason_counts(runs: pd.DataFrame) -> Counter:
    """How many invalid runs have each reason (a run may have several)."""
    return Counter(reason for reasons in runs.loc[~runs["valid"], "invalid_reasons"] for reason in reasons)


def invalid_line(runs: pd.DataFrame, include_invalid: bool) -> str | None:
    """One line on the invalid runs: left out (default) or included, how many and why; None if all valid."""
    invalid = int((~runs["valid"]).sum())
    if not invalid:
        return None
    why = ", ".join(f"{count} {reason}" for reason, count in invalid_reason_counts(runs).items())
    if include_invalid:
        return f"included {invalid} invalid run{'s' * (invalid > 1)} ({why}) because of --include-invalid"
    return f"left out {invalid} invalid run{'s' * (invalid > 1)} ({why}); --include-invalid to include them"


def sample_size_notes(groups: pd.DataFrame) -> list[str]:
    """A note per group with a single run (no verdict) and one for those with 2–4."""
    notes = [f"{row[LABEL]}: 1 run: no verdict; run ≥ {ENOUGH_RUNS} repetitions"
             for _, row in groups.iterrows() if row["n"] == 1]
    few = [str(row[LABEL]) for _, row in groups.iterrows() if 1 < row["n"] < ENOUGH_RUNS]
    if few:
        notes.append(f"fewer than {ENOUGH_RUNS} runs in {', '.join(few)}: intervals are wide; the bar for a "
                     f"figure is ≥ {ENOUGH_RUNS} interleaved repetitions per side")
    return notes


def run_row(run_id: str, run_settings: dict[str, Any], validity: Validity, latency: np.ndarray,
            repetition: int | None = None, record_latency: dict[str, Any] | None = None) -> dict[str, Any]:
    """One run as the groups see it: id, settings, policy label, validity, its mean and p99 SWM latency, its
    repetition in a sweep (None: not known, no pairing) and, for a run with per-record latency (summary.json →
    record_latency), RECORD_COLUMNS."""
    values = np.asarray(latency, dtype=float)
    return {"run": run_id, **run_settings, POLICY_LABEL: policy_label(run_settings), REPETITION: repetition,
            "valid": validity.valid, "invalid_reasons": list(validity.reasons),
            METRICS["mean"]: float(values.mean()) if values.size else math.nan,
            METRICS["p99"]: float(np.percentile(values, 99)) if values.size else math.nan,
            **record_values(record_latency)}


def record_values(record_latency: dict[str, Any] | None) -> dict[str, float]:
    """RECORD_COLUMNS of a run's summary.json → record_latency; {} for a run without it (no columns)."""
    if not isinstance(record_latency, dict):
        return {}
    return {RECORD_COLUMNS[name]: _number(record_latency.get(key)) for name, key in RECORD_METRICS.items()}


def _number(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) else math.nan
