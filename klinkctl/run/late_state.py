"""Late-event window state in a run (docs/late-state.md): the
sampler of TaskManager heap, GC time and AION's p-bucket bytes (late-state.csv, from Flink's REST API), and at the
end late-state.json: each window's final result against the exact recomputation, late events accepted and dropped,
heap and disk, and AION's executions and staleness per window."""

from __future__ import annotations

import csv
import threading
import time
import urllib.error
from pathlib import Path
from typing import TYPE_CHECKING, Any

from klinkctl.errors import one_line
from klinkctl.workloads.options import LATE

if TYPE_CHECKING:
    import pandas as pd

    from klinkctl.run.config import RunSpec
    from klinkctl.stack.spec import StackSpec

TABLE = "late-state.csv"
COLUMNS = ["run", "policy", "time", "taskmanager", "heap_used_bytes", "live_heap_bytes", "gc_time_ms",
           "p_bucket_bytes"]
HEAP_METRICS = "Status.JVM.Memory.Heap.Used,Status.JVM.GarbageCollector.All.Time"
#: The reserved keys of the windows' RESULT rows: dropped events per window, AION's counters.
DROPPED, AION = "#dropped", "#aion"
AION_COUNTERS = ["late_accepted", "late_dropped", "destaged", "late_writes", "overflow_writes", "staged",
                 "re_executions", "m_bucket_events", "dropped_after_purge", "prestaged", "staging_wait_ms",
                 "idle_destaged", "scarce_destaged"]
#: AION's report of each window at its cleanup (io.klink.workloads.late.LateResults.STALENESS_FIELDS).
STALENESS, STALENESS_FIELDS = "#staleness", ["executions", "planned", "late_events", "max_staleness", "bound_ms"]


#: AION's gauge of an operator instance's p-bucket bytes (io.klink.workloads.late.AionWindowOperator.P_BUCKET_BYTES).
P_BUCKET_BYTES = "pBucketBytes"
#: The TaskManager's heap after its latest GC, a gauge of every query's firings operator
#: (io.klink.workloads.late.ResultFirings.LIVE_HEAP_BYTES; -1 before the first collection).
LIVE_HEAP_BYTES = "liveHeapBytes"


def operator_gauges(vertex_name: str, operator: str, metric: str) -> list[str]:
    """The gauges `metric` of the operators named "<query>/<operator>" in a job vertex ("q00/window", or chained:
    "q00/window -> q00/firings"), named as Flink's REST API names an operator's metric (<operator>.<metric>)."""
    return [f"{name}.{metric}" for name in vertex_name.split(" -> ") if name.endswith(f"/{operator}")]


class LateStateSampler(threading.Thread):
    """Once a second: every TaskManager's heap used and GC time, the live heap (after the latest GC; the largest
    over the job's TaskManagers), and with AION the bytes of its p-buckets summed over every operator instance
    (their pBucketBytes gauges), all from Flink's REST API."""

    def __init__(self, spec: StackSpec, run_dir: Path, job_id: str, aion: bool, labels: dict[str, str],
                 interval_s: float = 1.0) -> None:
        super().__init__(name="late-state-sampler", daemon=True)
        self.spec, self.job_id, self.aion, self.labels, self.interval_s = spec, job_id, aion, labels, interval_s
        self.max_p_bucket_bytes = 0
        #: the p-bucket bytes of the last sample that had them (None: none had): the run's last before cancellation
        self.last_p_bucket_bytes: int | None = None
        self._file = open(run_dir / TABLE, "w", newline="")
        self._writer = csv.DictWriter(self._file, fieldnames=COLUMNS)
        self._writer.writeheader()
        self._stopping = threading.Event()

    def run(self) -> None:
        while not self._stopping.wait(self.interval_s):
            try:
                self._sample(int(time.time() * 1000))
            except (urllib.error.URLError, OSError, KeyError, ValueError, TypeError):
                continue  # a missing sample is not worth failing the run for
            self._file.flush()
        self._file.close()

    def _sample(self, now: int) -> None:
        from klinkctl.stack import flink
        vertices = flink.rest_get(self.spec, f"/jobs/{self.job_id}")["vertices"]  # once per sample, for both gauges
        disk = self.p_bucket_bytes(vertices) if self.aion else 0
        if disk is not None:
            self.max_p_bucket_bytes = max(self.max_p_bucket_bytes, disk)
            self.last_p_bucket_bytes = disk
        live = self.job_gauge("firings", LIVE_HEAP_BYTES, "max", vertices)
        for tm in flink.rest_get(self.spec, "/taskmanagers")["taskmanagers"]:
            metrics = {m["id"]: m.get("value") for m in flink.rest_get(
                self.spec, f"/taskmanagers/{tm['id']}/metrics?get={HEAP_METRICS}")}
            self._writer.writerow({**self.labels, "time": now, "taskmanager": tm["id"],
                                   "heap_used_bytes": metrics.get("Status.JVM.Memory.Heap.Used"),
                                   "live_heap_bytes": live if live is not None and live >= 0 else None,
                                   "gc_time_ms": metrics.get("Status.JVM.GarbageCollector.All.Time"),
                                   "p_bucket_bytes": disk})

    def p_bucket_bytes(self, vertices: list[dict] | None = None) -> int | None:
        """The sum of every AION instance's gauge; None before Flink's REST API reports any of them."""
        return self.job_gauge("window", P_BUCKET_BYTES, "sum", vertices)

    def job_gauge(self, operator: str, metric: str, agg: str, vertices: list[dict] | None = None) -> int | None:
        """A gauge of the job's "<query>/<operator>" operators, aggregated (`sum` or `max`) over their instances and
        then over the queries; None before Flink's REST API reports any of them. `vertices`: the job's, if fetched
        already."""
        from klinkctl.stack import flink
        values = []
        if vertices is None:
            vertices = flink.rest_get(self.spec, f"/jobs/{self.job_id}")["vertices"]
        for vertex in vertices:
            if names := operator_gauges(vertex["name"], operator, metric):
                values += [int(float(m[agg])) for m in flink.rest_get(
                    self.spec, f"/jobs/{self.job_id}/vertices/{vertex['id']}/subtasks/metrics?get={','.join(names)}"
                               f"&agg={agg}")]
        if not values:
            return None
        return sum(values) if agg == "sum" else max(values)

    def stop(self) -> None:
        self._stopping.set()
        if self.is_alive():
            self.join(10)


