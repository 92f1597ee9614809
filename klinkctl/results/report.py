"""Per figure of `klinkctl report`, the numbers it plots from a set of runs (``runset``): means over
repetitions with Student t intervals (``stats.t_interval``), percentiles, slowdowns, resources, memory mode,
estimator accuracy and scheduler overhead.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pandas as pd

from klinkctl.results import record_latency, stats, summary as run_summary
from klinkctl.results.runset import SERIES, Run, RunSet
from klinkctl.results.tables import read_table

CDF_PERCENTILES = np.arange(40, 100)  # Fig. 6b: 40th to 99th percentile
RECORD_NINES = np.arange(10, 41) / 10  # per-record latency curve: p90 (1 nine) … p99.99 (4 nines)
NO_RECORDS = ("no run has per-record latency (record-latency.csv → summary.json record_latency; written by "
              "workloads whose sinks publish records rows)")
MB = 1024 * 1024


class MissingData(Exception):
    """The data a figure needs is not in these runs; the message says which data."""


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
    return metrics_vs_x(runset, run_table(runset), THROUGHPUT_METRICS, "no summary.json has "
                         "throughput.flink_source_records_per_s or throughput.generator_events_per_s")


def metrics_vs_x(runset: RunSet, runs: pd.DataFrame, metrics: dict[str, str], missing: str,
                 x: str | None = None) -> pd.DataFrame:
    """Per configuration and metric (a column of ``runs``), the mean over repetitions with its t interval (long:
    a ``metric`` column); ``x`` (default: the run set's x axis) is a key even where it does not vary."""
    tables = [mean_with_ci(runs, runset.keys_with(x or runset.x_param), metric, runset.confidence).assign(metric=metric)
              for metric in metrics if metric in runs and runs[metric].notna().any()]
    if not tables:
        raise MissingData(missing)
    table = pd.concat(tables, ignore_index=True)
    return table[["metric", *table.columns.drop("metric")]]


LATE_STATE_METRICS = {"live_heap_mb": "live heap, median (MB)", "heap_used_mb": "heap used, median (MB)",
                      "gc_percent": "time in GC (%)", "flink_source_records_per_s": "Flink sources (records/s)"}


def late_state_memory(runset: RunSet) -> pd.DataFrame:
    """The AION paper's Fig. 2 analogue (late-state.json of each completed run, measured span): the TaskManager's
    live heap (after GC) and heap used, medians over the run, the share of time in GC and the sources' rate, per
    configuration: mean over repetitions with its t interval (long: a ``metric`` column). Runs that failed (a
    heap that ran out) are not in it: the report lists them."""
    rows = []
    for run in runset.runs:
        late = run.summary.get("late_state") or {}
        rows.append({"run": run.run_id,
                     "live_heap_mb": _float((late.get("live_heap_bytes") or {}).get("median")) / MB,
                     "heap_used_mb": _float((late.get("heap_used_bytes") or {}).get("median")) / MB,
                     "gc_percent": _float(late.get("gc_share")) * 100})
    runs = run_table(runset).merge(pd.DataFrame(rows, columns=["run", "live_heap_mb", "heap_used_mb",
                                                                "gc_percent"]), on="run")
    table = metrics_vs_x(runset, runs.dropna(subset=["heap_used_mb"]), LATE_STATE_METRICS,
                          "no summary.json has late_state.heap_used_bytes (the average workload's late-state runs)")
    if "late_state" in table:  # one line per late state (and policy, if that varies too)
        states = table["late_state"].astype(str)
        table[SERIES] = states if table[SERIES].nunique() == 1 else table[SERIES].astype(str) + "/" + states
    return table


STALENESS_METRICS = {"executions": "re-executions per window", "max_staleness": "max staleness t·n/(T·N)",
                     "within_bound_pct": "windows within the bound (%)"}


def late_trigger_staleness(runset: RunSet) -> pd.DataFrame:
    """The AION paper's Fig. 9 analogue, measured in the operator (late-state.json → staleness → per_window, windows
    with late events cleaned up during the run whose plan had the learned late arrivals: ``planned_on_learned``):
    per configuration the mean over repetitions of each run's mean re-executions per window, mean maximum staleness
    and share of windows within the bound, each with its t interval; wide (``<metric>``, ``<metric>_low``,
    ``<metric>_high``), ``configuration`` naming each by what varies."""
    from klinkctl.run.late_state import planned_on_learned, window_statistics
    rows = []
    for run in runset.runs:
        staleness = (run.summary.get("late_state") or {}).get("staleness") or {}
        windows = pd.DataFrame(staleness.get("per_window") or [])
        learned = planned_on_learned(windows[windows["late_events"] > 0]) if len(windows) else windows
        if len(learned):
            stats_ = window_statistics(learned, staleness["bound"])
            rows.append({"run": run.run_id, "learned_windows": len(learned), "executions": stats_["executions_mean"],
                         "max_staleness": stats_["max_staleness_mean"],
                         "within_bound_pct": 100 * stats_["within_bound"], "bound": staleness["bound"]})
    if not rows:
        raise MissingData("no summary.json has late_state.staleness.per_window with windows of late events planned "
                          "after the first cleanup (AION's runs of the late-event workloads)")
    runs = run_table(runset).merge(pd.DataFrame(rows), on="run")
    keys = runset.group_keys
    table = None
    for metric in STALENESS_METRICS:
        one = mean_with_ci(runs, keys, metric, runset.confidence).rename(
            columns={"mean": metric, "ci_low": f"{metric}_low", "ci_high": f"{metric}_high"})
        table = one if table is None else table.merge(one.drop(columns=["runs", "n"]), on=keys)
    extra = runs.groupby(keys, dropna=False).agg(bound=("bound", "first"),
                                                 learned_windows=("learned_windows", "sum")).reset_index()
    table = table.merge(extra, on=keys)
    # named by the first varying parameter that tells every configuration apart (a sweep's variant), or by all
    varying = [key for key in keys if table[key].nunique(dropna=False) > 1] or [SERIES]
    naming = next(([key] for key in varying if table[key].nunique(dropna=False) == len(table)), varying)
    table["configuration"] = table[naming].astype(str).agg(" ".join, axis=1)
    return table


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
    return mean_per_second(runset, _memory_frame, ["memory_used", "memory_mode"],
                            "no run has scheduler.csv with memory_used (runs of a pausing policy, eleventh session on)")


def mean_per_second(runset: RunSet, frame_of: Callable[[Run], pd.DataFrame], columns: list[str],
                     missing: str) -> pd.DataFrame:
    """``columns`` of each run's per-second frame (run, second, columns), averaged per configuration and second."""
    frames = [frame for frame in map(frame_of, runset.runs) if not frame.empty]
    if not frames:
        raise MissingData(missing)
    samples = pd.concat(frames, ignore_index=True).merge(runset.params, on="run")
    return samples.groupby(runset.group_keys + ["second"], dropna=False)[columns].mean().reset_index()


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
             "inside": round(acc["swms"] * acc["inside_fraction"]),
             "mean_abs_error_ms": acc["mean_abs_error_ms"], "median_width_ms": acc.get("median_width_ms", np.nan),
             "skipped": sum((acc.get("skipped") or {}).values())}
            for run in runset.runs for name, acc in _estimator_summary(run).items() if acc.get("swms")]
    if not rows:
        raise MissingData("no run has estimator data (estimator.csv / summary.json → estimator; "
                          "written by the klink and klink-nomm policies)")
    runs = pd.DataFrame(rows).merge(runset.params, on="run")
    keys = runset.keys_with("delay", "confidence") + ["estimator"]
    table = mean_with_ci(runs, keys, "inside_pct", runset.confidence)
    extra = runs.groupby(keys, dropna=False).agg(swms=("swms", "sum"), inside=("inside", "sum"),
                                                 skipped=("skipped", "sum"),
                                                 median_width_ms=("median_width_ms", "mean"),
                                                 mean_abs_error_ms=("mean_abs_error_ms", "mean")).reset_index()
    # every SWM of every repetition pooled, with its binomial interval: what a coverage target is judged on
    pooled = [stats.proportion_interval(inside, swms, runset.confidence)
              for inside, swms in zip(extra["inside"], extra["swms"])]
    extra["pooled_inside_pct"] = 100 * extra["inside"] / extra["swms"]
    extra["pooled_ci_low"] = [100 * low for low, _ in pooled]
    extra["pooled_ci_high"] = [100 * high for _, high in pooled]
    return table.merge(extra, on=keys)


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


