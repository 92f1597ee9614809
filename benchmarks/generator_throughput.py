"""How fast is the Java event generator (java-udfs/klink-generator) on ONE core?

Starts nothing except the generator: point it at a Kafka broker that is already running
(`--bootstrap`). Two measurements, each repeated `--runs` times:

  max-rate   the generator ignores its schedule and sends as fast as it can for `--seconds`;
             reported: events/s (median and per run).
  scheduled  the generator follows its schedule at `--rate` events/s in total, spread over
             `--topics` topics; reported: behind_fraction (events sent > 10 ms late), i.e.
             whether it sustains that schedule.

The generator JVM (including the Kafka producer's I/O thread and the GC) is pinned to one core with
`taskset -c <--cpu>`. The broker is NOT pinned: on this 2-core machine it shares the cores with the
generator, so these figures are for the generator and a broker competing for the same CPUs.

    .venv/bin/python benchmarks/generator_throughput.py --bootstrap 127.0.0.1:9092
    .venv/bin/python benchmarks/generator_throughput.py --bootstrap 127.0.0.1:9092 --mode scheduled --rate 500000

Per-run summaries and per-second CSVs go to benchmarks/out/generator-<timestamp>/ (git-ignored).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_JAR = REPO / "java-udfs" / "klink-generator" / "target" / "klink-generator.jar"
DEFAULT_JAVA_OPTS = "-Xms1536m -Xmx1536m -Xmn1g -XX:+UseParallelGC -XX:+PerfDisableSharedMem"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bootstrap", required=True, help="Kafka bootstrap servers of a running broker")
    p.add_argument("--runs", type=int, default=3, help="repetitions per mode (default 3)")
    p.add_argument("--seconds", type=int, default=10, help="duration of each run in seconds (default 10)")
    p.add_argument("--mode", choices=["max-rate", "scheduled", "both"], default="both")
    p.add_argument("--rate", type=int, default=500_000,
                   help="scheduled mode: total events/s over all topics (default 500000)")
    p.add_argument("--topics", type=int, default=4, help="number of topics (queries), default 4")
    p.add_argument("--delay", default="const:0ms", help="scheduled mode: network delay model (default const:0ms)")
    p.add_argument("--gaps", default="const", help="scheduled mode: inter-event gaps, const or gamma:<k>")
    p.add_argument("--cpu", type=int, default=1, help="core the generator is pinned to (default 1)")
    p.add_argument("--compression", choices=["none", "lz4", "gzip"], default="none",
                   help="producer compression (default none, as klinkctl bench uses)")
    p.add_argument("--java-opts", default=DEFAULT_JAVA_OPTS,
                   help=f"JVM options of the generator (default: {DEFAULT_JAVA_OPTS})")
    p.add_argument("--jar", type=Path, default=DEFAULT_JAR)
    p.add_argument("--out-dir", type=Path, default=None)
    a = p.parse_args(argv)
    if a.runs < 1 or a.seconds < 1 or a.topics < 1 or a.rate < a.topics:
        p.error("--runs, --seconds, --topics must be >= 1 and --rate >= --topics")
    return a


def run_generator(a: argparse.Namespace, out: Path, name: str, extra: list[str]) -> dict:
    """Runs the jar once, pinned to one core; returns its summary JSON (plus the wall time)."""
    topics = ",".join(f"genbench-q{i:02d}" for i in range(a.topics))
    summary = out / f"{name}-summary.json"
    stats = out / f"{name}-stats.csv"
    cmd = ["taskset", "-c", str(a.cpu), "java", *a.java_opts.split(), "-jar", str(a.jar),
           "--bootstrap", a.bootstrap, "--topics", topics, "--duration", f"{a.seconds}s",
           "--compression", a.compression, "--summary-file", str(summary), "--stats-file", str(stats),
           *extra]
    if "--max-rate" not in extra:
        cmd += ["--delay", a.delay, "--gaps", a.gaps]
    started = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - started
    (out / f"{name}-stderr.txt").write_text(proc.stderr)
    if proc.returncode != 0 or not summary.exists():
        sys.exit(f"generator failed (exit {proc.returncode}): {' '.join(cmd)}\n{proc.stderr.strip()}")
    result = json.loads(summary.read_text())
    result["wall_s"] = wall
    result["command"] = " ".join(cmd)
    result["stats_file"] = str(stats)
    result["warm_up"] = next((line for line in proc.stderr.splitlines() if "warm-up:" in line), "")
    return result


def per_second_range(s: dict) -> str:
    """min..max of events sent per full second of the run (the last, partial second left out)."""
    rows = Path(s["stats_file"]).read_text().splitlines()[1:]
    sent = [int(r.split(",")[1]) for r in rows][: int(s["duration_s"])]
    return f"{min(sent):,}..{max(sent):,}/s per second" if sent else "no full second"


def acked_rate(s: dict) -> float:
    """Events per second including the final producer flush (all events acknowledged by the broker)."""
    window = s["events_sent"] / s["achieved_rate"] if s["achieved_rate"] else 0.0
    return s["events_sent"] / (window + s["flush_s"]) if window + s["flush_s"] > 0 else 0.0


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    if shutil.which("taskset") is None:
        sys.exit("taskset not found (util-linux); it pins the generator to one core")
    if not a.jar.exists():
        sys.exit(f"{a.jar} not found: build it with `cd java-udfs && mvn -q -B package`")
    out = a.out_dir or REPO / "benchmarks" / "out" / time.strftime("generator-%Y%m%d-%H%M%S")
    out.mkdir(parents=True, exist_ok=True)

    cores = os.cpu_count()
    print(f"machine: {cores} cores; generator pinned to core {a.cpu} (taskset -c {a.cpu}); "
          f"the Kafka broker at {a.bootstrap} is not pinned and shares the machine's {cores} cores "
          f"with the generator")
    print(f"load average before: {os.getloadavg()[0]:.2f} (other processes share the cores too); "
          f"java opts: {a.java_opts}; compression: {a.compression}; delay {a.delay}, gaps {a.gaps}; {a.topics} topics; {a.seconds} s per run "
          f"after the generator's own warm-up (rehearsal until its JIT settles, at most 15 s)")
    report: dict = {"bootstrap": a.bootstrap, "cores": cores, "cpu": a.cpu, "java_opts": a.java_opts,
                    "compression": a.compression, "topics": a.topics, "seconds": a.seconds}

    if a.mode in ("max-rate", "both"):
        runs = []
        for i in range(a.runs):
            s = run_generator(a, out, f"max-rate-{i}", ["--max-rate"])
            runs.append(s)
            print(f"  max-rate run {i + 1}: {s['achieved_rate']:,.0f} events/s "
                  f"({acked_rate(s):,.0f}/s incl. final flush of {s['flush_s']:.2f} s; "
                  f"{per_second_range(s)}), {s['events_sent']:,} events, send_errors={s['send_errors']}, "
                  f"producer blocked {s['producer_blocked_s']:.2f} s")
        rates = [r["achieved_rate"] for r in runs]
        print(f"max-rate: median {statistics.median(rates):,.0f} events/s on one core "
              f"(runs: {', '.join(f'{r:,.0f}' for r in rates)})")
        print(f"  command: {runs[0]['command']}")
        report["max_rate"] = {"median_events_per_s": statistics.median(rates), "runs": rates,
                              "acked_runs": [acked_rate(r) for r in runs],
                              "command": runs[0]["command"]}

    if a.mode in ("scheduled", "both"):
        per_topic = a.rate // a.topics
        runs = []
        for i in range(a.runs):
            s = run_generator(a, out, f"scheduled-{i}", ["--rate", str(per_topic)])
            runs.append(s)
            print(f"  scheduled run {i + 1}: target {per_topic * a.topics:,}/s achieved "
                  f"{s['achieved_rate']:,.0f}/s, behind_fraction={s['behind_fraction']:.5f} "
                  f"max_lag={s['max_lag_ms']:.1f} ms fell_behind={s['fell_behind']} "
                  f"({per_second_range(s)}) send_errors={s['send_errors']}")
        fractions = [r["behind_fraction"] for r in runs]
        print(f"scheduled {per_topic * a.topics:,} events/s ({a.topics} x {per_topic:,}): median "
              f"behind_fraction {statistics.median(fractions):.5f} "
              f"(runs: {', '.join(f'{f:.5f}' for f in fractions)}); "
              f"{sum(r['fell_behind'] for r in runs)} of {len(runs)} runs fell behind (> 1 %)")
        print(f"  command: {runs[0]['command']}")
        report["scheduled"] = {"target_events_per_s": per_topic * a.topics,
                               "median_behind_fraction": statistics.median(fractions),
                               "behind_fractions": fractions,
                               "achieved": [r["achieved_rate"] for r in runs],
                               "max_lag_ms": [r["max_lag_ms"] for r in runs],
                               "command": runs[0]["command"]}

    report["load_average_after"] = os.getloadavg()[0]
    (out / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"load average after: {report['load_average_after']:.2f}; details in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
