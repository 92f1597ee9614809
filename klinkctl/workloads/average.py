"""average: the Aion paper's micro-benchmark (seed aion-late-events-esteves.txt §5; docs/late-state.md): the average
of random integers per word over tumbling event-time windows that accept late events for --allowed-lateness, with
the window state in Flink's window operator (heap, RocksDB, ForSt) or in AION's buckets. The job config, the
generator's arguments, and each window's exact result recomputed from the input topic."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from klinkctl.results import accuracy
from klinkctl.run.config import RunSpec
from klinkctl.workloads import common

JAVA_BUILDER = "io.klink.workloads.late.AverageJob"
event_time = common.last_column_event_time  # w<key>,<value>[,<payload>],event_time
#: exact_results gets the generator's progress lines too: they move the watermark that drops late events.
READS_PROGRESS = True
#: io.klink.workloads.late.LateResults.FIELDS: a RESULT's fields, in order.
FIELDS = ["average", "sum", "count", "execution", "late_accepted"]


def write_job_config(plan_: common.Plan, config: RunSpec, bootstrap: str, run_dir: Path) -> Path:
    # AION's p-buckets go to each TaskManager's own temp dirs, under the run id (late.PBucketDirectory)
    return common.write_job_config(run_dir, common.job_config(
        plan_, config, bootstrap, JAVA_BUILDER, lateState=config.late_state,
        allowedLatenessMs=config.allowed_lateness_ms, mBucketEvents=config.m_bucket_events, rhoMin=config.rho_min,
        lateTrigger=config.late_trigger, stalenessBound=config.staleness_bound,
        cleanupCoverage=config.predictive_cleanup, prestaging=config.prestaging,
        destageIdleMs=config.destage_idle_ms, destageScarce=config.destage_scarce,
        destageVeryScarce=config.destage_very_scarce, destageOrder=config.destage_order))


def generator_args(config: RunSpec) -> list[str]:
    return ["--workload", "average", "--payload-bytes", str(config.payload_bytes)]


def events(values: Iterable[bytes]) -> pd.DataFrame:
    """key, value, event_time of every well-formed event (a payload, if any, left out), in topic order (the order Flink's source reads); the
    generator's `#progress,<event time>` lines as rows with no key (they only move the watermark)."""
    rows: list[tuple] = []
    for value in values:
        c = value.split(b",")
        if len(c) == 2 and c[0] == b"#progress" and c[1].isdigit():
            rows.append((None, np.nan, int(c[1])))
        if len(c) not in (3, 4) or not c[0].startswith(b"w"):
            continue
        try:
            rows.append((c[0].decode(), float(c[1]), int(c[-1])))
        except ValueError:
            continue
    return pd.DataFrame(rows, columns=["key", "value", "event_time"])


def surely_accepted(event_times: np.ndarray, window_ends: np.ndarray, bound_ms: int, lateness_ms: int) -> np.ndarray:
    """Per event (topic order): True if no watermark can have dropped it. When an event is read, Flink's watermark
    is at most (the largest event time read before it) − B − 1, and an event is dropped once its window's
    end − 1 + L ≤ watermark (AION drops by the same rule); so an event with max_prior − B < end + L is surely
    accepted."""
    prior = np.maximum.accumulate(np.concatenate(([np.iinfo(np.int64).min + bound_ms], event_times[:-1])))
    return prior - bound_ms < window_ends + lateness_ms


def exact_results(values: Iterable[bytes], config: RunSpec, run_dir: Path, window_offset_ms: int) -> pd.DataFrame:
    """Per window and key over every event of the input topic: exact = the average, events = the count, sum; and
    checked = the window surely fired and every one of its events was surely accepted (its final result must then
    equal this one)."""
    frame = events(values)
    times = frame["event_time"].to_numpy(dtype=np.int64)
    ends = times - np.mod(times - window_offset_ms, config.window_ms) + config.window_ms
    accepted = surely_accepted(times, ends, config.watermark_bound_ms, config.allowed_lateness_ms) if len(frame) \
        else np.zeros(0, dtype=bool)
    # a window surely fires only if the last watermark, (largest event time read) − B − 1, reaches its end − 1
    last = int(times.max()) if len(times) else 0
    frame = frame.assign(window_end=ends, accepted=accepted).dropna(subset=["key"])
    all_accepted = frame.groupby("window_end")["accepted"].all()
    checked = (all_accepted & (all_accepted.index <= last - config.watermark_bound_ms)).rename("checked")
    groups = frame.groupby(["window_end", "key"])
    table = pd.DataFrame({"sum": groups["value"].sum(), "events": groups.size()}).reset_index()
    table["exact"] = table["sum"] / table["events"]
    table = table.merge(checked.reset_index(), on="window_end", how="left")
    return table[["window_end", "key", "exact", "events", "sum", "checked"]]


def final_results(results: pd.DataFrame) -> pd.DataFrame:
    """Each window's and key's last execution (query, window_end, key, sum, count, execution, late_accepted); the
    rows of reserved keys (#dropped, #aion) left out."""
    rows = results[~results["key"].astype(str).str.startswith("#")] if not results.empty else results
    if rows.empty:
        return pd.DataFrame(columns=[*accuracy.WINDOW, "key", *FIELDS[1:]])
    fields = pd.DataFrame(accuracy.result_fields(rows)[:, :len(FIELDS)], columns=FIELDS, index=rows.index)
    table = pd.concat([rows[[*accuracy.WINDOW, "key"]], fields], axis=1)
    last = table.sort_values("execution", kind="stable").groupby([*accuracy.WINDOW, "key"], as_index=False).last()
    return last[[*accuracy.WINDOW, "key", "sum", "count", "execution", "late_accepted"]]


def compared(results: pd.DataFrame, exact: pd.DataFrame) -> pd.DataFrame:
    """Per window and key (outer join): the final emitted sum and count beside the exact ones."""
    mine = final_results(results)
    truth = exact.assign(exact_sum=exact["sum"].astype(float), exact_count=exact["events"].astype(float))
    keys = mine.merge(truth[[*accuracy.WINDOW, "key", "exact_sum", "exact_count", "checked"]],
                      on=[*accuracy.WINDOW, "key"], how="outer")
    return keys.fillna({"sum": 0.0, "count": 0.0, "exact_sum": 0.0, "exact_count": 0.0})


def window_errors(results: pd.DataFrame, exact: pd.DataFrame) -> pd.DataFrame:
    """Per window: sum over keys of |final emitted sum − exact sum| relative to the exact total (0 = equal)."""
    keys = compared(results, exact)
    keys["abs_error"] = (keys["sum"] - keys["exact_sum"]).abs() + (keys["count"] - keys["exact_count"]).abs()
    per_window = keys.groupby(accuracy.WINDOW).agg(
        exact_total=("exact_sum", "sum"), abs_error=("abs_error", "sum"), exact_events=("exact_count", "sum"),
        exact_keys=("exact_count", lambda x: int((x > 0).sum())),
        emitted_keys=("count", lambda x: int((x > 0).sum()))).reset_index()
    per_window["relative_error"] = accuracy.divide(per_window["abs_error"], per_window["exact_total"])
    return per_window[accuracy.WINDOW_ERROR_COLUMNS]
