"""The compose backend beside the local one (issue 21, item 2): `klinkctl up` time of each, then one YSB figure from
interleaved runs on both stacks, up at the same time with the same settings (each TaskManager pinned to core 1 and
capped, the generator on core 0; only one stack runs a job at a time).

Usage: .venv/bin/python benchmarks/backends_side_by_side.py [--runs 5] [--up-runs 3] [--rate 4000]
Writes results/backends-<time>/summary.json (every run directory it used) and prints the table.
Needs a reachable Docker engine (DOCKER_HOST) with the compose image built (one `up --backend compose` does that).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "integration"))
from conftest import PORTS_PER_STACK, Klinkctl, free_ports  # noqa: E402  (the integration tests' helpers)

from klinkctl.results.groups import ratio_interval  # noqa: E402
from klinkctl.results.stats import t_interval  # noqa: E402

BACKENDS = ("local", "compose")
STACK_OPTIONS = ("--tm-cpus", "1", "--tm-cpu-quota", "0.5")


def timed(cli: Klinkctl, *args: str) -> float:
    start = time.perf_counter()
    result = cli(*args, timeout=900)
    if result.returncode != 0:
        raise SystemExit(f"klinkctl {' '.join(args)} failed: {result.stderr.strip()}")
    return time.perf_counter() - start


def up_times(clis: dict[str, Klinkctl], backend_of: dict[str, str], runs: int) -> dict[str, list[float]]:
    """Each backend's `up` (state dir kept from the previous one, the image present), alternating backends."""
    times: dict[str, list[float]] = {name: [] for name in clis}
    for _ in range(runs):
        for name, cli in clis.items():
            times[name].append(timed(cli, "up", *cli.port_options, "--backend", backend_of[name], *STACK_OPTIONS))
            timed(cli, "down")
    return times


def bench(cli: Klinkctl, results: Path, rate: int) -> Path:
    before = set(results.glob("ysb-*"))
    timed(cli, "bench", "ysb", "--queries", "4", "--rate", str(rate), "--duration", "20s", "--warmup", "5s",
          "--window", "3s", "--generator-cpus", "0", "--results", str(results))
    (run_dir,) = set(results.glob("ysb-*")) - before
    return run_dir


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--up-runs", type=int, default=3)
    parser.add_argument("--rate", type=int, default=4000, help="events/s per query, 4 queries")
    args = parser.parse_args()
    root = Path("results") / time.strftime("backends-%Y%m%d-%H%M%S")
    clis = {name: Klinkctl(Path(f"/tmp/klink-backends-{name}"), free_ports(PORTS_PER_STACK)) for name in BACKENDS}
    ups = up_times(clis, {name: name for name in BACKENDS}, args.up_runs)
    for name, cli in clis.items():
        timed(cli, "up", *cli.port_options, "--backend", name, *STACK_OPTIONS)
    runs: dict[str, list[Path]] = {name: [] for name in BACKENDS}
    try:
        for repetition in range(args.runs):
            for name in (BACKENDS if repetition % 2 == 0 else BACKENDS[::-1]):
                runs[name].append(bench(clis[name], root / name, args.rate))
    finally:
        for cli in clis.values():
            cli("down")
    report(root, ups, runs)


def report(root: Path, ups: dict[str, list[float]], runs: dict[str, list[Path]]) -> None:
    means, out = {}, {"up_s": ups, "runs": {k: [str(p) for p in v] for k, v in runs.items()}, "backends": {}}
    for name, dirs in runs.items():
        summaries = [json.loads((d / "summary.json").read_text()) for d in dirs]
        valid = [s for s in summaries if s["comparison"]["valid"]]
        means[name] = [s["swm_latency_ms"]["mean"] for s in valid]
        low, high = t_interval(means[name]) if len(means[name]) > 1 else (float("nan"),) * 2
        out["backends"][name] = {"up_median_s": statistics.median(ups[name]), "runs": len(dirs),
                                 "invalid": len(dirs) - len(valid), "mean_ms": statistics.fmean(means[name]),
                                 "mean_ci": [low, high],
                                 "source_read_per_s": statistics.fmean(s["throughput"]["flink_source_records_per_s"]
                                                                       for s in valid)}
    ratio, low, high = ratio_interval(means["local"], means["compose"])
    out["compose_over_local"] = {"ratio": ratio, "ci": [low, high]}
    root.mkdir(parents=True, exist_ok=True)
    (root / "summary.json").write_text(json.dumps(out, indent=1))
    print(f"{'backend':8} {'up (median s)':>14} {'runs':>5} {'invalid':>8} {'mean SWM ms [95% CI]':>26} {'read/s':>8}")
    for name, row in out["backends"].items():
        print(f"{name:8} {row['up_median_s']:14.1f} {row['runs']:5d} {row['invalid']:8d} "
              f"{row['mean_ms']:10.0f} [{row['mean_ci'][0]:.0f}-{row['mean_ci'][1]:.0f}] {row['source_read_per_s']:8.0f}")
    print(f"compose / local mean: {ratio:.2f} [{low:.2f}-{high:.2f}] (Welch, across runs); {root}/summary.json")


if __name__ == "__main__":
    main()
