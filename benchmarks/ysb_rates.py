"""YSB at increasing input rates, per scheduling policy: where does SWM latency stop being flat, and how do
policies compare on the same load?

Runs `klinkctl bench ysb` on the running stack (start it with `klinkctl up`) for each rate, --reps
times, interleaved (rate order shuffled per repetition so drift on the shared machine does not line
up with rate), and prints medians per rate of: mean / p99 SWM latency, the achieved generator and
Flink source rates, the generator's schedule lag and the TaskManager's CPU. Kafka, the generator and
Flink share the machine's 2 cores: the figures are for this machine as a whole.

With --policies default,klink,... every rate runs under each policy (same seed, same load, same delay)
and the table adds each policy's mean/p99 ratio to default at that rate (the paper's Klink/Default).
`klink:priority` runs a policy with `--enforce priority` (tasks not chosen demoted to nice 19, not paused);
`klink:priority/confidence=0.9` adds `--confidence 0.9` to that policy's runs (Klink at f = 90 %).

With --markers-off-too, each run is repeated with blocking latency markers disabled, side by side, to
measure the markers' overhead (throughput and TaskManager CPU with and without them).

Ctrl-C (SIGINT) or SIGTERM ends the run under way cleanly (its rows kept, marked interrupted), starts no
other, prints the table of the runs completed so far, marked INTERRUPTED, and exits 130.

Usage: .venv/bin/python benchmarks/ysb_rates.py --rates 2000,8000,16000 [--queries 4] [--reps 3]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

from klinkctl.run.bench import signals_as_interrupt


def run(results: Path, state_dir: str | None, rate: int, args: argparse.Namespace, markers: bool,
        policy_args: list[str]) -> dict:
    command = [sys.executable, "-m", "klinkctl", "bench", "ysb", "--results", str(results), *policy_args,
               "--queries", str(args.queries), "--rate", str(rate), "--duration", args.duration,
               "--warmup", args.warmup, "--window", args.window, "--delay", args.delay]
    if not markers:
        command += ["--marker-interval", "0"]
    if state_dir:
        command += ["--state-dir", state_dir]
    command += args.bench_args.split()
    before = set(results.iterdir())
    # Its own session: a Ctrl-C at the terminal reaches only this script, which hands the bench exactly one
    # SIGINT and waits for its clean-up (job cancelled, generator stopped, rows kept, summary `interrupted`).
    bench = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        bench.wait()
    except KeyboardInterrupt:
        bench.send_signal(signal.SIGINT)
        bench.wait()
        raise
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
        "cycle_us": summary.get("scheduler", {}).get("mean_cycle_us"),
        "klink_inside": summary.get("estimator", {}).get("klink", {}).get("inside_fraction"),
        "lr_inside": summary.get("estimator", {}).get("lr", {}).get("inside_fraction"),
        "run_dir": str(run_dir),
    }


def policy_options(label: str) -> list[str]:
    """`klinkctl bench` options of a policy label POLICY[:ENFORCEMENT][/OPTION=VALUE...], e.g.
    klink:priority/confidence=0.9 -> --policy klink --enforce priority --confidence 0.9."""
    policy, *settings = label.split("/")
    name, _, enforce = policy.partition(":")
    options = ["--policy", name] + (["--enforce", enforce] if enforce else [])
    for setting in settings:
        option, separator, value = setting.partition("=")
        if not separator:
            sys.exit(f"error: policy {label!r}: {setting!r} is not OPTION=VALUE (e.g. klink/confidence=0.9)")
        options += [f"--{option}", value]
    return options


def med(rows: list[dict], key: str) -> float:
    values = [r[key] for r in rows if r[key] is not None]
    return statistics.median(values) if values else float("nan")


def ratio(runs: list[dict], base: list[dict], key: str) -> float:
    """Median of `runs` over median of `base`; NaN where the base has no value (e.g. no throughput sample)."""
    denominator = med(base, key)
    return med(runs, key) / denominator if denominator else float("nan")


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
    parser.add_argument("--policies", default="default", help="comma-separated, e.g. default,rr,klink; "
                        "POLICY:ENFORCEMENT picks how it holds tasks back, e.g. klink:priority (default: pause); "
                        "/OPTION=VALUE adds a bench option to that policy's runs, e.g. klink:priority/confidence=0.9")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bench-args", default="", help="more `klinkctl bench` options for every run, "
                        "e.g. '--cores 2 --generator-cpus 0'")
    parser.add_argument("--keep-results", default=None, help="keep every run directory here (default: discarded)")
    parser.add_argument("--warm-up-run", action="store_true", help="one discarded run before the measured ones")
    args = parser.parse_args()
    rates = [int(r) for r in args.rates.split(",")]
    variants = [True, False] if args.markers_off_too else [True]
    policies = args.policies.split(",")
    options = {policy: policy_options(policy) for policy in policies}  # a malformed label fails before any run
    rows: dict[tuple[int, bool, str], list[dict]] = {(r, m, p): [] for r in rates for m in variants for p in policies}
    order = random.Random(args.seed)
    interrupted = False
    with tempfile.TemporaryDirectory() as tmp, signals_as_interrupt():  # also when started in the background
        results = Path(args.keep_results) if args.keep_results else Path(tmp)
        results.mkdir(parents=True, exist_ok=True)
        try:
            if args.warm_up_run:  # the first run after `klinkctl up` meets cold JITs in the broker and TaskManager
                warm_up = run(results, args.state_dir, rates[0], args, True, options[policies[0]])
                print(f"warm-up run (discarded): {warm_up}", file=sys.stderr)
            for rep in range(args.reps):
                plan = list(rows)
                order.shuffle(plan)
                for key in plan:
                    rate, markers, policy = key
                    rows[key].append(run(results, args.state_dir, rate, args, markers, options[policy]))
                    print(f"rep {rep + 1}/{args.reps} rate {rate} markers {'on' if markers else 'off'} {policy}: "
                          f"{rows[key][-1]}", file=sys.stderr)
        except KeyboardInterrupt:  # the run under way was ended cleanly and is left out of the table
            interrupted = True
    done = sum(len(runs) for runs in rows.values())
    scope = f"INTERRUPTED after {done} runs, medians of what each row completed" if interrupted \
        else f"medians of {args.reps} runs"
    print(f"YSB, {args.queries} query(ies), window {args.window}, delay {args.delay}, {scope}; "
          f"bench options: {args.bench_args or '-'}; "
          f"Kafka + generator + Flink share the machine's {os.cpu_count()} cores")
    print(f"{'rate/query':>10} {'markers':>7} {'policy':>28} {'mean ms':>8} {'p99 ms':>8} {'gen ev/s':>9} {'flink rec/s':>11} "
          f"{'gen behind':>10} {'TM cpu %':>8} {'failed':>6} {'no win':>6} {'mean/def':>8} {'p99/def':>8} {'thr/def':>7} "
          f"{'cycle us':>8} {'klink in':>8} {'lr in':>6}")
    for (rate, markers, policy), runs in rows.items():
        failed = sum(r["status"] != "completed" for r in runs)
        windowless = sum(r["mean"] is None for r in runs)  # no window fired after warm-up: starved, not fast
        base = rows.get((rate, markers, "default"))
        ratios = (f"{ratio(runs, base, 'mean'):>8.2f} {ratio(runs, base, 'p99'):>8.2f} "
                  f"{ratio(runs, base, 'flink'):>7.3f}" if base else f"{'-':>8} {'-':>8} {'-':>7}")
        print(f"{rate:>10} {'on' if markers else 'off':>7} {policy:>28} {med(runs, 'mean'):>8.0f} {med(runs, 'p99'):>8.0f} "
              f"{med(runs, 'generator'):>9.0f} {med(runs, 'flink'):>11.0f} {med(runs, 'behind'):>10.2%} "
              f"{med(runs, 'tm_cpu'):>8.0f} {failed:>6} {windowless:>6} {ratios} {med(runs, 'cycle_us'):>8.0f} "
              f"{med(runs, 'klink_inside'):>8.2f} {med(runs, 'lr_inside'):>6.2f}")
    if interrupted:
        sys.exit(130)


if __name__ == "__main__":
    main()
