"""Per run and per variant: when the agent's scheduler cycles started and how long they took (scheduler.csv,
summary.json), for the directories benchmarks/scheduler_thread_timing.sh writes (one subdirectory per variant).

    .venv/bin/python benchmarks/scheduler_thread_timing.py docs/data/scheduler-thread-pause-20261126-044244
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd


def run_row(variant: str, run: Path) -> dict:
    summary = json.loads((run / "summary.json").read_text())
    overhead = summary.get("scheduler") or {}
    cycles = pd.read_csv(run / "scheduler.csv")
    cycles = cycles[cycles["tasks"] > 0]
    return {"variant": variant, "run": run.name, "status": summary["status"],
            "mean_swm_ms": summary["swm_latency_ms"]["mean"],
            "sources_read_per_s": summary["throughput"]["flink_source_records_per_s"],
            "cycle_wall_p50_ms": cycles["cycle_ns"].quantile(0.5) / 1e6,
            "cycle_wall_p99_ms": cycles["cycle_ns"].quantile(0.99) / 1e6,
            "interval_p99_ms": overhead.get("p99_cycle_interval_ms"),
            "interval_beyond_gc_p99_ms": overhead.get("p99_cycle_interval_beyond_gc_ms"),
            "gc_stall_fraction": overhead.get("gc_stall_fraction")}


def main(directory: Path) -> None:
    rows = [run_row(variant.name, run) for variant in sorted(p for p in directory.iterdir() if p.is_dir())
            for run in sorted(p for p in variant.iterdir() if (p / "summary.json").is_file())]
    table = pd.DataFrame(rows)
    pd.set_option("display.width", 250)
    print(table.round(2).to_string(index=False))
    figures = ["cycle_wall_p50_ms", "cycle_wall_p99_ms", "interval_p99_ms", "interval_beyond_gc_p99_ms",
               "gc_stall_fraction"]
    print(table.groupby("variant")[figures].agg(["min", "mean", "max"]).round(2).to_string())


if __name__ == "__main__":
    main(Path(sys.argv[1]))
