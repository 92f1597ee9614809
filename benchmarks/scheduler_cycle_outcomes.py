"""What each kind of scheduler cycle got done, per run: light cycles (nothing paused) against selection cycles (the
policy chose C pipelines). A row of scheduler.csv carries in `source_records_in` and `task_cpu_ns` what the
*previous* row's choice got done, so each choice is paired with the next row's counters.

    .venv/bin/python benchmarks/scheduler_cycle_outcomes.py docs/data/diag-16q-20261127-142228/ysb-klink-*

Columns: cycles, records the sources read per cycle, task CPU per cycle (ms), the share of cycles in which the
sources read fewer than 50 records, and the mean cycle length (ms).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd

FEW_RECORDS = 50


def outcomes(run_dir: Path) -> pd.DataFrame:
    cycles = pd.read_csv(run_dir / "scheduler.csv")
    cycles = cycles[cycles["tasks"] > 0].reset_index(drop=True)
    done = pd.DataFrame({
        "mode": cycles["why"].fillna("").str.startswith("light").map({True: "light", False: "select"}),
        "records": cycles["source_records_in"].shift(-1),
        "task_cpu_ms": cycles["task_cpu_ns"].shift(-1) / 1e6,
        "length_ms": cycles["time"].shift(-1) - cycles["time"],
    }).dropna()
    return done.groupby("mode").agg(cycles=("records", "size"), records_per_cycle=("records", "mean"),
                                    task_cpu_ms_per_cycle=("task_cpu_ms", "mean"),
                                    few_records=("records", lambda r: (r < FEW_RECORDS).mean()),
                                    length_ms=("length_ms", "mean"))


def main(run_dirs: list[str]) -> None:
    for run_dir in map(Path, run_dirs):
        summary = json.loads((run_dir / "summary.json").read_text())
        print(f"{run_dir.name}: {summary['policy']}, mean SWM latency {summary['swm_latency_ms']['mean']:.0f} ms")
        print(outcomes(run_dir).round(2).to_string(), end="\n\n")


if __name__ == "__main__":
    main(sys.argv[1:])
