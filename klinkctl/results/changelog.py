"""Window latency of a query whose output is a changelog, not fired windows (rides --combiner minibatch: Flink's
Table API mini-batch aggregation, docs/combiner.md "minibatch").

Such a query updates each (region, window) result at every mini-batch; no window fires, and Flink's
processing-time mini-batch assigner drops the event-time watermarks. Its output operator
(io.klink.metrics.ChangelogRecorder) records every update with the wall time it arrived there, and gets the
query's event-time watermarks by a branch of their own from the parse stage (where the other combiners' windows
get theirs); per window and flush it writes the time of the window's last update so far and when its sweeping
watermark (the first watermark at or past its last millisecond) arrived (updates.csv). After the run, once every
input event was processed, a window's last update is the one that made its result final, and:

    SWM latency = max(its last update's arrival, its SWM's arrival) at the output operator − the window's end

DESIGN.md §4's definition ("the window's output (and its SWM) processed at the output operator"), with the
window's output read as its last update. latency.csv gets one such row per window whose SWM arrived (``swm`` its
value; ``fired_at`` the last update's arrival, so ``fired_at − window_end`` is when the result was final at the
output, before anything downstream could know it), so summary, compare, sweep and report read it as any other
run's; a window whose SWM never arrived has no row (censored, as a window that never fired). With --accuracy
every update is a results.csv row (with ``output_at``); the final one per key stays there for error.csv, the
whole changelog moves to result-updates.csv. The last-update part applied to a windowed run's results
(:func:`result_latency`) gives its SWM latency back, within the time between a window's last result and its
firing summary at the output operator (tests/integration/test_minibatch_bench.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from klinkctl.results.tables import read_table
from klinkctl.run.collectors import LATENCY_COLUMNS

UPDATES_TABLE = "updates.csv"
RESULTS_TABLE = "results.csv"
RESULT_UPDATES_TABLE = "result-updates.csv"
WINDOW = ["query", "window_end"]


def applies(config: dict) -> bool:
    """Whether the run's output is a changelog (the rides workload's Table API mini-batch baseline)."""
    return config.get("workload") == "rides" and config.get("combiner") == "minibatch"


def window_latency(updates: pd.DataFrame, window_ms: int, warmup_until_ms: int | None) -> pd.DataFrame:
    """latency.csv's rows from updates.csv: per window its last row (the output operator writes them in time
    order: the last has its last update, its keys and events, and its SWM), windows without an SWM left out."""
    if updates.empty:
        return pd.DataFrame(columns=LATENCY_COLUMNS)
    last = updates.drop_duplicates(WINDOW, keep="last")
    last = last[last["swm_at"] >= 0].sort_values(WINDOW).reset_index(drop=True)
    end = last["window_end"].astype(np.int64)
    final_at = last["updated_at"].astype(np.int64)
    output_at = np.maximum(final_at, last["swm_at"].astype(np.int64))
    return pd.DataFrame({
        "run": last["run"], "policy": last["policy"], "query": last["query"],
        "window_start": end - int(window_ms), "window_end": end, "swm": last["swm"].astype(np.int64),
        "fired_at": final_at, "output_at": output_at, "swm_latency_ms": output_at - end,
        "keys": last["keys"].astype(np.int64), "events": last["events"].astype(np.int64), "late_dropped": 0,
        "warmup": end < warmup_until_ms if warmup_until_ms is not None else False,
    })[LATENCY_COLUMNS]


def final_results(result_updates: pd.DataFrame) -> pd.DataFrame:
    """Each key's last result of each window (the changelog's updates in the order the output operator got them)."""
    if result_updates.empty:
        return result_updates
    return result_updates.drop_duplicates([*WINDOW, "key"], keep="last").reset_index(drop=True)


def result_latency(results: pd.DataFrame) -> pd.DataFrame:
    """Per window (query, window_end): when its last key result reached the output operator (``output_at``) and
    that less the window's end (``latency_ms``): the changelog's definition, applicable to any run's results.csv."""
    if results.empty:
        return pd.DataFrame(columns=[*WINDOW, "output_at", "latency_ms"])
    last = results.groupby(WINDOW, as_index=False)["output_at"].max()
    last["latency_ms"] = last["output_at"] - last["window_end"]
    return last


def write_tables(run_dir: Path, window_ms: int, warmup_until_ms: int | None) -> None:
    """latency.csv from updates.csv; with results, results.csv reduced to the final results (the changelog kept
    in result-updates.csv). Safe to run twice: the changelog is read from result-updates.csv once it exists."""
    window_latency(read_table(run_dir / UPDATES_TABLE), window_ms, warmup_until_ms).to_csv(
        run_dir / "latency.csv", index=False)
    results, changelog = run_dir / RESULTS_TABLE, run_dir / RESULT_UPDATES_TABLE
    if not results.is_file():
        return
    if not changelog.is_file():
        results.rename(changelog)
    final_results(read_table(changelog, dtype={"key": str})).to_csv(results, index=False)
