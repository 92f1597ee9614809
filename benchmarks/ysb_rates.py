"""YSB with the default policy at increasing input rates: where does SWM latency stop being flat?

Runs `klinkctl bench ysb` on the running stack (start it with `klinkctl up`) for each rate, --reps
times, interleaved (rate order shuffled per repetition so drift on the shared machine does not line
up with rate), and prints medians per rate of: mean / p99 SWM latency, the achieved generator and
Flink source rates, the generator's schedule lag and the TaskManager's CPU. Kafka, the generator and
Flink share the machine's 2 cores: the figures are for this machine as a whole.

With --markers-off-too, each run is repeated with blocking latency markers disabled, side by side, to
measure the markers' overhead (throughput and TaskManager CPU with and without them).

Usage: .venv/bin/python benchmarks/ysb_rates.py --rates 2000,8000,16000 [--queries 4] [--reps 3]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd


def run(results: Path, state_dir: str | None, rate: int, args: argparse.Namespace, markers: bool) -> dict:
    command = [sys.executable, "-m", "klinkctl", "bench", "ysb", "--results", str(results),
               "--queries", str(args.queries), "--rate", str(rate), "--duration", args.duration,
               "--warmup", args.warmup, "--window", args.window, "--delay", args.delay]
    if not markers:
        command += ["--marker-interval", "0"]
    if state_dir:
        command += ["--state-dir", state_dir]
    before = set(results.iterdir())
    subprocess.run(command, capture_output=True, text=True)
    (run_dir,) = set(results.iterdir()) - before
    summary = json.loads((run_dir / "summary.json").read_text())
    resources = pd.read_csv(run_dir / "resources.csv")
    tm_cpu = resources[resources["component"].str.startswith("taskmanager")]["cpu_percent"]
    return {
        "status": summary["status"],
        "mean": summary["swm_latency_ms"]["mean"],
        "p99": summary["swm_latency_ms"]["p99"],
        "generator": summary["throughput"]["generator_events_per_s"] or 0,
        "flink": summary["throughput"]["flink_source_records_per_s"] or 0,
        "behind": summary["generator"]["behind_fraction"] or 0,
        "tm_cpu": float(tm_cpu.median()) if len(tm_cpu) else 0,
    }


def med(rows: list[dict], key: str) -> float:
    values = [r[key] for r in rows if r[key] is not None]
    return statistics.median(values) if values else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rates", default="1000,4000,8000,16000,32000", help="events/s per query")
    parser.add_argument("--queries", type=int, default=1)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--duration", default="30s")
    parser.add_argument("--warmup", default="10s")
    parser.add_argument("--window", default="3s")
    parser.add_argument("--delay", default="const:0ms")
    parser.add_argument("--state-dir", default=None)
    parser.add_argument("--markers-off-too", action="store_true")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rates = [int(r) for r in args.rates.split(",")]
    variants = [True, False] if args.markers_off_too else [True]
    rows: dict[tuple[int, bool], list[dict]] = {(r, m): [] for r in rates for m in variants}
    order = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        results = Path(tmp)
        for rep in range(args.reps):
            plan = [(r, m) for r in rates for m in variants]
            order.shuffle(plan)
            for rate, markers in plan:
                rows[(rate, markers)].append(run(results, args.state_dir, rate, args, markers))
                print(f"rep {rep + 1}/{args.reps} rate {rate} markers {'on' if markers else 'off'}: "
                      f"{rows[(rate, markers)][-1]}", file=sys.stderr)
    print(f"YSB default policy, {args.queries} query(ies), window {args.window}, delay {args.delay}, "
          f"medians of {args.reps} runs; Kafka + generator + Flink share 2 cores")
    print(f"{'rate/query':>10} {'markers':>7} {'mean ms':>8} {'p99 ms':>8} {'gen ev/s':>9} {'flink rec/s':>11} "
          f"{'gen behind':>10} {'TM cpu %':>8} {'failed':>6}")
    for (rate, markers), runs in rows.items():
        failed = sum(r["status"] != "completed" for r in runs)
        print(f"{rate:>10} {'on' if markers else 'off':>7} {med(runs, 'mean'):>8.0f} {med(runs, 'p99'):>8.0f} "
              f"{med(runs, 'generator'):>9.0f} {med(runs, 'flink'):>11.0f} {med(runs, 'behind'):>10.2%} "
              f"{med(runs, 'tm_cpu'):>8.0f} {failed:>6}")


if __name__ == "__main__":
    main()
