"""`klinkctl archive`: the small files behind a figure, copied out of git-ignored results/ into a directory
that can be committed (docs/data/), so a table in docs/ stays traceable after the machine is gone.

Kept: what `compare`, `report`'s tables and the sweep's cell table read (summaries, per-window latency,
validity inputs, configs, indexes). Left out: the raw streams the summaries were computed from (markers,
watermarks, throughput, window results), which are 10-20 times larger; they stay in results/.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from klinkctl.errors import KlinkError

ARCHIVED_FILES = frozenset({
    # a sweep's or a capacity search's own files
    "sweep.yaml", "index.csv", "cells.csv", "capacity.json", "restarts.csv",
    # a run's: what compare, validity and the cell table read
    "config.yaml", "job-config.json", "summary.json", "latency.csv", "drain.json",
    "generator-summary.json", "generator.csv", "resources.csv", "estimator.csv", "error.csv", "sampling.csv",
    "tasks.csv", "sim.json", "scheduler.csv",  # a simulated run's sim-spec.json is made again from its config.yaml
    # per-record runs: the sinks' histograms (report's percentile curves), per second, where tasks ran, and the
    # feedback channel (the balancers' shares, the replay timeouts)
    "record-latency.csv", "record-percentiles.csv", "placement.csv", "feedback.csv",
    # the rides workload: the combiner's controller decisions and buffer use per period, and minibatch's window
    # updates and sweeping watermarks, which its latency.csv is made from (docs/combiner.md)
    "combiner.csv", "updates.csv",
    # the average workload: heap, GC time and p-bucket bytes per second, and the late-state report (late-state.md)
    "late-state.csv", "late-state.json",
})


@dataclass
class Archived:
    files: int = 0
    bytes: int = 0
    runs: int = 0
    left_out: set[str] = field(default_factory=set)


def archive(source: Path, destination_root: Path) -> tuple[Path, Archived]:
    """Copy ``source`` (a sweep, capacity or run directory) to ``destination_root/<source name>/``, keeping
    the directory layout and only ``ARCHIVED_FILES``. Refuses to overwrite an existing archive."""
    if not source.is_dir():
        raise KlinkError(f"{source}: not a directory; give a sweep, capacity or run directory under results/")
    if not any(path.name in ("summary.json", "index.csv", "capacity.json") for path in source.rglob("*")):
        raise KlinkError(f"{source}: no summary.json, index.csv or capacity.json in it; "
                         "give a sweep, capacity or run directory")
    destination = destination_root / source.resolve().name
    if destination.exists():
        raise KlinkError(f"{destination} exists already; remove it first or pass another --to")
    tally = Archived()
    for path in sorted(source.rglob("*")):
        if not path.is_file():
            continue
        if path.name not in ARCHIVED_FILES:
            tally.left_out.add(path.name)
            continue
        target = destination / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
        tally.files += 1
        tally.bytes += path.stat().st_size
        tally.runs += path.name == "summary.json"
    return destination, tally
