"""Which windows a run must fire, and which it did not: the exact expectation behind censoring.

A query's windows end at ``(offset + window) mod period`` (period = the slide of sliding windows, the size of
tumbling ones; the Java windows, e.g. SlidingAggregateWindows, align them so). A run measures the windows whose
end lies in ``[end of warm-up, end of generation]`` (results.tables.measured_rows); with the generator's
progress records after its last event every one of them fires, so a missing one was censored: it never fired
before collection stopped (an overload's backlog not worked off in time).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

#: Workloads whose every window holds events at any rate the generator offers, so each expected window fires.
#: LRB's toll windows fire only for segments with enough cars (tollMinCars): their count is not known ahead.
EXACT_WORKLOADS = ("ysb", "nyt", "kmeans")


def firing_period_ms(config: dict) -> int:
    """The time between two window ends of one query (the slide of sliding windows)."""
    return int(config.get("slide_ms") or config["window_ms"])


def expected_ends(offset_ms: int, window_ms: int, period_ms: int, first_ms: int, last_ms: int) -> np.ndarray:
    """Every window end e with first_ms ≤ e ≤ last_ms of a query whose windows start at offset_ms (mod period)."""
    phase = (offset_ms + window_ms) % period_ms
    first = first_ms + (phase - first_ms) % period_ms
    return np.arange(first, last_ms + 1, period_ms, dtype=np.int64)


def query_offsets(run_dir: Path) -> dict[str, int]:
    """Each query's window offset, from the job config the run submitted (job-config.json)."""
    path = run_dir / "job-config.json"
    if not path.is_file():
        return {}
    return {q["id"]: int(q["windowOffsetMs"]) for q in json.loads(path.read_text()).get("queries", [])}


def expected_by_query(config: dict, offsets: dict[str, int], span: tuple[int, int]) -> dict[str, np.ndarray]:
    """The measured windows each query must fire (their ends), for workloads whose count is exact; else {}."""
    if config.get("workload") not in EXACT_WORKLOADS or not config.get("window_ms"):
        return {}
    period = firing_period_ms(config)
    return {query: expected_ends(offset, int(config["window_ms"]), period, *span)
            for query, offset in sorted(offsets.items())}


def censored_by_query(expected: dict[str, np.ndarray], fired: pd.DataFrame) -> dict[str, int]:
    """Per query, how many expected windows have no firing row (``fired``: query, window_end)."""
    censored = {}
    for query, ends in expected.items():
        seen = fired.loc[fired["query"] == query, "window_end"] if not fired.empty else pd.Series(dtype=np.int64)
        censored[query] = int(np.setdiff1d(ends, seen.to_numpy(dtype=np.int64)).size)
    return censored
