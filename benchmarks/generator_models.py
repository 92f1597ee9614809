"""What each delay + inter-event model costs the generator, Kafka left out, on ONE pinned core.

For each model: (1) flat out — the real generation loop (draw fields, sample the delay and the gap, the
send queue, JSON rendering) into a byte-counting sink on a schedule it cannot keep: events/s; (2) on
schedule at `--rate` events/s in total over `--topics` topics: the fraction of events sent > 10 ms late.
Each JVM rehearses 4 s first (as the real generator does). Medians of `--runs` runs. The Kafka side is
measured by benchmarks/generator_throughput.py; here the question is only whether a model's sampling and
the send queue it needs keep the generator above 500 K events/s.

    .venv/bin/python benchmarks/generator_models.py --runs 3
"""

from __future__ import annotations

import argparse
import statistics
import subprocess

from klinkctl.artifacts import GENERATOR_JAR
from klinkctl.generator import JAVA_OPTS

#: (delay, gaps): the cheapest, each delay model with the thesis' bursty gaps, and the thesis presets.
MODELS = [
    ("const:0ms", "const"), ("const:150ms", "const"), ("exp:240ms", "const"), ("exp:240ms", "gamma:2"),
    ("gamma:60:4ms", "gamma:2"), ("uniform:0-2s", "gamma:2"), ("normal:300ms:50ms", "gamma:2"),
    ("lognormal:200ms:0.5", "gamma:2"), ("pareto:100ms:2.5", "gamma:2"), ("zipf:0.99:0-2s", "gamma:2"),
]


def measure(delay: str, gaps: str, topics: int, seconds: int, rate: int, cpu: int) -> tuple[float, float]:
    argv = ["taskset", "-c", str(cpu), "java", *JAVA_OPTS, "-cp", str(GENERATOR_JAR),
            "io.klink.generator.ModelThroughput", delay, gaps, str(topics), str(seconds), str(rate)]
    events_per_s, behind = subprocess.run(argv, capture_output=True, text=True, check=True).stdout.split()
    return float(events_per_s), float(behind)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--seconds", type=int, default=10, help="length of each measured run (default 10)")
    p.add_argument("--rate", type=int, default=500_000, help="scheduled runs: total events/s (default 500000)")
    p.add_argument("--topics", type=int, default=4)
    p.add_argument("--cpu", type=int, default=1, help="core the generator is pinned to (default 1)")
    a = p.parse_args()
    print(f"{'delay':<22}{'gaps':<10}{'flat out ev/s':>16}{f'behind @ {a.rate // 1000}K':>16}   runs")
    for delay, gaps in MODELS:
        flat = [measure(delay, gaps, a.topics, a.seconds, 0, a.cpu)[0] for _ in range(a.runs)]
        behind = [measure(delay, gaps, a.topics, a.seconds, a.rate, a.cpu)[1] for _ in range(a.runs)]
        print(f"{delay:<22}{gaps:<10}{statistics.median(flat):>16,.0f}{statistics.median(behind):>16.2%}   "
              f"flat {' '.join(f'{v / 1e3:.0f}K' for v in flat)}; behind {' '.join(f'{v:.2%}' for v in behind)}",
              flush=True)


if __name__ == "__main__":
    main()
