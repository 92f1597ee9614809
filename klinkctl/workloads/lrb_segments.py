"""lrb-segments: Linear Road's segment statistics with late events (docs/workloads.md, docs/late-state.md), the AION
paper's LRB window (seed aion-late-events-esteves.txt §5): lrb's position reports (the same generator arguments,
klinkctl.workloads.lrb) keyed by segment `xway.dir.seg`, per key and tumbling window the reports, the distinct
vehicles and the mean of the reports' speeds, in the late-event windows of `average` (klinkctl.workloads.
late_windows). Each window's exact statistics recomputed from the input topic."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from pathlib import Path

import pandas as pd

from klinkctl.run.config import RunSpec
from klinkctl.workloads import common, late_windows, lrb

JAVA_BUILDER = "io.klink.workloads.late.LrbSegmentsJob"
event_time = common.last_column_event_time  # appended after the LR position report
generator_args = lrb.generator_args  # lrb's reports: its expressways and accidents
#: exact_results gets the generator's progress lines too: they move the watermark that drops late events.
READS_PROGRESS = True
#: LrbSegmentsJob.SegmentStatistics.fields, then LateResults.EXECUTION_FIELDS.
STATISTICS = ["reports", "vehicles", "average_speed"]
FIELDS = [*STATISTICS, *late_windows.EXECUTION_FIELDS]
#: Every statistic must be exact (exact.csv has the reports as `events`; speeds are whole mph, so their sums are
#: exact in a double, and the mean is one division on either side).
CHECKS = {"reports": "events", "vehicles": "vehicles", "average_speed": "average_speed"}

write_job_config = partial(late_windows.write_job_config, builder=JAVA_BUILDER)


def report(c: list[bytes]) -> tuple[str, float, int, bytes] | None:
    """A position report `0,time_s,vid,speed,xway,lane,dir,seg,pos,event_time` as LrbSegmentsJob.Parse reads it
    (columns 2-8 whole numbers): key = its segment, value = its speed, payload = its vehicle id."""
    if len(c) != 10 or c[0] != b"0":
        return None
    vid, speed, xway, _lane, direction, segment, _pos = (int(column) for column in c[2:9])
    return f"{xway}.{direction}.{segment}", float(speed), int(c[9]), b"%d" % vid


def exact_results(values: Iterable[bytes], config: RunSpec, run_dir: Path, window_offset_ms: int) -> pd.DataFrame:
    """Per window and segment over every report of the input topic: events = the reports, vehicles (distinct ids),
    average_speed (= exact); and checked (late_windows.windowed)."""
    frame, checked = late_windows.windowed(late_windows.events(values, payload=True, columns=report), config,
                                           window_offset_ms)
    groups = frame.groupby(["window_end", "key"])
    table = pd.DataFrame({"events": groups.size(), "vehicles": groups["payload"].nunique(),
                          "speeds": groups["value"].sum()}).reset_index()
    table["average_speed"] = table["speeds"] / table["events"]
    table = late_windows.with_checked(table.assign(exact=table["average_speed"]), checked)
    return table[["window_end", "key", "exact", "events", "vehicles", "average_speed", "checked"]]


#: Per window: |final emitted vehicles − exact| + |reports − exact reports| over segments, relative to the exact
#: vehicles.
window_errors = late_windows.relative_errors(FIELDS, CHECKS, total="vehicles", count="reports")
