"""What could an ideal SWM-aware scheduler gain over processor sharing? The fluid model of Q windowed queries on
one core (klinkctl/results/ideal_model.py: processor sharing `ps` vs an `oracle` serving the oldest ingested SWM
first), printed per (B, Q): mean / p99 latency and the oracle's ratios to `ps` with t intervals across seeds, to
read measured ratios against (the paper's targets: mean <= 0.5, p99 <= 0.45 of Default; docs/scheduler.md).

Usage: .venv/bin/python benchmarks/ideal_scheduler_model.py [--rho 0.95] [--queries 4,8,16] [--bounds 0.2,1.0]
       [--delay uniform:0-400ms] [--seeds 5] [--duration 400]
"""

from __future__ import annotations

import argparse
import math
import time

from klinkctl.errors import KlinkError
from klinkctl.results.ideal_model import Model, ideal_cell, share, simulate  # noqa: F401 - the model's names, here too


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rho", type=float, default=0.95)
    parser.add_argument("--queries", default="4,8,16")
    parser.add_argument("--bounds", default="0.2,1.0", help="watermark bounds B in seconds")
    parser.add_argument("--delay", default="const:0ms", help="network delay model, e.g. uniform:0-400ms")
    parser.add_argument("--seeds", type=int, default=5, help="seeds 1..N; ratios with t intervals across them")
    parser.add_argument("--duration", type=float, default=400.0, help="seconds per seed")
    parser.add_argument("--warmup", type=float, default=30.0, help="seconds left out at the start")
    args = parser.parse_args()
    try:
        bounds = [float(b) for b in args.bounds.split(",")]
        query_counts = [int(q) for q in args.queries.split(",")]
    except ValueError:
        parser.error("--bounds takes seconds and --queries counts, comma-separated, e.g. --bounds 0.2,1 --queries 4,8")
    if args.rho <= 0 or min(bounds) < 0 or min(query_counts) < 1 or args.seeds < 1:
        parser.error("--rho must be > 0, --bounds >= 0, --queries >= 1 and --seeds >= 1")
    print(f"fluid model, load {args.rho:.2f} of one core, delay {args.delay}, "
          f"stalls {Model.stall_s} s every {1 / Model.stalls_per_s:.0f} s on average, windows {Model.window_s:.0f} s, "
          f"{args.seeds} seeds of {args.duration:.0f} s; oracle = oldest ingested SWM first")
    print(f"{'B s':>5} {'queries':>7} {'ps mean':>8} {'ps p99':>7} {'oracle mean':>11} {'oracle p99':>10} "
          f"{'mean ratio [CI]':>18} {'p99 ratio [CI]':>18} {'took':>6}")
    for bound in bounds:
        for queries in query_counts:
            started = time.monotonic()
            try:
                cell = ideal_cell(queries, args.rho, bound, Model.window_s, args.delay, args.seeds,
                                  args.duration, args.warmup, step_s=0.001, watermark_interval_s=0.0)
            except KlinkError as error:
                parser.exit(2, f"error: {error}\n")
            print(f"{bound:>5.1f} {queries:>7} {cell.ps_mean_s:>8.2f} {cell.ps_p99_s:>7.2f} {cell.oracle_mean_s:>11.2f} "
                  f"{cell.oracle_p99_s:>10.2f} {_with_ci(cell.mean_ratio, cell.mean_ratio_ci):>18} "
                  f"{_with_ci(cell.p99_ratio, cell.p99_ratio_ci):>18} {time.monotonic() - started:>5.1f}s")


def _with_ci(value: float, ci: tuple[float, float]) -> str:
    return f"{value:.2f}" if math.isnan(ci[0]) else f"{value:.2f} [{ci[0]:.2f}-{ci[1]:.2f}]"


if __name__ == "__main__":
    main()
