"""What the late-event workloads (docs/late-state.md: the Aion paper's micro-benchmarks `average`, `bigrams`, and
`lrb-segments`) share: their job config (io.klink.workloads.late.LateWindowJob.Config), their events read back from
the input topic (by default `w<key>,<value>[,<payload>],event_time`), which windows no watermark can have dropped an
event from (those are checked), and each window's final emitted result against the exact one. A workload module
adds its window function's exact recomputation, its RESULT `FIELDS` (LateWindowFunction.fields +
LateResults.EXECUTION_FIELDS) and `CHECKS`: which of them must equal which exact.csv column."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from klinkctl.results import accuracy
from klinkctl.run.config import RunSpec
from klinkctl.workloads import common

#: io.klink.workloads.late.LateResults.EXECUTION_FIELDS: a RESULT's fields after the window function's.
EXECUTION_FIELDS = ["execution", "late_accepted"]


def write_job_config(plan_: common.Plan, config: RunSpec, bootstrap: str, run_dir: Path, builder: str) -> Path:
    # AION's p-buckets go to each TaskManager's own temp dirs, under the run id (late.PBucketDirectory)
    return common.write_job_config(run_dir, common.job_config(
        plan_, config, bootstrap, builder, lateState=config.late_state,
        allowedLatenessMs=config.allowed_lateness_ms, mBucketEvents=config.m_bucket_events, rhoMin=config.rho_min,
        lateTrigger=config.late_trigger, stalenessBound=config.staleness_bound, lateExecutions=config.late_executions,
        cleanupCoverage=config.predictive_cleanup, prestaging=config.prestaging,
        destageIdleMs=config.destage_idle_ms, destageScarce=config.destage_scarce,
        destageVeryScarce=config.destage_very_scarce, destageOrder=config.destage_order))


#: An event line's columns -> (key, value, event time, payload), as the workload's Java parse reads them; None if
#: the line is not an event of the workload, ValueError if a column is malformed (either way it is left out).
Columns = Callable[[list[bytes]], tuple[str, float, int, bytes] | None]


def word_event(c: list[bytes]) -> tuple[str, float, int, bytes] | None:
    """`w<key>,<value>[,<payload>],event_time` (io.klink.workloads.late.LateWindowJob.Parse)."""
    if len(c) not in (3, 4) or not c[0].startswith(b"w"):
        return None
    return c[0].decode(), float(c[1]), int(c[-1]), c[2] if len(c) == 4 else b""


def events(values: Iterable[bytes], payload: bool = False, columns: Columns = word_event) -> pd.DataFrame:
    """key, value, event_time (and with `payload` the payload's bytes) of every well-formed event (`columns` reads
    one), in topic order (the order Flink's source reads); the generator's `#progress,<event time>` lines as rows
    with no key (they only move the watermark)."""
    rows: list[tuple] = []
    for value in values:
        c = value.split(b",")
        if len(c) == 2 and c[0] == b"#progress" and c[1].isdigit():
            rows.append((None, np.nan, int(c[1]), b""))
            continue
        try:
            event = columns(c)
        except ValueError:
            continue
        if event is not None:
            rows.append(event if payload else (*event[:3], b""))  # not every payload held until the frame is made
    frame = pd.DataFrame(rows, columns=["key", "value", "event_time", "payload"])
    return frame if payload else frame.drop(columns="payload")


def surely_accepted(event_times: np.ndarray, window_ends: np.ndarray, bound_ms: int, lateness_ms: int) -> np.ndarray:
    """Per event (topic order): True if no watermark can have dropped it. When an event is read, Flink's watermark
    is at most (the largest event time read before it) − B − 1, and an event is dropped once its window's
    end − 1 + L ≤ watermark (AION drops by the same rule); so an event with max_prior − B < end + L is surely
    accepted."""
    prior = np.maximum.accumulate(np.concatenate(([np.iinfo(np.int64).min + bound_ms], event_times[:-1])))
    return prior - bound_ms < window_ends + lateness_ms


def windowed(frame: pd.DataFrame, config: RunSpec, window_offset_ms: int) -> tuple[pd.DataFrame, pd.Series]:
    """The events (progress rows left out) with their window_end, and per window `checked`: the window surely
    fired and every one of its events was surely accepted (its final result must then equal the exact one)."""
    times = frame["event_time"].to_numpy(dtype=np.int64)
    ends = times - np.mod(times - window_offset_ms, config.window_ms) + config.window_ms
    accepted = surely_accepted(times, ends, config.watermark_bound_ms, config.allowed_lateness_ms) if len(frame) \
        else np.zeros(0, dtype=bool)
    # a window surely fires only if the last watermark, (largest event time read) − B − 1, reaches its end − 1
    last = int(times.max()) if len(times) else 0
    frame = frame.assign(window_end=ends, accepted=accepted).dropna(subset=["key"])
    all_accepted = frame.groupby("window_end")["accepted"].all()
    checked = (all_accepted & (all_accepted.index <= last - config.watermark_bound_ms)).rename("checked")
    return frame, checked


def with_checked(table: pd.DataFrame, checked: pd.Series) -> pd.DataFrame:
    """The exact table (per window_end and key) with its window's `checked` column."""
    return table.merge(checked.reset_index(), on="window_end", how="left")


def final_results(results: pd.DataFrame, fields: list[str]) -> pd.DataFrame:
    """Each window's and key's last execution (query, window_end, key and the RESULT's `fields`); the rows of
    reserved keys (#dropped, #aion, #staleness) left out."""
    rows = results[~results["key"].astype(str).str.startswith("#")] if not results.empty else results
    if rows.empty:
        return pd.DataFrame(columns=[*accuracy.WINDOW, "key", *fields])
    values = pd.DataFrame(accuracy.result_fields(rows)[:, :len(fields)], columns=fields, index=rows.index)
    table = pd.concat([rows[[*accuracy.WINDOW, "key"]], values], axis=1)
    return table.sort_values("execution", kind="stable").groupby([*accuracy.WINDOW, "key"], as_index=False).last()


def compared(results: pd.DataFrame, exact: pd.DataFrame, fields: list[str], checks: dict[str, str]) -> pd.DataFrame:
    """Per window and key (outer join): each checked field's final emitted value beside its exact one
    (`exact_<field>`, from exact.csv's column `checks[field]`), late_accepted and the window's `checked`."""
    mine = final_results(results, fields)[[*accuracy.WINDOW, "key", *checks, "late_accepted"]]
    truth = exact.assign(**{f"exact_{field}": exact[column].astype(float) for field, column in checks.items()})
    keys = mine.merge(truth[[*accuracy.WINDOW, "key", *(f"exact_{f}" for f in checks), "checked"]],
                      on=[*accuracy.WINDOW, "key"], how="outer")
    return keys.fillna({name: 0.0 for field in checks for name in (field, f"exact_{field}")})


def equal(keys: pd.DataFrame, checks: dict[str, str]) -> pd.Series:
    """Per row of `compared`: every checked field equals its exact value."""
    return np.logical_and.reduce([keys[field] == keys[f"exact_{field}"] for field in checks])


def relative_errors(fields: list[str], checks: dict[str, str], total: str, count: str) -> accuracy.WindowErrors:
    """Per window: the sum over keys of |final emitted `total` − exact| + |emitted `count` − exact|, relative to the
    exact total (0 = equal); `count` is the events."""
    def window_errors(results: pd.DataFrame, exact: pd.DataFrame) -> pd.DataFrame:
        keys = compared(results, exact, fields, checks)
        keys["abs_error"] = (keys[total] - keys[f"exact_{total}"]).abs() + (keys[count] - keys[f"exact_{count}"]).abs()
        per_window = keys.groupby(accuracy.WINDOW).agg(
            exact_total=(f"exact_{total}", "sum"), abs_error=("abs_error", "sum"),
            exact_events=(f"exact_{count}", "sum"), exact_keys=(f"exact_{count}", lambda x: int((x > 0).sum())),
            emitted_keys=(count, lambda x: int((x > 0).sum()))).reset_index()
        per_window["relative_error"] = accuracy.divide(per_window["abs_error"], per_window["exact_total"])
        return per_window[accuracy.WINDOW_ERROR_COLUMNS]
    return window_errors
