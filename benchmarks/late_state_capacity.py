"""Summarise the capacity searches of benchmarks/late_state_capacity.sh: per late state, every search's
sustainable rate and the lowest rate it found unsustainable, their mean with a t interval across searches, and
each state's capacity against the first state's (a two-sample bootstrap CI of the ratio of means). Then what the
probes at one rate measured (every state was probed there): live heap, heap used, GC share, TaskManager CPU and
resident memory, and SWM latency per run.

    .venv/bin/python benchmarks/late_state_capacity.py docs/data --converged [--at 10000]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd

from capacity_rounds import search_row  # beside this script
from klinkctl.results.stats import compare_samples, t_interval
from klinkctl.results.sweep_table import taskmanager_cpu_percent
from klinkctl.results.tables import read_table

MIB = 2 ** 20


LATE_WORKLOADS = ("average", "bigrams")


def late_searches(root: Path) -> list[tuple[Path, dict]]:
    found = ((path, json.loads(path.read_text())) for path in sorted(root.glob("capacity-*/capacity.json")))
    return [(path, capacity) for path, capacity in found if capacity["workload"] in LATE_WORKLOADS]


def variant(config: dict) -> str:
    """The late state, and -scarce for AION with its global destaging policies (late_state_capacity.sh)."""
    return config["late_state"] + ("-scarce" if config.get("destage_scarce") else "")


def searches(root: Path) -> pd.DataFrame:
    rows = []
    for path, capacity in late_searches(root):
        rows.append({"state": variant(capacity["config"]), **search_row(path, capacity)})
    return pd.DataFrame(rows)


def per_state(table: pd.DataFrame) -> pd.DataFrame:
    states = list(dict.fromkeys(table["state"]))
    reference = table.loc[table["state"] == states[0], "rate"].dropna()
    rows = []
    for state in states:
        rates = table.loc[table["state"] == state, "rate"].dropna()
        low, high = t_interval(rates)
        ratio = compare_samples(reference, rates)
        rows.append({"state": state, "searches": len(rates), "mean": rates.mean(), "ci_low": low, "ci_high": high,
                     f"vs_{states[0]}": ratio["ratio_mean"], "ratio_ci": (ratio["ratio_ci_low"], ratio["ratio_ci_high"])})
    return pd.DataFrame(rows)


def probes_at(root: Path, rate: int) -> pd.DataFrame:
    rows = []
    for path, capacity in late_searches(root):
        for probe in (p for p in capacity["probes"] if p["rate"] == rate):
            run_dir = Path(probe["run_dir"])
            if not run_dir.is_dir():  # archived: the probe's directory sits beside capacity.json
                run_dir = path.parent / run_dir.name
            late = _json(run_dir / "late-state.json")
            summary = _json(run_dir / "summary.json")
            rows.append({"state": variant(capacity["config"]), "verdict": probe["verdict"],
                         "live_heap_mib": (late.get("live_heap_bytes") or {}).get("median", float("nan")) / MIB,
                         "heap_used_mib": (late.get("heap_used_bytes") or {}).get("median", float("nan")) / MIB,
                         "gc_share": late.get("gc_share"), "taskmanager_cpu_percent": taskmanager_cpu_percent(run_dir),
                         "taskmanager_rss_mib": taskmanager_rss(run_dir) / MIB,
                         "swm_mean_ms": (summary.get("swm_latency_ms") or {}).get("mean"), "run": run_dir.name,
                         "search": path.parent.name})
    return pd.DataFrame(rows)


def taskmanager_rss(run_dir: Path) -> float:
    """Median over the run's samples of the TaskManagers' resident memory (heap, RocksDB's and ForSt's native
    memory, metaspace, threads), in bytes."""
    resources = read_table(run_dir / "resources.csv")
    if resources.empty:
        return float("nan")
    taskmanagers = resources[resources["component"].astype(str).str.startswith("taskmanager")]
    return float(taskmanagers.groupby("time")["rss_bytes"].sum().median())


def _json(path: Path) -> dict:
    return json.loads(path.read_text()) if path.is_file() else {}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--at", type=int, default=10_000, help="the rate whose probes to compare (events/s)")
    parser.add_argument("--converged", action="store_true", help="only searches that bracketed the capacity within "
                        "their precision (leaves out stopped and unfinished ones)")
    args = parser.parse_args()
    table = searches(args.root)
    if args.converged and not table.empty:
        table = table[table["converged"]]
    if table.empty:
        raise SystemExit(f"no capacity-*/capacity.json under {args.root}")
    with pd.option_context("display.width", 200, "display.max_columns", 20, "display.max_colwidth", 60):
        print(table.drop(columns="stopped").to_string(index=False), end="\n\n")
        print(per_state(table).round(3).to_string(index=False), end="\n\n")
        probes = probes_at(args.root, args.at)
        probes = probes[probes["search"].isin(table["search"])] if not probes.empty else probes
        print(f"probes at {args.at} events/s:")
        print(probes.round(3).to_string(index=False) if not probes.empty else "none")
        if not probes.empty:
            print(probes.drop(columns=["verdict", "run", "search"]).groupby("state").median().round(3).to_string())


if __name__ == "__main__":
    main()
