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
sys.path.insert(0, str(REPO))
from klinkctl import kafka_io  # noqa: E402
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
    p.add_argument("--pack-bytes", default="65536",
                   help="comma list of the generator's --pack-bytes to compare side by side, runs interleaved "
                        "(0 = one Kafka record per event; default 65536)")
    p.add_argument("--java-opts", default=DEFAULT_JAVA_OPTS,
                   help=f"JVM options of the generator (default: {DEFAULT_JAVA_OPTS})")
    p.add_argument("--jar", type=Path, default=DEFAULT_JAR)
    p.add_argument("--out-dir", type=Path, default=None)
    a = p.parse_args(argv)
    a.pack_bytes = [int(v) for v in a.pack_bytes.split(",")]
    if a.runs < 1 or a.seconds < 1 or a.topics < 1 or a.rate < a.topics:
        p.error("--runs, --seconds, --topics must be >= 1 and --rate >= --topics")
    return a


def run_generator(a: argparse.Namespace, out: Path, name: str, pack: int, extra: list[str]) -> dict:
    """Runs the jar once, pinned to one core; returns its summary JSON (plus the wall time)."""
    names = [f"genbench-q{i:02d}" for i in range(a.topics)]
    # every run starts from empty topics (auto-created by the generator): the runs would otherwise pile up
    # gigabytes in the broker, and a broker busy with old segments is not the one a run meets
    kafka_io.delete_topics(a.bootstrap, names)
    topics = ",".join(names)
    summary = out / f"{name}-summary.json"
    stats = out / f"{name}-stats.csv"
    cmd = ["taskset", "-c", str(a.cpu), "java", *a.java_opts.split(), "-jar", str(a.jar),
           "--bootstrap", a.bootstrap, "--topics", topics, "--duration", f"{a.seconds}s",
           "--compression", a.compression, "--pack-bytes", str(pack), "--summary-file", str(summary), "--stats-file", str(stats),
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


def cpu_share(s: dict) -> float:
    """The generator JVM's CPU time during the run per second of it (1.0 = its whole core)."""
    return (s.get("run_cpu_s") or float("nan")) / s["elapsed_s"]


def measure(a: argparse.Namespace, out: Path, mode: str) -> dict:
    """`--runs` runs of one mode per --pack-bytes value, interleaved (run i of every value, then run i + 1)."""
    per_topic = a.rate // a.topics
    extra = ["--max-rate"] if mode == "max-rate" else ["--rate", str(per_topic)]
    runs: dict[int, list[dict]] = {pack: [] for pack in a.pack_bytes}
    for i in range(a.runs):
        for pack in a.pack_bytes:
            s = run_generator(a, out, f"{mode}-pack{pack}-{i}", pack, extra)
            runs[pack].append(s)
            print(f"  {mode} pack {pack} run {i + 1}: {s['achieved_rate']:,.0f} events/s, "
                  f"behind_fraction={s['behind_fraction']:.5f}, max_lag={s['max_lag_ms']:.1f} ms, "
                  f"generator CPU {cpu_share(s):.0%} of its core, producer blocked {s['producer_blocked_s']:.2f} s, "
                  f"{s['producer_records_per_request_avg']:,.0f} records/request ({per_second_range(s)}), "
                  f"send_errors={s['send_errors']}")
    result: dict = {"command": next(iter(runs.values()))[0]["command"]}
    for pack, rs in runs.items():
        rates = [r["achieved_rate"] for r in rs]
        fractions = [r["behind_fraction"] for r in rs]
        cpu = [cpu_share(r) for r in rs]
        target = "as fast as it can" if mode == "max-rate" else f"scheduled {per_topic * a.topics:,}/s"
        print(f"{mode}, pack {pack}: {target}: median {statistics.median(rates):,.0f} events/s, "
              f"median behind {statistics.median(fractions):.3%} "
              f"({sum(r['fell_behind'] for r in rs)} of {len(rs)} runs > 1 %), "
              f"median generator CPU {statistics.median(cpu):.0%} of one core")
        result[f"pack_{pack}"] = {"median_events_per_s": statistics.median(rates), "runs": rates,
                                  "behind_fractions": fractions, "max_lag_ms": [r["max_lag_ms"] for r in rs],
                                  "cpu_share": cpu, "acked_runs": [acked_rate(r) for r in rs]}
    print(f"  command: {result['command']}")
    return result


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

    for mode in (["max-rate", "scheduled"] if a.mode == "both" else [a.mode]):
        report[mode.replace("-", "_")] = measure(a, out, mode)

    report["load_average_after"] = os.getloadavg()[0]
    (out / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"load average after: {report['load_average_after']:.2f}; details in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
