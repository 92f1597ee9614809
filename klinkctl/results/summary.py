"""A run's summary.json, computed from its CSV tables (so it can always be recomputed from them)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from klinkctl import rate_schedule
from klinkctl.delay import fit_report, parse_delay
from klinkctl.rate_schedule import RateSchedule
from klinkctl.results import windows
from klinkctl.results.accuracy import accuracy_summary
from klinkctl.results.links import link_summary
from klinkctl.results.record_latency import EXPECTED_RECORDS_FILE, run_record_latency
from klinkctl.results.stats import latency_summary, proportion_interval
from klinkctl.results.tables import measured_rows, read_table
from klinkctl.results.validity import assess
from klinkctl.files import write_json
from klinkctl.workloads.options import RECORD_WORKLOADS

GENERATOR_BEHIND_LIMIT = 0.01  # DESIGN.md §4: more than 1 % of events behind schedule -> flagged


def _measured(frame: pd.DataFrame, column: str, generation_end_ms: int | None = None) -> list[float]:
    """The column after the warm-up; with generation_end_ms, windows ending after it (partial: the generator
    stopped inside them) are left out too."""
    if frame.empty or column not in frame:
        return []
    return measured_rows(frame, generation_end_ms)[column].dropna().tolist()


def flink_source_rate(throughput: pd.DataFrame, measured: tuple[int, int]) -> float | None:
    """Mean over the measured seconds (after warm-up, before the generator's end) of the records/s the
    source tasks of all queries read."""
    if throughput.empty:
        return None
    sources = throughput[throughput["job_vertex"].str.contains("/source", regex=False)
                         & throughput["time"].between(*measured)]
    per_second = sources.groupby("time")["records_in_per_s"].sum()
    return float(per_second.mean()) if len(per_second) else None


def metrics_lag_ms(throughput: pd.DataFrame, generation_start_ms: int) -> int | None:
    """How long after the generation's start Flink's source counters first show events read: the REST fetch
    interval and the job's start (3-4 s on a busy machine), by which every span of them is shifted."""
    if throughput.empty:
        return None
    reading = throughput[throughput["job_vertex"].str.contains("/source", regex=False)
                         & (throughput["records_in_per_s"] > 0)]
    return max(0, int(reading["time"].min()) - generation_start_ms) if not reading.empty else None


def surge_throughput(throughput: pd.DataFrame, generator_seconds: pd.DataFrame, schedule: RateSchedule,
                     generation_start_ms: int) -> dict | None:
    """During a surge (`--rate-schedule surge:…`): the events/s the generator offered and Flink's sources read.
    Offered beyond what the query sustains, backpressure leaves the rest in Kafka, so the read rate is the
    throughput it sustains under the surge, the figure AdCom compares combiners by (§4.2, Fig. 4a)."""
    lag = metrics_lag_ms(throughput, generation_start_ms)
    if schedule.kind != "surge" or lag is None or generator_seconds.empty:
        return None
    first, last = schedule.start_ms // 1000, (schedule.start_ms + schedule.length_ms) // 1000
    offered = generator_seconds[generator_seconds["second"].between(first, last - 1)]["sent"].mean()
    start = generation_start_ms + schedule.start_ms + lag
    read = flink_source_rate(throughput, (start, start + schedule.length_ms - 1))  # the samples of the surge's seconds
    if read is None or not offered:
        return None
    return {"factor": schedule.factor, "span_s": schedule.length_ms / 1000, "metrics_lag_ms": lag,
            "offered_events_per_s": float(offered), "read_events_per_s": read, "read_fraction": read / offered}


def estimator_accuracy(estimator: pd.DataFrame, after_ms: int | None, until_ms: int | None = None) -> dict:
    """Per estimator (klink, lr), over the SWMs of windows whose deadline lies in the measured span (after the
    warm-up and, with until_ms, not after the generator's end: the windows latency.csv measures): of the scored
    SWMs, the fraction ingested inside the predicted interval (paper Fig. 9c), the median interval width and the
    mean absolute error of the point estimate (the predicted mean); and the SWMs not scored, per reason
    (estimator.csv → skipped; an older estimator.csv without that column has none)."""
    if estimator.empty:
        return {}
    if after_ms is not None:
        estimator = estimator[estimator["deadline_ms"] >= after_ms]
    if until_ms is not None:
        estimator = estimator[estimator["deadline_ms"] <= until_ms]
    skipped = estimator["skipped"] if "skipped" in estimator else pd.Series(pd.NA, index=estimator.index)
    out = {}
    for name, rows in estimator.groupby("estimator"):
        reasons = skipped[rows.index].dropna()
        out[str(name)] = {**_scored_accuracy(rows[skipped[rows.index].isna()]),
                          "confidence": float(rows["confidence"].iloc[0]),
                          "skipped": {str(k): int(v) for k, v in reasons.value_counts().sort_index().items()}}
    return out


def _scored_accuracy(scored: pd.DataFrame) -> dict:
    if scored.empty:
        return {"swms": 0, "inside_fraction": None, "inside_ci": None, "median_width_ms": None,
                "mean_abs_error_ms": None}
    inside = scored["inside"].astype(str).str.lower().eq("true")
    return {"swms": int(len(scored)), "inside_fraction": float(inside.mean()),
            # how sure the fraction is: 70 SWMs cannot tell 93 % from 95 % (docs/scheduler.md)
            "inside_ci": list(proportion_interval(int(inside.sum()), len(scored))),
            # rounded to the CSV's 0.1 ms: the difference of two epoch-ms floats carries ±1e-4 ms of noise
            "median_width_ms": round(float((scored["t_max_ms"] - scored["t_min_ms"]).median()), 1),
            "mean_abs_error_ms": float(scored["error_ms"].abs().mean())}


def windows_expected(config: dict, measured: tuple[int, int] | None) -> int | None:
    """A lower bound of the windows every query should fire with an end inside the measured span, for workloads
    whose exact count is not known ahead (LRB's toll windows fire only where enough cars are)."""
    if not measured or not config.get("window_ms") or not config.get("queries"):
        return None
    if config.get("workload") in RECORD_WORKLOADS:  # measured per record: no windows to expect
        return None
    period = windows.firing_period_ms(config)
    if config.get("stressed"):
        period //= 3  # lrb --stressed: the query's last window (tolls) is a third of the slide
    return int(config["queries"]) * max(0, (measured[1] - measured[0]) // period - 1)


def window_census(run_dir: Path, config: dict, measured: tuple[int, int] | None, latency: pd.DataFrame) -> dict:
    """windows_expected (exact per query where the workload allows it) and windows_censored: expected windows
    that never fired. A policy that starves a query, or a backlog not worked off before collection stopped,
    leaves windows without a latency row, and the mean would silently hide them."""
    expected = windows.expected_by_query(config, windows.query_offsets(run_dir), measured) if measured else {}
    if not expected:
        return {"windows_expected": windows_expected(config, measured), "windows_expected_exact": False,
                "windows_expected_per_query": None, "windows_censored": None, "windows_censored_total": None}
    fired = measured_rows(latency, measured[1]) if not latency.empty else pd.DataFrame()
    censored = windows.censored_by_query(expected, fired)
    return {"windows_expected": int(sum(ends.size for ends in expected.values())), "windows_expected_exact": True,
            "windows_expected_per_query": {query: int(ends.size) for query, ends in expected.items()},
            "windows_censored": censored, "windows_censored_total": int(sum(censored.values()))}


def read_json(path: Path) -> dict:
    return json.loads(path.read_text()) if path.is_file() else {}


#: Where observed delays come from, best first: Kafka append time − event time (sampled by the harness,
#: includes link delay such as netem and producer batching), and the generator's send time − event time.
DELAY_OBSERVATIONS = {"kafka_append": "ingestion-delays.csv", "generator_send": "delays.csv"}


def delay_fit(run_dir: Path, spec: str | None) -> dict:
    """The delays observed at ingestion against the requested model, plus the send-side fit when both exist."""
    if not spec:
        return {}
    model = parse_delay(spec)
    fits = {}
    for where, file in DELAY_OBSERVATIONS.items():
        table = read_table(run_dir / file)
        if not table.empty:
            fits[where] = fit_report(model, table["delay_ms"].to_numpy(), table["events"].to_numpy())
    if not fits:
        return {}
    measured_at = next(iter(fits))
    return {"model": spec, "network_model": model.spec, "measured_at": measured_at, **fits[measured_at],
            "at_send": fits.get("generator_send") if measured_at != "generator_send" else None}


def stall_in_interval(intervals: pd.Series, recorded: pd.Series) -> pd.Series:
    """The stop of the world inside each interval between cycles. HotSpot adds a safepoint to its totals only after
    it has let the threads go, so a cycle that starts right after one often reads it a cycle late: the part of a
    recorded stop longer than its own interval happened in the interval before (docs/scheduler.md, "Priority
    enforcement and the JVM's locks")."""
    spill = (recorded - intervals).clip(lower=0)
    return recorded.clip(upper=intervals) + spill.shift(-1, fill_value=0)


def scheduler_overhead(scheduler: pd.DataFrame) -> dict:
    """Cycles the runtime scheduler ran and the time each took (collect + decide + pause/resume)."""
    if scheduler.empty:
        return {}
    # cycles with no task registered (before the job's tasks start, after they end) are not overhead of the run
    scheduler = scheduler[scheduler["tasks"] > 0]
    if scheduler.empty:
        return {}
    cycle_us = scheduler["cycle_ns"] / 1000.0
    overhead = {"cycles": int(len(scheduler)), "mean_cycle_us": float(cycle_us.mean()),
                "p99_cycle_us": float(cycle_us.quantile(0.99)), "max_cycle_us": float(cycle_us.max())}
    # Whether the scheduler thread got the CPU on time: the wall time from one cycle's start to the next
    # (r when on time; longer when the thread waited behind the tasks it schedules, or the JVM stalled).
    intervals = scheduler["time"].diff().dropna()
    span_ms = scheduler["time"].max() - scheduler["time"].min()
    if not intervals.empty:
        overhead["mean_cycle_interval_ms"] = float(intervals.mean())
        overhead["p99_cycle_interval_ms"] = float(intervals.quantile(0.99))
    # A garbage collection stops every Java thread, the scheduler's and its tasks' alike: the interval less the
    # collection time inside it is how late the thread was for want of the CPU the tasks had. safepoint_ms counts
    # every stop of the world (reaching it too), G1's remark and cleanup pauses included, which gc_ms misses.
    for stall, name in (("gc_ms", "gc"), ("safepoint_ms", "safepoint")):
        if stall in scheduler and not intervals.empty and (scheduler[stall] >= 0).all():
            stopped = scheduler[stall].loc[intervals.index]
            if name == "safepoint":
                stopped = np.maximum(stall_in_interval(intervals, stopped), scheduler["gc_ms"].loc[intervals.index])
            beyond = (intervals - stopped).clip(lower=0)
            overhead[f"p99_cycle_interval_beyond_{name}_ms"] = float(beyond.quantile(0.99))
            if span_ms > 0:
                overhead[f"{name}_stall_fraction"] = float(scheduler[stall].iloc[1:].sum() / span_ms)
    if "cycle_cpu_ns" in scheduler:  # the scheduler thread's own CPU time (-1: the JVM cannot measure it)
        cpu_ns = scheduler["cycle_cpu_ns"][scheduler["cycle_cpu_ns"] >= 0]
        if not cpu_ns.empty:
            overhead["mean_cycle_cpu_us"] = float(cpu_ns.mean() / 1000.0)
            if span_ms > 0:  # cores' worth of CPU the scheduler used, to set against the TaskManager's CPU
                overhead["cpu_cores_used"] = float(cpu_ns.sum() / 1e6 / span_ms)
    if "memory_used" in scheduler:  # the TaskManager's live heap after the latest GC, as a fraction of its maximum
        overhead["memory_used_mean"] = float(scheduler["memory_used"].mean())
        overhead["memory_used_max"] = float(scheduler["memory_used"].max())
    if "why" in scheduler:  # a cycle's mode as prefixes of `why`: KlinkPolicy.explainLastChoice, Aging.explain
        why = scheduler["why"].fillna("").astype(str)
        overhead["light_cycle_fraction"] = float(why.str.startswith("light:").mean())
        overhead["memory_mode_cycle_fraction"] = float(why.str.startswith("mm:").mean())
        overhead["aging_cycle_fraction"] = float(why.str.contains("aged:", regex=False).mean())
    return overhead


def late_cycles_flag(scheduler: dict, config: dict, gc: str | None) -> str | None:
    """Says so when the scheduler's cycles came later than issue 18's bound (p99 interval <= 2r), and the cause
    found for priority enforcement on G1 (docs/scheduler.md, "Priority enforcement and the JVM's locks")."""
    p99 = scheduler.get("p99_cycle_interval_ms")
    bound = 2 * float(config.get("cycle_ms") or 0)
    if p99 is None or not bound or p99 <= bound:
        return None
    beyond = scheduler.get("p99_cycle_interval_beyond_safepoint_ms")
    text = (f"scheduler cycles came late: p99 interval {p99:.0f} ms > 2r = {bound:.0f} ms"
            + (f" ({beyond:.0f} ms beyond the JVM's stops)" if beyond is not None else ""))
    demoting = config.get("enforce") == "priority" or config.get("policy") == "os-priority"
    if demoting and gc == "g1":
        text += ("; on G1, task threads at nice 19 hold its heap lock while they take a new region and every "
                 "thread that needs one waits for them (docs/scheduler.md): `klinkctl up --tm-gc parallel`")
    return text


def stack_collector(run_dir: Path) -> str | None:
    """The TaskManagers' collector of the stack the run ran on (config.yaml), None if not known."""
    import yaml

    try:
        stack = (yaml.safe_load((run_dir / "config.yaml").read_text()) or {}).get("stack") or {}
    except (OSError, yaml.YAMLError, AttributeError):
        return None
    return stack.get("taskmanager_gc")


def build_summary(run_dir: Path, run_id: str, config: dict, status: str, reason: str,
                  measured: tuple[int, int] | None, generator_summary: dict) -> dict:
    """measured = (end of warm-up, end of generation) in epoch ms, None if the run never started."""
    latency = read_table(run_dir / "latency.csv")
    markers = read_table(run_dir / "markers.csv")
    watermarks = read_table(run_dir / "watermarks.csv")
    throughput = read_table(run_dir / "throughput.csv")
    behind = generator_summary.get("behind_fraction")
    swm_latencies = _measured(latency, "swm_latency_ms", measured[1] if measured else None)
    census = window_census(run_dir, config, measured, latency)
    expected, fired, censored = census["windows_expected"], len(swm_latencies), census["windows_censored_total"]
    flags = []
    if censored:
        per_query = ", ".join(f"{q}: {n}" for q, n in census["windows_censored"].items() if n)
        flags.append(f"{censored} of {expected} windows never fired before collection stopped (censored; {per_query}):"
                     " the latency statistics are a lower bound")
    elif not census["windows_expected_exact"] and expected and fired < expected:
        flags.append(f"only {fired} of at least {expected} windows fired in the measured span: "
                     "queries were starved; their latency is not in the statistics")
    if behind is not None and behind > GENERATOR_BEHIND_LIMIT:
        flags.append(f"generator fell behind schedule for {behind:.1%} of events (limit 1 %): "
                     "the measured latency may hide coordinated omission")
    scheduler = scheduler_overhead(read_table(run_dir / "scheduler.csv"))
    late = late_cycles_flag(scheduler, config, stack_collector(run_dir))
    if late:
        flags.append(late)
    summary = {
        "status": status,
        "reason": reason,
        "run": run_id,
        "workload": config.get("workload"),
        "policy": config.get("policy"),
        "sampler": config.get("sampler", "none"),
        "warmup_until_ms": measured[0] if measured else None,
        "swm_latency_ms": {**latency_summary(swm_latencies), "lower_bound": bool(censored)},
        "marker_latency_ms": latency_summary(_measured(markers, "latency_ms")),
        "watermark_propagation_ms": latency_summary(_measured(watermarks, "propagation_ms")),
        "windows_fired": int(len(latency)),
        "windows_measured": fired,
        **census,
        "drain": read_json(run_dir / "drain.json"),
        **({"late_state": read_json(run_dir / "late-state.json")} if (run_dir / "late-state.json").is_file() else {}),
        **({"tm_links": links} if (links := link_summary(read_table(run_dir / "links.csv"), measured)) else {}),
        "late_dropped": int(latency["late_dropped"].sum()) if "late_dropped" in latency else 0,
        "throughput": {
            "generator_events_per_s": generator_summary.get("achieved_rate"),
            "flink_source_records_per_s": flink_source_rate(throughput, measured) if measured else None,
            "during_surge": _surge(run_dir, config, throughput, measured),
        },
        "generator": {k: generator_summary.get(k) for k in
                      ("events_sent", "events_scheduled", "target_rate", "rate_schedule", "achieved_rate",
                       "behind_events", "behind_fraction", "fell_behind", "lag_p99_ms", "max_lag_ms", "status")},
        "delay": delay_fit(run_dir, config.get("delay")),
        "scheduler": scheduler,
        "os_priority": read_json(run_dir / "os_priority.json"),  # klinkctl.run.os_priority: periods, threads
        "estimator": estimator_accuracy(read_table(run_dir / "estimator.csv"), *(measured or (None, None))),
        "accuracy": accuracy_summary(read_table(run_dir / "error.csv"), read_table(run_dir / "sampling.csv"),
                                     float(config.get("error") or 0.05), measured[1] if measured else None),
        "flags": flags,
    }
    record_latency = run_record_latency(run_dir)  # also writes record-percentiles.csv
    if record_latency is not None:  # only workloads whose sinks publish per-record latency
        expected = expected_records(run_dir, generator_summary)
        record_latency["records_expected"] = expected
        record_latency["records_missing"] = expected - record_latency["records_total"] if expected is not None else None
        summary["record_latency"] = record_latency
        if record_latency["records_missing"]:
            flags.append(f"{record_latency['records_missing']} of {expected} records never reached the sinks "
                         "(lost, or still queued when collection stopped)")
    summary["comparison"] = assess(summary).as_summary()  # docs/results.md: which runs are compared
    return summary


def expected_records(run_dir: Path, generator_summary: dict) -> int | None:
    """The records the sinks should get: every event sent, or, behind a filter, those it lets through."""
    if (run_dir / EXPECTED_RECORDS_FILE).is_file():
        return int(read_json(run_dir / EXPECTED_RECORDS_FILE)["records"])
    return generator_summary.get("events_sent")


def _surge(run_dir: Path, config: dict, throughput: pd.DataFrame, measured: tuple[int, int] | None) -> dict | None:
    if not measured or not str(config.get("rate_schedule", "steady")).startswith("surge:"):
        return None
    schedule = rate_schedule.parse(config["rate_schedule"], int(config["duration_ms"]))
    return surge_throughput(throughput, read_table(run_dir / "generator.csv"), schedule,
                            measured[0] - int(config.get("warmup_ms") or 0))


def write_summary(run_dir: Path, summary: dict) -> Path:
    return write_json(run_dir / "summary.json", summary)
