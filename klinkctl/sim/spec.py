"""The simulator's input (io.klink.sim.SimSpec, JSON) made from a run spec: the same queries, window offsets, rates,
delay and gap models, scheduler parameters and seed a `bench` run of that spec would use, plus the simulated
machine (klinkctl.sim.options)."""

from __future__ import annotations

import math
from statistics import NormalDist

from klinkctl.run.bench import drain_cap_ms, progress_after_end_ms
from klinkctl.run.config import RunSpec
from klinkctl.sim.graphs import Costs, query_tasks
from klinkctl.workloads.common import Plan

#: Epoch ms the simulated clock starts at: fixed, so a spec and seed give the same files bit for bit.
SIM_START_MS = 1_800_000_000_000
MIB = 1 << 20
#: Heap a TaskManager uses before any window state or queued record (Flink's own structures).
BASE_HEAP_FRACTION = 0.2
#: Heap bytes per key of an open window (the key, its count and the window's map entry).
STATE_BYTES_PER_KEY = 100
#: The golden ratio's fraction: seed x this, mod 1, is a low-discrepancy sequence (Weyl's), so a sweep's consecutive
#: seeds spread over the whole distribution (--background-burst-spread).
GOLDEN_FRACTION = (math.sqrt(5) - 1) / 2


def seed_quantile(seed: int) -> float:
    """A quantile in (0, 1) for a seed: consecutive seeds' quantiles are spread evenly (five pseudo-random draws
    would leave their mean off by about a half standard deviation, mixing a shift of the mean into the spread)."""
    return (seed * GOLDEN_FRACTION) % 1.0 or 0.5


def background_burst_ms(config: RunSpec) -> float:
    """The run's stop-the-world burst length: --background-burst-ms, or with --background-burst-spread s > 0 that
    length x exp(s z - s^2/2), z the standard normal's quantile of the run's seed (seed_quantile): a log-normal whose
    mean is --background-burst-ms. Runs of one seed (a sweep's repetition) have the same length under every policy."""
    spread = config.background_burst_spread
    if spread <= 0:
        return config.background_burst_ms
    z = NormalDist().inv_cdf(seed_quantile(config.seed))
    return config.background_burst_ms * math.exp(spread * z - spread * spread / 2)


def sim_spec(config: RunSpec, plan: Plan, calibration: Costs | None) -> dict:
    tasks = query_tasks(config, calibration)
    heap = config.heap_mb * MIB
    return {
        "runId": plan.run_id, "seed": config.seed, "startMs": SIM_START_MS,
        "durationMs": config.duration_ms, "warmupMs": config.warmup_ms, "drainCapMs": drain_cap_ms(config),
        "progressAfterEndMs": progress_after_end_ms(config),
        "policy": config.agent_policy,
        "policyParams": {str(k): str(v) for k, v in config.scheduler_params().items() if k != "enforce"},
        "enforce": config.enforce,
        "nodes": config.nodes, "coresPerNode": config.node_cpu,
        "backgroundCpuFraction": config.background_cpu,
        "backgroundBurstMs": background_burst_ms(config),
        "otherThreadsShare": config.other_threads_share, "otherThreadsBurstMs": config.other_threads_burst_ms,
        "gcPressure": config.gc_pressure,
        "bufferTimeoutMs": config.network_flush_ms,
        "cpuPeriodMs": config.cpu_period_ms, "queues": config.queues,
        "queueCapacityRecords": config.queue_capacity, "heapBytes": heap,
        "baseHeapBytes": int(heap * BASE_HEAP_FRACTION), "recordBytes": config.record_bytes,
        "stateBytesPerKey": STATE_BYTES_PER_KEY, "cycleCostNs": config.cycle_cost_ns,
        "cycleCostNsPerTask": config.cycle_cost_per_task_ns, "switchCostNs": config.switch_cost_ns,
        "watermarkIntervalMs": config.watermark_interval_ms, "watermarkBoundMs": config.watermark_bound_ms,
        "delay": config.network_delay.spec, "gaps": config.gaps.generator_arg, "ratePerQuery": config.rate,
        "eventsPerDelay": config.events_per_delay, "placement": config.placement, "forwarding": config.forwarding,
        "queries": [{"id": q.id, "windowOffsetMs": q.window_offset_ms, "tasks": tasks} for q in plan.queries],
    }
