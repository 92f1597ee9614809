"""Two or more stack setups side by side: `klinkctl up` time of each, then the same `bench` on every stack,
interleaved (rotated per repetition) after --warmup-runs on each, all stacks up at once (only one runs a job at a
time). For what a stack
setting changes — the backend (issue 21, item 2), the TaskManagers' collector (`--tm-gc`), ... — where a sweep,
which runs on one stack, cannot vary it.

Usage:
  .venv/bin/python benchmarks/stacks_side_by_side.py --runs 5 --up-runs 3 \\
      --stack local="--tm-cpus 1 --tm-cpu-quota 0.5" \\
      --stack compose="--backend compose --tm-cpus 1 --tm-cpu-quota 0.5" \\
      -- ysb --queries 4 --rate 4000 --duration 20s --warmup 5s --window 3s --generator-cpus 0

Writes results/stacks-<time>/<stack>/<run dirs> and summary.json (every run directory used), prints the table:
per stack the median `up` time, runs left out as invalid for comparison (results.validity) and counted, mean and
p99 SWM latency with t intervals across runs, Flink's source rate, and each stack's mean over the first's (Welch
interval across runs); with Klink, the estimator's pooled coverage and the scheduler's p99 cycle interval.
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "integration"))
from conftest import PORTS_PER_STACK, Klinkctl, free_ports  # noqa: E402  (the integration tests' helpers)

from klinkctl.results.groups import ratio_interval  # noqa: E402
from klinkctl.results.stats import t_interval  # noqa: E402


def timed(cli: Klinkctl, *args: str) -> float:
    start = time.perf_counter()
    result = cli(*args, timeout=900)
    if result.returncode != 0:
        raise SystemExit(f"klinkctl {' '.join(args)} failed: {result.stderr.strip()}")
    return time.perf_counter() - start


def bench(cli: Klinkctl, results: Path, bench_args: list[str]) -> Path:
    before = set(results.glob("*-*"))
    timed(cli, "bench", *bench_args, "--results", str(results))
    (run_dir,) = set(results.glob("*-*")) - before
    return run_dir


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stack", action="append", required=True, metavar="NAME=UP OPTIONS")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--up-runs", type=int, default=3)
    parser.add_argument("--warmup-runs", type=int, default=1,
                        help="bench runs per stack before the measured ones, kept apart and left out (a fresh "
                             "TaskManager's first job still warms its JIT up: seconds of backlog)")
    parser.add_argument("bench", nargs=argparse.REMAINDER, help="-- then `klinkctl bench`'s arguments")
    args = parser.parse_args()
    setups = dict(item.split("=", 1) for item in args.stack)
    bench_args = [a for a in args.bench if a != "--"]
    root = Path("results") / time.strftime("stacks-%Y%m%d-%H%M%S")
    clis = {name: Klinkctl(Path(f"/tmp/klink-side-by-side-{name}"), free_ports(PORTS_PER_STACK)) for name in setups}
    ups = {name: [] for name in setups}
    for _ in range(args.up_runs):  # the state dir kept from the previous `up`, as a user's second `up`
        for name, cli in clis.items():
            ups[name].append(timed(cli, "up", *cli.port_options, *shlex.split(setups[name])))
            timed(cli, "down")
    runs: dict[str, list[Path]] = {name: [] for name in setups}
    try:
        for name, cli in clis.items():
            timed(cli, "up", *cli.port_options, *shlex.split(setups[name]))
        names = list(setups)
        for name in names * args.warmup_runs:
            bench(clis[name], root / "warmup" / name, bench_args)
        for repetition in range(args.runs):
            for name in names[repetition % len(names):] + names[:repetition % len(names)]:
                runs[name].append(bench(clis[name], root / name, bench_args))
    finally:
        for cli in clis.values():
            cli("down")
    report(root, setups, bench_args, ups, runs)


def stack_row(summaries: list[dict]) -> dict:
    valid = [s for s in summaries if s["comparison"]["valid"]]
    means = [s["swm_latency_ms"]["mean"] for s in valid]
    p99s = [s["swm_latency_ms"]["p99"] for s in valid]
    row = {"runs": len(summaries), "invalid": len(summaries) - len(valid), "means": means,
           "mean_ms": statistics.fmean(means) if means else None, "mean_ci": _ci(means),
           "p99_ms": statistics.fmean(p99s) if p99s else None, "p99_ci": _ci(p99s),
           "source_read_per_s": statistics.fmean(s["throughput"]["flink_source_records_per_s"] or 0 for s in valid)
           if valid else None}
    klink = [s["estimator"]["klink"] for s in valid if (s.get("estimator") or {}).get("klink")]
    if klink:
        scored = sum(e["swms"] for e in klink)
        inside = sum(round(e["inside_fraction"] * e["swms"]) for e in klink if e["swms"])
        row["estimator_inside"] = f"{inside}/{scored}"
    cycles = [s["scheduler"].get("p99_cycle_interval_ms") for s in valid if s.get("scheduler")]
    if any(c is not None for c in cycles):
        row["p99_cycle_interval_ms"] = [c for c in cycles if c is not None]
    return row


def _ci(values: list[float]) -> list[float] | None:
    return list(t_interval(values)) if len(values) > 1 else None


def report(root: Path, setups: dict[str, str], bench_args: list[str], ups: dict[str, list[float]],
           runs: dict[str, list[Path]]) -> None:
    rows = {name: stack_row([json.loads((d / "summary.json").read_text()) for d in dirs]) for name, dirs in runs.items()}
    first = next(iter(rows))
    for name, row in rows.items():
        row["up_median_s"] = statistics.median(ups[name]) if ups[name] else None
        row["mean_over_first"] = list(ratio_interval(rows[first]["means"], row["means"]))
    out = {"stacks": setups, "bench": bench_args, "up_s": ups,
           "runs": {name: [str(d) for d in dirs] for name, dirs in runs.items()}, "results": rows}
    root.mkdir(parents=True, exist_ok=True)
    (root / "summary.json").write_text(json.dumps(out, indent=1))
    for name, row in rows.items():
        ci, ratio = row["mean_ci"] or [float("nan")] * 2, row["mean_over_first"]
        extra = "".join(f", {key} {row[key]}" for key in ("estimator_inside", "p99_cycle_interval_ms") if key in row)
        print(f"{name}: up {row['up_median_s'] or float('nan'):.1f} s; {row['runs']} runs, {row['invalid']} invalid; "
              f"mean {row['mean_ms'] or float('nan'):.0f} ms [{ci[0]:.0f}-{ci[1]:.0f}], p99 {row['p99_ms'] or 0:.0f}; "
              f"read {row['source_read_per_s'] or 0:.0f}/s; x {first} {ratio[0]:.2f} [{ratio[1]:.2f}-{ratio[2]:.2f}]"
              f"{extra}")
    print(f"{root}/summary.json")


if __name__ == "__main__":
    main()
