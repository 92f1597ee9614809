"""Per combiner variant of a combiner sweep: trips/s read during the surge (or over the measured span of steady runs), mean SWM latency, the busiest shaped
link's use and bytes per partial at the window (tasks.csv bytes_in / records_in), with the reference's ratio to
each (geometric means, Welch interval on logs across runs: klinkctl.results.groups.ratio_interval).

    .venv/bin/python benchmarks/combiner_surge_table.py SWEEP_DIR --reference adcom
"""

from __future__ import annotations

import argparse
import csv
import json
import math
from collections import defaultdict
from pathlib import Path

from klinkctl.results.groups import ratio_interval


def measured_runs(sweep: Path):
    """(variant, summary, tasks rows) of every completed measured run of the sweep (warm-ups left out)."""
    for row in csv.DictReader(open(sweep / "index.csv")):
        summary = sweep / row["run_dir"] / "summary.json"
        if row["warmup"].lower() == "true" or row["status"] != "completed" or not summary.exists():
            continue
        yield row["variant"], json.loads(summary.read_text()), list(csv.DictReader(open(sweep / row["run_dir"] / "tasks.csv")))


def events_read(throughput: dict) -> float:
    """Events/s the sources read during the surge, or over the measured span of a run without one."""
    surge = throughput.get("during_surge")
    return surge["read_events_per_s"] if surge else throughput["flink_source_records_per_s"]


def bytes_per_partial(tasks: list[dict]) -> float:
    """Bytes in per record of the task that receives the partials: our window, or Flink's global aggregate."""
    receiver = [t for t in tasks if t["role"] == "window" or t["role"].startswith("GlobalGroupAggregate")]
    return sum(int(t["bytes_in"]) for t in receiver) / max(1, sum(int(t["records_in"]) for t in receiver))


def table(sweep: Path, reference: str) -> list[str]:
    columns = defaultdict(lambda: defaultdict(list))
    for variant, summary, tasks in measured_runs(sweep):
        columns[variant]["read"].append(events_read(summary["throughput"]))
        columns[variant]["latency"].append(summary["swm_latency_ms"]["mean"] or math.nan)
        columns[variant]["link"].append(max(link["utilisation"] for link in summary["tm_links"].values()))
        columns[variant]["bytes"].append(bytes_per_partial(tasks))
    lines = [f"| combiner | read (during the surge, if any), trips/s per run | {reference} × it [CI] | mean SWM latency, s | "
             f"{reference}'s latency × it [CI] | busiest link's use | bytes per partial |", "|---|---|---|---|---|---|---|"]
    for variant, values in columns.items():
        read, latency = (_ratio(values[name], columns[reference][name]) if variant != reference else "1"
                         for name in ("read", "latency"))
        lines.append(f"| {variant} | {', '.join(f'{v:,.0f}' for v in values['read'])} | {read} | "
                     f"{min(values['latency']) / 1e3:.1f}–{max(values['latency']) / 1e3:.1f} | {latency} | "
                     f"{min(values['link']):.0%}–{max(values['link']):.0%} | "
                     f"{sum(values['bytes']) / len(values['bytes']):.1f} |")
    return lines


def _ratio(other: list[float], reference: list[float]) -> str:
    """The reference's geometric mean over the other's, with its interval."""
    ratio, low, high = ratio_interval(other, reference)
    return f"{ratio:.2f} [{low:.2f}–{high:.2f}]"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sweep", type=Path)
    parser.add_argument("--reference", required=True, help="the variant the ratios are of (e.g. adcom)")
    arguments = parser.parse_args()
    print("\n".join(table(arguments.sweep, arguments.reference)))
