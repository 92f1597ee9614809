"""What could an ideal SWM-aware scheduler gain over processor sharing? A fluid model of Q windowed queries on one core.

Each query generates work at rho/Q core-seconds per second; its tumbling windows (size W, seeded offsets,
as `klinkctl bench` de-aligns them) end at D. Events reach the source at event time + a network delay drawn
from the run's delay model (klinkctl.delay, the SciPy twin of the generator's, rounded to whole ms); the
source's watermark is the largest event time it has seen - B (B = the watermark bound), emitted every
watermark interval, so the window's sweeping watermark (SWM) is ingested once an event of event time >= D + B
has arrived (at D + B with no delay; later with a delay that is never small). The window fires once its
query has processed all work generated up to the SWM's ingestion; its latency is fire time - D, so B is a
floor no scheduler removes. The core stalls now and then (Poisson, e.g. GC, cgroup throttling, Kafka), which
is what builds queues at rho < 1; at rho > 1 the queue grows through the run.

Two schedulers share the core:
- `ps`: processor sharing among queries with queued work (the OS scheduler under Flink's Default). All queries
  get the same work, so their queues stay equal: the total is a one-server fluid queue (Lindley's recursion),
  computed in closed form;
- `oracle`: the query whose ingested SWM is oldest first, exactly the work that SWM needs, then processor
  sharing for the rest. It knows every SWM's ingestion time and cost, which Klink has to estimate: it shows
  what SWM-aware ordering gains when its estimates are perfect and throughput is the same. Stepped in time,
  every seed at once (NumPy over seeds x queries).

`ideal_cell` evaluates one cell of a sweep (queries, load, bound, window, delay model, run length) over seeds:
mean and p99 latency of both and the oracle's ratios to `ps` with t intervals across seeds; `klinkctl report`
reads a regime map's cells against it (klinkctl.results.regimes); benchmarks/ideal_scheduler_model.py prints
it per (B, Q). No Flink, no Kafka: a model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from klinkctl.delay import parse_delay
from klinkctl.errors import KlinkError
from klinkctl.results.stats import t_interval

POLICIES = ("ps", "oracle")
TOLERANCE = 1e-9  # core-seconds: work counts as done within this


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
    delay: str = "const:0ms"  # network delay model, klinkctl's grammar (klinkctl.delay)
    watermark_interval_s: float = 0.0  # the source emits its watermark every interval (0 = at once)
    events_per_s: float = 1000.0  # per query, sampled for the watermark (the work itself is fluid)

    @property
    def steps(self) -> int:
        return int(round(self.duration_s / self.step_s))


@dataclass(frozen=True)
class Swms:
    """Every window's SWM per seed and query: window end D (s), ingestion step and the work (core-s) it needs."""

    ends: np.ndarray  # (seeds, queries, windows)
    ingested: np.ndarray  # step at which the SWM is ingested; `steps` = not within the run
    needs: np.ndarray


def share(capacity: float, backlog: np.ndarray) -> np.ndarray:
    """Processor sharing of `capacity` among queries with backlog; what one does not need goes to the others."""
    return share_rows(np.array([capacity]), backlog[None, :])[0]


def share_rows(capacity: np.ndarray, backlog: np.ndarray) -> np.ndarray:
    """`share` per row: capacity (rows,) water-filled over backlog (rows, queries)."""
    backlog = np.maximum(backlog, 0.0)
    ordered = np.sort(backlog, axis=1)
    queries = backlog.shape[1]
    before = np.cumsum(ordered, axis=1) - ordered  # backlog of the smaller queues
    served_at = before + ordered * (queries - np.arange(queries))  # served if the level were each queue's backlog
    enough = served_at >= capacity[:, None]
    first = np.argmax(enough, axis=1)
    rows = np.arange(len(capacity))
    level = (capacity - before[rows, first]) / (queries - first)
    level = np.where(enough.any(axis=1), level, np.inf)  # capacity for every queue's whole backlog
    return np.minimum(backlog, level[:, None])


def stalled_steps(m: Model, rng: np.random.Generator) -> np.ndarray:
    stalled = np.zeros(m.steps, dtype=bool)
    t = rng.exponential(1 / m.stalls_per_s)
    while t < m.duration_s:
        stalled[int(t / m.step_s):int((t + m.stall_s) / m.step_s)] = True
        t += rng.exponential(1 / m.stalls_per_s)
    return stalled