def start(spec: StackSpec, config: RunSpec, run_dir: Path, run_id: str, job_id: str) -> LateStateSampler | None:
    if config.workload not in LATE:
        return None
    sampler = LateStateSampler(spec, run_dir, job_id, config.late_state == "aion",
                               {"run": run_id, "policy": config.policy})
    sampler.start()
    return sampler


def verdict(results: pd.DataFrame, exact: pd.DataFrame, predictive: bool = False,
            cleaned_up_only: bool = False, workload: str = "average") -> dict[str, Any]:
    """The final result of every checked window (its events all surely accepted) against the exact one (each of
    the late-event workload's CHECKS fields equal); with
    predictive cleanup (windows purged before --allowed-lateness) not the windows that dropped events; with
    `cleaned_up_only` (the staleness trigger: a window's last late events wait for its next planned execution, the
    last at cleanup) only the windows cleaned up before the run ended (those with a staleness report)."""
    from klinkctl import workloads
    from klinkctl.workloads import late_windows
    late = workloads.get(workload)
    keys = late_windows.compared(results, exact, late.FIELDS, late.CHECKS)
    keys["equal"] = late_windows.equal(keys, late.CHECKS)
    dropped = results[results["key"] == DROPPED].groupby(["query", "window_end"])["value"].max()
    checked = keys[keys["checked"].fillna(False).astype(bool)]
    window = checked.set_index(["query", "window_end"]).index
    if predictive:
        checked, window = checked[~window.isin(dropped.index)], window[~window.isin(dropped.index)]
    if cleaned_up_only:
        reported = results[results["key"] == STALENESS].set_index(["query", "window_end"]).index
        checked = checked[window.isin(reported)]
    windows = checked.groupby(["query", "window_end"])["equal"].all()
    wrong = checked[~checked["equal"]].head(10)
    aion = results[results["key"] == AION]
    counters = {}
    if not aion.empty:
        from klinkctl.results.accuracy import result_fields
        last = result_fields(aion.groupby("query").tail(1))
        counters = {name: int(last[:, i].sum()) for i, name in enumerate(AION_COUNTERS)
                    if i < last.shape[1]}  # runs before pre-staging reported the first nine
    return {"windows": int(keys.groupby(["query", "window_end"]).ngroups),
            "windows_checked": int(len(windows)), "windows_equal": int(windows.sum()),
            "all_checked_equal": bool(len(windows)) and bool(windows.all()),
            "mismatches": wrong[["query", "window_end", "key", *(c for f in late.CHECKS for c in (f, f"exact_{f}"))]]
            .to_dict("records"),
            "late_accepted": int(keys["late_accepted"].fillna(0).sum()), "late_dropped": int(dropped.sum()),
            "aion": counters}


def staleness(results: pd.DataFrame, bound: float) -> dict[str, Any]:
    """AION's windows at cleanup: per window its late re-executions, the executions its trigger planned (0:
    watermark trigger), its late events, its measured maximum staleness t·n/(T·N) and the bound it was kept for
    (over time: the predictive cleanup's); over the windows with late events the mean and largest of the executions
    and staleness and the share within the bound, and the same over those whose plan had the learned late arrivals
    (``learned``). Empty for Flink's windows."""
    import pandas as pd
    from klinkctl.results.accuracy import result_fields
    rows = results[results["key"] == STALENESS]
    if rows.empty:
        return {}
    table = pd.DataFrame(result_fields(rows)[:, :len(STALENESS_FIELDS)], columns=STALENESS_FIELDS)
    table.insert(0, "window_end", rows["window_end"].to_numpy())
    table.insert(0, "query", rows["query"].to_numpy())
    late = table[table["late_events"] > 0]
    summary = {"bound": bound, "windows": int(len(table)), "windows_with_late_events": int(len(late)),
               **window_statistics(late, bound)}
    learned = planned_on_learned(late)
    if len(learned):
        summary["learned"] = {"windows": int(len(learned)), **window_statistics(learned, bound)}
    bounds = table.sort_values("window_end")["bound_ms"]
    summary["bound_ms"] = {"first": int(bounds.iloc[0]), "last": int(bounds.iloc[-1]), "min": int(bounds.min()),
                           "median": float(bounds.median()), "max": int(bounds.max())}
    return {**summary, "per_window": table.astype({c: int for c in ("window_end", "executions", "planned",
                                                                     "late_events", "bound_ms")}).to_dict("records")}


