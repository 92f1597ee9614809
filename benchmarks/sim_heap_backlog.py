"""Where a simulated sweep's backlog waits: per cell of one or more `mode: simulate` sweeps (docs/simulator.md, "A window
that costs more than its source"), the latency figures `klinkctl compare` gives (cells.csv) next to what decides
them: the sources' and the windows' throughput, the records queued between tasks, the heap over time and Klink's
memory-mode cycles.

The heap per second is rebuilt from throughput.csv: base + (records the sources emitted − records the windows took)
× record bytes over the heap (window state, 100 B per key of an open window, left out: < 0.01 of the heap here).
In credit mode the queued records are off-heap (the heap stays at its base). Unlike the simulator's own
memory_used (scheduler.csv, Klink's runs only), it is not capped at 1.

    .venv/bin/python benchmarks/sim_heap_backlog.py results/sim-fig6a-heap-backlog-<time> [more sweep dirs]

It needs the runs' throughput.csv, which `klinkctl archive` leaves out: the archived sweeps in docs/data hold this
script's output as heap-backlog.txt.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd

from klinkctl.results.groups import paired_ratio_interval
from klinkctl.sim.spec import BASE_HEAP_FRACTION as BASE_HEAP

#: The settings a cell is told apart by, besides the variant, when a sweep's grid has them.
AXES = ("queries", "queues", "heap-mb", "window-cost-scale", "cost-scale", "gc-pressure")
MIB = 1 << 20


def run_series(run_dir: Path) -> dict:
    """One run: throughputs, queued records and heap per simulated second, Klink's memory figures."""
    summary = json.loads((run_dir / "summary.json").read_text())
    model = summary["model"]
    rows = pd.read_csv(run_dir / "throughput.csv")
    rows["role"] = rows["job_vertex"].str.split("/").str[1]
    per_s = rows.groupby(["time", "role"])[["records_in_per_s", "records_out_per_s"]].sum().unstack()
    queued = (per_s["records_out_per_s"]["source"] - per_s["records_in_per_s"]["window"]).cumsum()
    on_heap = model["queues"] == "heap"
    heap = BASE_HEAP + (queued * model["record_bytes"] / (model["heap_mb"] * MIB) if on_heap else 0 * queued)
    generated = per_s.index[:12]
    scheduler = summary.get("scheduler") or {}
    return {"heap": heap.to_numpy(), "queued": queued.to_numpy(),
            "source_events_per_s": summary["throughput"]["flink_source_records_per_s"],
            "window_records_per_s": per_s["records_in_per_s"]["window"].loc[generated].mean(),
            "memory_mode": scheduler.get("memory_mode_cycle_fraction"),
            "memory_used_max": scheduler.get("memory_used_max")}


def latencies(sweep: Path, runs: pd.DataFrame) -> dict[str, dict[int, float]]:
    """Per statistic (mean, p99): the SWM latency of each run, by seed."""
    out: dict[str, dict[int, float]] = {"mean": {}, "p99": {}}
    for seed, run_dir in zip(runs["seed"], runs["run_dir"]):
        swm = json.loads((sweep / run_dir / "summary.json").read_text())["swm_latency_ms"]
        for name in out:
            out[name][int(seed)] = swm[name]
    return out


def reference_runs(reference: Path | None, queues: str) -> dict[str, dict[int, float]] | None:
    """Default's runs of another sweep of the same machine (same seeds), in the same queue mode."""
    if reference is None:
        return None
    index = pd.read_csv(reference / "index.csv")
    runs = index[(index["variant"] == "default") & (index["queues"] == queues)]
    return latencies(reference, runs)


def describe(sweep: Path, reference: Path | None) -> None:
    index = pd.read_csv(sweep / "index.csv")
    cells = pd.read_csv(sweep / "cells.csv")
    axes = [a for a in AXES if a in index.columns]
    print(f"== {sweep.name} (SIMULATED)")
    for key, runs in index.groupby(["variant", *axes] if "variant" in index else axes, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        cell = cells
        for name, value in zip(["variant", *axes] if "variant" in index else axes, key):
            column = name if name in cell else name.replace("-", "_")
            if column in cell:
                cell = cell[cell[column].astype(str) == str(value)]
        c = cell.iloc[0]
        series = [run_series(sweep / d) for d in runs["run_dir"]]
        heap = np.mean([s["heap"][:14] for s in series], axis=0)
        queued = np.mean([s["queued"][:14] for s in series], axis=0)
        mm = [s["memory_mode"] for s in series if s["memory_mode"] is not None]
        mem = [s["memory_used_max"] for s in series if s["memory_used_max"] is not None]
        print(f"{' '.join(map(str, key))}: mean {c.mean_ms:.0f} [{c.mean_ci_low:.0f}-{c.mean_ci_high:.0f}] "
              f"p99 {c.p99_ms:.0f} [{c.p99_ci_low:.0f}-{c.p99_ci_high:.0f}] ms; x ref mean {_ci(c, 'ratio')} "
              f"p99 {_ci(c, 'p99_ratio')} paired {_ci(c, 'paired_ratio')}")
        default = reference_runs(reference, str(runs["queues"].iloc[0]) if "queues" in runs else "heap")
        if default is not None:
            own = latencies(sweep, runs)
            paired = {name: paired_ratio_interval(default[name], own[name]) for name in own}
            print(f"  x Default of {reference.name} (paired by seed): mean "
                  + " / p99 ".join(f"{r:.3f} [{lo:.3f}-{hi:.3f}]" for r, lo, hi, _ in paired.values()))
        print(f"  sources {np.mean([s['source_events_per_s'] for s in series]):.0f} events/s (measured span), windows "
              f"{np.mean([s['window_records_per_s'] for s in series]):.0f} records/s (s 1-12); memory mode "
              f"{np.mean(mm) if mm else float('nan'):.3f} of cycles, memory_used max "
              f"{np.mean(mem) if mem else float('nan'):.3f}")
        print("  heap at s 1..14: " + " ".join(f"{v:.2f}" for v in heap))
        print("  queued between tasks, k records: " + " ".join(f"{v / 1e3:.0f}" for v in queued))


def _ci(cell: pd.Series, name: str) -> str:
    value, low, high = cell.get(name), cell.get(f"{name}_ci_low"), cell.get(f"{name}_ci_high")
    if value is None or pd.isna(value):
        return "-"
    return f"{value:.3f}" + (f" [{low:.3f}-{high:.3f}]" if pd.notna(low) and pd.notna(high) else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sweeps", nargs="+", type=Path)
    parser.add_argument("--reference", type=Path, help="a sweep whose Default runs (same seeds, same queue mode) "
                        "each cell is paired with, for sweeps without Default (the heap scan)")
    args = parser.parse_args()
    for sweep in args.sweeps:
        describe(sweep, args.reference)


if __name__ == "__main__":
    main()
