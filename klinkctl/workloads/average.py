"""average: the Aion paper's micro-benchmark (seed aion-late-events-esteves.txt §5; docs/late-state.md): the average
of random integers per word over tumbling event-time windows that accept late events for --allowed-lateness, with
the window state in Flink's window operator (heap, RocksDB, ForSt) or in AION's buckets (klinkctl.workloads.
late_windows, shared with bigrams). The generator's arguments and each window's exact result recomputed from the
input topic."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from pathlib import Path

import pandas as pd

from klinkctl.run.config import RunSpec
from klinkctl.workloads import common, late_windows

JAVA_BUILDER = "io.klink.workloads.late.AverageJob"
event_time = common.last_column_event_time  # w<key>,<value>[,<payload>],event_time
#: exact_results gets the generator's progress lines too: they move the watermark that drops late events.
READS_PROGRESS = True
#: A RESULT's fields, in order: LateWindowFunction.Average's, then LateResults.EXECUTION_FIELDS.
FIELDS = ["average", "sum", "count", *late_windows.EXECUTION_FIELDS]
#: The fields the final result must have exactly: the exact.csv column each is compared with.
CHECKS = {"sum": "sum", "count": "events"}

write_job_config = partial(late_windows.write_job_config, builder=JAVA_BUILDER)


def generator_args(config: RunSpec) -> list[str]:
    return ["--workload", "average", "--payload-bytes", str(config.payload_bytes)]


def exact_results(values: Iterable[bytes], config: RunSpec, run_dir: Path, window_offset_ms: int) -> pd.DataFrame:
    """Per window and key over every event of the input topic: exact = the average, events = the count, sum; and
    checked (late_windows.windowed)."""
    frame, checked = late_windows.windowed(late_windows.events(values), config, window_offset_ms)
    groups = frame.groupby(["window_end", "key"])
    table = pd.DataFrame({"sum": groups["value"].sum(), "events": groups.size()}).reset_index()
    table["exact"] = table["sum"] / table["events"]
    table = late_windows.with_checked(table, checked)
    return table[["window_end", "key", "exact", "events", "sum", "checked"]]


#: Per window: |final emitted sum − exact sum| + |count − exact count| over keys, relative to the exact total.
window_errors = late_windows.relative_errors(FIELDS, CHECKS, total="sum", count="count")