def window_statistics(late: pd.DataFrame, bound: float) -> dict[str, Any]:
    """Over windows with late events (staleness's per_window rows): mean and largest executions and maximum
    staleness, and the share of windows within the bound; empty without windows."""
    if late.empty:
        return {}
    return {"executions_mean": float(late["executions"].mean()), "executions_max": int(late["executions"].max()),
            "max_staleness_mean": float(late["max_staleness"].mean()),
            "max_staleness_max": float(late["max_staleness"].max()),
            "within_bound": float((late["max_staleness"] <= bound * (1 + 1e-9)).mean())}


def planned_on_learned(windows: pd.DataFrame) -> pd.DataFrame:
    """The windows (staleness's per_window rows) that fired after the first window of their query was cleaned up
    (its end plus its lateness bound): the staleness and Δev triggers planned them on the late arrivals learned so
    far, the earlier ones on the uniform prior (io.klink.workloads.late.LateExecutions)."""
    ordered = windows.sort_values("window_end")
    by_query = ordered.groupby("query")
    cleaned_up = by_query["window_end"].transform("min") + by_query["bound_ms"].transform("first")
    return ordered[ordered["window_end"] > cleaned_up]


def gc_share(samples: pd.DataFrame) -> float | None:
    """The fraction of the sampled span each TaskManager's JVM spent collecting (its GC time counter's growth over
    the wall time between its first and last sample), the largest over TaskManagers; None with < 2 samples."""
    shares = []
    for _, tm in samples.dropna(subset=["gc_time_ms"]).groupby("taskmanager"):
        span = float(tm["time"].max() - tm["time"].min())
        if span > 0:
            shares.append(float(tm["gc_time_ms"].max() - tm["gc_time_ms"].min()) / span)
    return max(shares) if shares else None


def memory(samples: pd.DataFrame, span: tuple[int, int] | None) -> dict[str, Any]:
    """Median and largest heap used and live heap, and the GC share, over the samples inside the measured span
    (the run's earlier jobs' garbage and its warm-up left out); over every sample if none lies inside."""
    inside = samples[samples["time"].between(*span)] if span else samples.iloc[:0]
    chosen = inside if len(inside) else samples
    report: dict[str, Any] = {"memory_span": "measured" if len(inside) else "whole run"}
    for column in ("heap_used_bytes", "live_heap_bytes"):
        values = chosen[column].dropna().astype(float) if column in chosen else chosen.iloc[:0, 0]
        if len(values):
            report[column] = {"median": float(values.median()), "max": float(values.max())}
    report["gc_share"] = gc_share(chosen)
    return report


def finish(sampler: LateStateSampler | None, config: RunSpec, run_dir: Path,
           span: tuple[int, int] | None = None) -> list[str]:
    """Stops the sampler (if the job's cancellation has not already), writes late-state.json (summary.json's
    late_state) with memory over the measured `span` (epoch ms); returns the problems, one line each. The
    operators delete their own p-buckets."""
    from klinkctl.files import write_json
    from klinkctl.results.tables import read_table
    if config.workload not in LATE:
        return []
    problems, report = [], {"late_state": config.late_state, "allowed_lateness_ms": config.allowed_lateness_ms,
                            "late_trigger": config.late_trigger, "predictive_cleanup": config.predictive_cleanup}
    if sampler is not None:
        sampler.stop()
        report["max_p_bucket_bytes"] = sampler.max_p_bucket_bytes
        report["p_bucket_bytes_at_end"] = sampler.last_p_bucket_bytes
    try:
        heap = read_table(run_dir / TABLE)
        if not heap.empty:
            report.update(memory(heap, span))
        # pandas' default float parser may miss a mean like 7/3 by an ulp; the checks are exact
        text = {"dtype": {"key": str}, "float_precision": "round_trip"}
        results = read_table(run_dir / "results.csv", **text)
        report.update(verdict(results, read_table(run_dir / "exact.csv", **text), config.predictive_cleanup > 0,
                              config.late_trigger != "watermark", config.workload),
                      staleness=staleness(results, config.staleness_bound))
    except Exception as error:  # noqa: BLE001 - the rows stay; the report says what it could not compute
        problems.append(f"late-state report: {one_line(error)}")
    write_json(run_dir / "late-state.json", report)
    return problems
