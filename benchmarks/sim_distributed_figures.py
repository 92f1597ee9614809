"""What the distributed simulated sweeps' table in docs/simulator.md ("Distributed Klink") quotes besides `klinkctl
compare`: per placement and variant, the sources' events/s read (summary.json), the mean SWM p99 over runs, Klink's
running tasks per scheduler cycle and node (the mean of scheduler.csv's `running` over every cycle of every node) and
the range across runs of the SWMs inside each estimator's predicted interval (summary.json `estimator`).

    .venv/bin/python benchmarks/sim_distributed_figures.py results/sim-distributed-<time> [more sweep dirs]

It needs scheduler.csv, which the archived sweeps of 2026-11-29 leave out: they hold this script's output as
distributed-figures.txt.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd


def pct_range(fractions: list[float]) -> str:
    return f"{min(fractions) * 100:.1f}-{max(fractions) * 100:.1f} %" if fractions else "-"


def sweep_figures(sweep: Path) -> list[str]:
    index = pd.read_csv(sweep / "index.csv")
    lines = [f"== {sweep.name} (SIMULATED)"]
    for (placement, variant), rows in index.groupby(["placement", "variant"], sort=False):
        sources, p99, running, inside = [], [], [], {"klink": [], "lr": []}
        for run in rows["run_dir"]:
            summary = json.loads((sweep / run / "summary.json").read_text())
            sources.append(summary["throughput"]["flink_source_records_per_s"])
            p99.append(summary["swm_latency_ms"]["p99"])
            for name, accuracy in (summary.get("estimator") or {}).items():
                if name in inside and accuracy.get("inside_fraction") is not None:
                    inside[name].append(accuracy["inside_fraction"])
            cycles = sweep / run / "scheduler.csv"
            mean = pd.read_csv(cycles, usecols=["running"])["running"].mean() if cycles.exists() else float("nan")
            if mean == mean:  # not NaN: Default's runs record no cycles
                running.append(mean)
        per_cycle = f"{sum(running) / len(running):.2f}" if running else "-"
        lines.append(f"{placement} {variant}: sources {sum(sources) / len(sources):.0f} events/s, p99 (mean over runs) "
                     f"{sum(p99) / len(p99):.0f} ms, running tasks per cycle and node {per_cycle}, inside the "
                     f"interval: klink {pct_range(inside['klink'])}, lr {pct_range(inside['lr'])} (per run)")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sweeps", nargs="+", type=Path)
    for sweep in parser.parse_args().sweeps:
        print("\n".join(sweep_figures(sweep)))


if __name__ == "__main__":
    main()