def ingestion_times(m: Model, rng: np.random.Generator, thresholds: np.ndarray) -> np.ndarray:
    """When one query's source has seen an event of event time >= each threshold (D + B), given its delays:
    the earliest arrival among those events (inf if none within the run), then the next watermark emission."""
    delay = parse_delay(m.delay)
    if delay.kind == "const" and delay.mean_ms == 0:
        arrival = thresholds.astype(float)
    else:
        event_times = np.arange(0.0, m.duration_s, 1 / m.events_per_s)
        delays_s = delay.sample_ms(event_times.size, rng) / 1000
        first_arrival_from = np.minimum.accumulate((event_times + delays_s)[::-1])[::-1]
        index = np.ceil(thresholds * m.events_per_s - 1e-9).astype(int)
        arrival = np.where(index < event_times.size, first_arrival_from[np.minimum(index, event_times.size - 1)],
                           np.inf)
    if m.watermark_interval_s > 0:
        arrival = np.ceil(arrival / m.watermark_interval_s - 1e-9) * m.watermark_interval_s
    return arrival


def draw(m: Model, seeds: list[int]) -> tuple[np.ndarray, Swms]:
    """Per seed (the same for both policies: a paired comparison): the stalled steps and every SWM."""
    windows = int(m.duration_s / m.window_s) + 1
    stalls, ends, ingested = [], [], []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        first_end = rng.uniform(0, m.window_s, m.queries) + m.window_s
        stalls.append(stalled_steps(m, rng))
        seed_ends = first_end[:, None] + m.window_s * np.arange(windows)
        ends.append(seed_ends)
        arrival = np.array([ingestion_times(m, rng, query_ends + m.bound_s) for query_ends in seed_ends])
        ingested.append(np.minimum(np.ceil(arrival / m.step_s - 1e-9), m.steps).astype(int))
    ingested_steps = np.array(ingested)
    per_step = m.rho / m.queries * m.step_s  # work each query generates per step
    return np.array(stalls), Swms(np.array(ends), ingested_steps, per_step * (ingested_steps + 1))


def fire_steps_ps(m: Model, stalled: np.ndarray, swms: Swms) -> np.ndarray:
    """Processor sharing: queues stay equal, so the total one is a one-server fluid queue (Lindley)."""
    arrived = m.rho * m.step_s
    capacity = np.where(stalled, 0.0, m.step_s)
    net = np.cumsum(arrived - capacity, axis=1)
    backlog = net - np.minimum(0.0, np.minimum.accumulate(net, axis=1))
    processed = arrived * np.arange(1, m.steps + 1) - backlog  # (seeds, steps), non-decreasing
    fired = np.empty_like(swms.ingested)
    for seed in range(len(stalled)):
        done = np.searchsorted(processed[seed], swms.needs[seed] * m.queries - TOLERANCE * m.queries)
        fired[seed] = np.maximum(done, swms.ingested[seed])
    return np.where(swms.ingested >= m.steps, m.steps, np.minimum(fired, m.steps))