#: The per-record percentiles the tail figure compares the techniques at, and their summary.json keys.
RECORD_TAILS = {"p99": "p99_ms", "p99.9": "p999_ms"}


def _runs_with_records(runset: RunSet) -> list[Run]:
    runs = [run for run in runset.runs if (run.summary.get("record_latency") or {}).get("count")]
    if not runs:
        raise MissingData(NO_RECORDS)
    return runs


def record_latency_curves(runset: RunSet) -> pd.DataFrame:
    """Per configuration, per-record latency at p90…p99.99 (RECORD_NINES) of every measured record of its
    repetitions, their histograms merged (long: one row per percentile)."""
    run_dirs = {run.run_id: run.run_dir for run in _runs_with_records(runset)}
    params = runset.params[runset.params["run"].isin(run_dirs)]
    keys = runset.group_keys
    curves = [record_latency.nines_curve(record_latency.pooled_histogram(run_dirs[run] for run in group["run"]),
                                         RECORD_NINES).assign(**dict(zip(keys, values)))
              for values, group in params.groupby(keys, dropna=False, sort=True)]
    table = pd.concat(curves, ignore_index=True)
    return table[[*keys, *table.columns.drop(keys)]]


def record_tail_means(runset: RunSet) -> pd.DataFrame:
    """The tail seed's Figs. 4-5: per configuration and percentile (p99, p99.9), the mean over repetitions of each
    run's per-record latency at it (summary.json → record_latency) with its t interval (long)."""
    rows = pd.DataFrame([{"run": run.run_id, **{name: run.summary["record_latency"][key]
                                                for name, key in RECORD_TAILS.items()}}
                         for run in _runs_with_records(runset)])
    long = rows.melt(id_vars="run", var_name="percentile", value_name="latency_ms").merge(runset.params, on="run")
    return mean_with_ci(long, [*runset.keys_with(runset.x_param), "percentile"], "latency_ms", runset.confidence)


def record_percentiles_over_time(runset: RunSet) -> pd.DataFrame:
    """Per configuration and second of the measured span (record-percentiles.csv, seconds since its first), the
    per-record p99 and p99.9 averaged over the repetitions."""
    frames = [_record_seconds(run) for run in _runs_with_records(runset)]
    samples = pd.concat(frames, ignore_index=True).merge(runset.params, on="run")
    keys = runset.group_keys + ["second"]
    return samples.groupby(keys, dropna=False)[["p99_ms", "p999_ms"]].mean().reset_index()


def _record_seconds(run: Run) -> pd.DataFrame:
    frame = read_table(run.run_dir / record_latency.PERCENTILES_FILE)
    if frame.empty:
        return pd.DataFrame(columns=["run", "second", "p99_ms", "p999_ms"])
    return pd.DataFrame({"run": run.run_id, "second": frame["second"] - frame["second"].min(),
                         "p99_ms": frame["p99_ms"], "p999_ms": frame["p999_ms"]})
