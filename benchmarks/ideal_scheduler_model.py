"""What could an ideal SWM-aware scheduler gain over processor sharing? A fluid model of Q windowed queries on one core.

Each query generates work at rho/Q core-seconds per second; its tumbling windows (size W, seeded offsets,
as `klinkctl bench` de-aligns them) end at D, and the window's sweeping watermark (SWM) is ingested at
D + B (B = the watermark bound). The window fires once its query has processed all work generated up to
the SWM; its latency is fire time - D, so B is a floor no scheduler removes. The core stalls now and then
(Poisson, e.g. GC, cgroup throttling, Kafka), which is what builds queues at rho < 1.

Two schedulers share the core:
- `ps`: processor sharing among queries with queued work (the OS scheduler under Flink's Default);
- `oracle`: the query whose ingested SWM is oldest first, exactly the work that SWM needs, then processor
  sharing for the rest. It knows every SWM's ingestion time and cost, which Klink has to estimate: it shows
  what SWM-aware ordering gains when its estimates are perfect and throughput is the same.

It prints mean / p99 latency and the oracle's ratios to `ps` per (B, Q), to read the measured ratios against
(the paper's targets: mean <= 0.5, p99 <= 0.45 of Default; docs/scheduler.md). No Flink, no Kafka: a model.

Usage: .venv/bin/python benchmarks/ideal_scheduler_model.py [--rho 0.95] [--queries 4,8,16] [--bounds 0.2,1.0]
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Model:
    queries: int
    rho: float  # offered load, fraction of the core
    bound_s: float  # watermark bound B
    window_s: float = 3.0
    stalls_per_s: float = 0.1
    stall_s: float = 0.5
    duration_s: float = 400.0
    warmup_s: float = 30.0
    step_s: float = 0.001


def share(capacity: float, backlog: np.ndarray) -> np.ndarray:
    """Processor sharing of `capacity` among queries with backlog; what one does not need goes to the others."""
    given = np.zeros_like(backlog)
    left = capacity
    active = backlog > 1e-12
    while left > 1e-15 and active.any():
        portion = np.minimum(backlog - given, left / active.sum()) * active
        given += portion
        left -= portion.sum()
        active = backlog - given > 1e-12
    return given


def stalled_steps(m: Model, rng: np.random.Generator) -> np.ndarray:
    steps = int(m.duration_s / m.step_s)
    stalled = np.zeros(steps, dtype=bool)
    t = rng.exponential(1 / m.stalls_per_s)
    while t < m.duration_s:
        stalled[int(t / m.step_s):int((t + m.stall_s) / m.step_s)] = True
        t += rng.exponential(1 / m.stalls_per_s)
    return stalled


def simulate(m: Model, policy: str, seed: int = 1) -> np.ndarray:
    """SWM latencies (s) of the windows that fired after the warm-up."""
    if policy not in ("ps", "oracle"):
        raise ValueError(f"policy must be 'ps' or 'oracle', got {policy!r}")
    rng = np.random.default_rng(seed)
    next_end = rng.uniform(0, m.window_s, m.queries) + m.window_s
    stalled = stalled_steps(m, rng)
    generated = np.zeros(m.queries)
    processed = np.zeros(m.queries)
    pending: list[list[tuple[float, float]]] = [[] for _ in range(m.queries)]  # (D, work the SWM needs)
    latencies = []
    for step, stall in enumerate(stalled):
        now = step * m.step_s
        generated += m.rho / m.queries * m.step_s
        for q in np.flatnonzero(now >= next_end + m.bound_s):
            pending[q].append((next_end[q], generated[q]))
            next_end[q] += m.window_s
        capacity = 0.0 if stall else m.step_s
        if policy == "oracle":
            for _, q in sorted((waiting[0][0], q) for q, waiting in enumerate(pending) if waiting):
                needed = min(capacity, max(pending[q][0][1] - processed[q], 0.0))
                processed[q] += needed
                capacity -= needed
        processed += share(capacity, generated - processed)
        for q, waiting in enumerate(pending):
            while waiting and processed[q] >= waiting[0][1] - 1e-12:
                deadline, _ = waiting.pop(0)
                if now > m.warmup_s:
                    latencies.append(now - deadline)
    return np.array(latencies)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rho", type=float, default=0.95)
    parser.add_argument("--queries", default="4,8,16")
    parser.add_argument("--bounds", default="0.2,1.0", help="watermark bounds B in seconds")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    try:
        bounds = [float(b) for b in args.bounds.split(",")]
        query_counts = [int(q) for q in args.queries.split(",")]
    except ValueError:
        parser.error("--bounds takes seconds and --queries counts, comma-separated, e.g. --bounds 0.2,1 --queries 4,8")
    if args.rho <= 0 or min(bounds) < 0 or min(query_counts) < 1:
        parser.error("--rho must be > 0, --bounds >= 0 and --queries >= 1")
    print(f"fluid model, load {args.rho:.2f} of one core, "
          f"stalls {Model.stall_s} s every {1 / Model.stalls_per_s:.0f} s on average, windows {Model.window_s:.0f} s; "
          "oracle = oldest ingested SWM first")
    print(f"{'B s':>5} {'queries':>7} {'ps mean':>8} {'ps p99':>7} {'oracle mean':>11} {'oracle p99':>10} "
          f"{'mean ratio':>10} {'p99 ratio':>9}")
    for bound in bounds:
        for queries in query_counts:
            model = Model(queries=queries, rho=args.rho, bound_s=bound)
            ps, oracle = simulate(model, "ps", args.seed), simulate(model, "oracle", args.seed)
            print(f"{bound:>5.1f} {queries:>7} {ps.mean():>8.2f} {np.percentile(ps, 99):>7.2f} {oracle.mean():>11.2f} "
                  f"{np.percentile(oracle, 99):>10.2f} {oracle.mean() / ps.mean():>10.2f} "
                  f"{np.percentile(oracle, 99) / np.percentile(ps, 99):>9.2f}")


if __name__ == "__main__":
    main()