def fire_steps_oracle(m: Model, stalled: np.ndarray, swms: Swms) -> np.ndarray:
    """The oldest ingested SWM first (exactly the work it needs), processor sharing for the rest; every seed
    and query stepped at once."""
    seeds, queries, windows = swms.ends.shape
    processed = np.zeros((seeds, queries))
    next_swm = np.zeros((seeds, queries), dtype=int)
    fired = np.full(swms.ingested.shape, m.steps)
    rows = np.arange(seeds)[:, None]
    per_step = m.rho / m.queries * m.step_s

    def oldest(step: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        index = np.minimum(next_swm, windows - 1)[..., None]
        pending = (next_swm < windows) & (np.take_along_axis(swms.ingested, index, 2)[..., 0] <= step)
        return pending, np.take_along_axis(swms.ends, index, 2)[..., 0], np.take_along_axis(swms.needs, index, 2)[..., 0]

    for step in range(m.steps):
        generated = per_step * (step + 1)
        capacity = np.where(stalled[:, step], 0.0, m.step_s)
        pending, ends, needs = oldest(step)
        needed = np.where(pending, np.maximum(needs - processed, 0.0), 0.0)
        order = np.argsort(np.where(pending, ends, np.inf), axis=1)
        needed_in_order = np.take_along_axis(needed, order, 1)
        before = np.cumsum(needed_in_order, axis=1) - needed_in_order
        given = np.empty_like(needed)
        np.put_along_axis(given, order, np.clip(capacity[:, None] - before, 0.0, needed_in_order), 1)
        processed += given
        processed += share_rows(capacity - given.sum(axis=1), generated - processed)
        while True:
            pending, _, needs = oldest(step)
            done = pending & (processed >= needs - TOLERANCE)
            if not done.any():
                break
            seed_index, query_index = np.nonzero(done)
            fired[seed_index, query_index, next_swm[done]] = step
            next_swm += done
    return fired


def latencies_per_seed(m: Model, policy: str, stalled: np.ndarray, swms: Swms) -> list[np.ndarray]:
    """SWM latencies (s) per seed of the windows that fired after the warm-up."""
    if policy not in POLICIES:
        raise ValueError(f"policy must be 'ps' or 'oracle', got {policy!r}")
    fired = (fire_steps_ps if policy == "ps" else fire_steps_oracle)(m, stalled, swms)
    fire_s = fired * m.step_s
    counted = (fired < m.steps) & (fire_s > m.warmup_s)
    return [fire_s[seed][counted[seed]] - swms.ends[seed][counted[seed]] for seed in range(len(fired))]


def simulate(m: Model, policy: str, seed: int = 1) -> np.ndarray:
    """SWM latencies (s) of the windows that fired after the warm-up, one seed."""
    stalled, swms = draw(m, [seed])
    return latencies_per_seed(m, policy, stalled, swms)[0]


@dataclass(frozen=True)
class CellBound:
    """The model's reading of one sweep cell: mean/p99 latency (s) of `ps` and `oracle`, averaged over seeds,
    and the oracle's ratios to `ps` (per seed, then averaged) with t intervals across seeds."""

    ps_mean_s: float
    ps_p99_s: float
    oracle_mean_s: float
    oracle_p99_s: float
    mean_ratio: float
    mean_ratio_ci: tuple[float, float]
    p99_ratio: float
    p99_ratio_ci: tuple[float, float]
    seeds: int


def ideal_cell(queries: int, rho: float, bound_s: float, window_s: float, delay: str = "const:0ms",
               seeds: int | list[int] = 10, duration_s: float = 20.0, warmup_s: float = 6.0,
               step_s: float = 0.005, watermark_interval_s: float = 0.2, **model) -> CellBound:
    """One sweep cell in the model, both policies on the same draws per seed (1..seeds, or the seeds given).
    A KlinkError for a bad delay spec or a cell no window of which fires after the warm-up."""
    m = Model(queries=queries, rho=rho, bound_s=bound_s, window_s=window_s, delay=delay, duration_s=duration_s,
              warmup_s=warmup_s, step_s=step_s, watermark_interval_s=watermark_interval_s, **model)
    seed_list = list(range(1, seeds + 1)) if isinstance(seeds, int) else list(seeds)
    stalled, swms = draw(m, seed_list)
    ps, oracle = (latencies_per_seed(m, policy, stalled, swms) for policy in POLICIES)
    if any(len(latencies) == 0 for latencies in ps + oracle):
        raise KlinkError(f"model cell queries={queries} load={rho} B={bound_s} s: no window fired after the "
                         f"{warmup_s} s warm-up of {duration_s} s; run longer")
    means = np.array([[a.mean(), b.mean()] for a, b in zip(ps, oracle)])
    p99s = np.array([[np.percentile(a, 99), np.percentile(b, 99)] for a, b in zip(ps, oracle)])
    mean_ratios, p99_ratios = means[:, 1] / means[:, 0], p99s[:, 1] / p99s[:, 0]
    return CellBound(
        ps_mean_s=float(means[:, 0].mean()), ps_p99_s=float(p99s[:, 0].mean()),
        oracle_mean_s=float(means[:, 1].mean()), oracle_p99_s=float(p99s[:, 1].mean()),
        mean_ratio=float(mean_ratios.mean()), mean_ratio_ci=t_interval(mean_ratios),
        p99_ratio=float(p99_ratios.mean()), p99_ratio_ci=t_interval(p99_ratios), seeds=len(seed_list))
