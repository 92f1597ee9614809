"""Measures the local stack's lifecycle: `klinkctl up` ready time with cold and warm caches, idle RSS per
component, and `klinkctl down` time. Medians of --runs repetitions, all in one invocation.

"cold" = an empty klinkctl jar cache (Kafka broker + connector fetched through Maven from ~/.m2 or the
registry) and an empty state dir (KRaft storage formatted); "warm" = cache present, state dir kept
from the previous run (what a user sees on the second `up`). The stack shares the machine's 2 cores
with nothing else of ours during the measurement.

Usage: .venv/bin/python benchmarks/stack_lifecycle.py [--runs 3] [--idle-s 10]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "integration"))
from conftest import free_ports  # noqa: E402  (same free-port helper the integration tests use)


def klinkctl(state_dir: Path, *args: str, env: dict | None = None) -> float:
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "klinkctl", *args, "--state-dir", str(state_dir)],
                            capture_output=True, text=True, env=env)
    if result.returncode != 0:
        raise SystemExit(f"klinkctl {' '.join(args)} failed: {result.stderr.strip()}")
    return time.perf_counter() - start


def idle_rss(state_dir: Path) -> dict[str, float]:
    import psutil

    record = json.loads((state_dir / "stack.json").read_text())
    return {c["name"]: psutil.Process(c["pid"]).memory_info().rss / 2**20 for c in record["components"]}


def one_run(state_dir: Path, ports: list[int], env: dict, idle_s: float) -> dict:
    options = ["--kafka-port", str(ports[0]), "--kafka-controller-port", str(ports[1]),
               "--rpc-port", str(ports[2]), "--rest-port", str(ports[3])]
    up_s = klinkctl(state_dir, "up", *options, env=env)
    time.sleep(idle_s)
    rss = idle_rss(state_dir)
    down_s = klinkctl(state_dir, "down", env=env)
    return {"up_s": up_s, "down_s": down_s, "rss_mib": rss}


def median(values: list[float]) -> float:
    return statistics.median(values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--idle-s", type=float, default=10.0)
    args = parser.parse_args()
    results: dict[str, list[dict]] = {"cold": [], "warm": []}
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as state:
            env = {**os.environ, "KLINK_CACHE_DIR": cache}
            ports = free_ports(4)
            results["cold"].append(one_run(Path(state), ports, env, args.idle_s))
            results["warm"].append(one_run(Path(state), ports, env, args.idle_s))
    print(f"klinkctl up/down, medians of {args.runs} runs (2-core machine, nothing else of ours running)")
    for kind, runs in results.items():
        ups = [r["up_s"] for r in runs]
        downs = [r["down_s"] for r in runs]
        print(f"  {kind:4s} up: median {median(ups):5.1f} s  (runs: {', '.join(f'{v:.1f}' for v in ups)});"
              f"  down: median {median(downs):4.1f} s")
    components = results["warm"][0]["rss_mib"].keys()
    all_runs = results["cold"] + results["warm"]
    print(f"  idle RSS after {args.idle_s:.0f} s (median over {len(all_runs)} stacks):")
    for name in components:
        print(f"    {name:14s} {median([r['rss_mib'][name] for r in all_runs]):6.0f} MiB")
    print(f"    {'total':14s} {median([sum(r['rss_mib'].values()) for r in all_runs]):6.0f} MiB")


if __name__ == "__main__":
    main()
