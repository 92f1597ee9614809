"""Is one capacity probe sustainable? After Karimov et al., ICDE'18 ("Benchmarking distributed stream data
processing systems"): over a probe run, (a) the SWM latency does not trend upward, (b) Flink's sources read
what the generator offered, (c) the generator kept its schedule. The thresholds are ``Thresholds``;
docs/capacity.md explains them. ``assess`` is pure (no stack, no files); ``measured_rates`` and
``measured_windows`` read what it judges from a run directory.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from klinkctl.results import stats as latency_stats
from klinkctl.results.summary import metrics_lag_ms
from klinkctl.results.validity import MAX_LAG_FRACTION
from klinkctl.stack.health import out_of_memory

#: Flink's REST counters are refreshed once a second (metrics.fetcher.update-interval, klinkctl/stack/flink.py).
METRICS_RESOLUTION_S = 1.0

SUSTAINABLE, FLINK, GENERATOR, ABORTED = "sustainable", "flink", "generator", "aborted"
UNSTEADY = "unsteady"  # failed while latency fell steeply: the job was still catching up from its start
LOST = "lost-taskmanager"  # the run lost a TaskManager (e.g. out of heap): not sustainable; the stack is restarted
OUT_OF_MEMORY = "out-of-memory"  # the job failed out of heap, its TaskManager still up: not sustainable, restarted too
#: Verdicts after which the search (with --on-lost-taskmanager restart) restarts the stack: a JVM that ran out of
#: heap is not trusted for the next probe even when it stayed up.
BROKE_THE_STACK = (LOST, OUT_OF_MEMORY)


# ---------------------------------------------------------------- one probe: sustainable or not (pure)


@dataclass(frozen=True)
class Thresholds:
    """When a probe is sustainable. Defaults: docs/capacity.md."""

    min_read_fraction: float = 0.99  # (b) Flink's sources read at least this share of what was offered
    #: (c) the send lag that can enter the measured windows' SWM latency (mean over them, see entering_send_lags) at
    #: most this share of the mean latency
    max_lag_fraction: float = MAX_LAG_FRACTION
    min_achieved_fraction: float = 0.99  # (c) the generator offered at least this share of the target rate
    max_growth_fraction: float = 0.20  # (a) latency may not grow by more than this share of its mean over the span...
    confidence: float = 0.95  # (a) ...with the Theil-Sen slope's CI at this level entirely above 0
    min_trend_windows: int = 4  # (a) fewer measured windows: no trend can be decided (the criterion passes)


@dataclass(frozen=True)
class Criterion:
    passed: bool
    why: str
    values: dict


@dataclass(frozen=True)
class Assessment:
    verdict: str  # SUSTAINABLE, FLINK (Flink is the bottleneck), GENERATOR (the generator is), ABORTED
    why: str
    criteria: dict[str, Criterion] = field(default_factory=dict)


def latency_trend(window_end_ms: np.ndarray, latency_ms: np.ndarray, thresholds: Thresholds) -> Criterion:
    """(a) Theil-Sen slope of SWM latency over window end time: a trend is a slope whose CI lies above 0 and
    that grows the latency by more than max_growth_fraction of its mean over the measured span."""
    n = len(latency_ms)
    if n < thresholds.min_trend_windows:
        return Criterion(True, f"only {n} measured windows, fewer than {thresholds.min_trend_windows}: no trend "
                               "can be decided", {"windows": n})
    trend = latency_stats.latency_trend(window_end_ms, latency_ms, thresholds.confidence)
    if trend is None:
        return Criterion(True, f"all {n} windows end at the same time: no trend can be decided", {"windows": n})
    values = {"windows": n, **trend}
    slope, (low, high), mean = trend["slope_ms_per_s"], trend["slope_ci_ms_per_s"], trend["mean_ms"]
    growth, span_s = trend["growth_fraction"], trend["span_s"]
    described = (f"latency slope {slope:+.1f} ms/s (CI {low:+.1f}..{high:+.1f}), {growth:+.0%} of the mean "
                 f"{mean:.0f} ms over {span_s:.0f} s")
    if low > 0 and growth > thresholds.max_growth_fraction:
        return Criterion(False, f"{described}: latency trends upward (limit {thresholds.max_growth_fraction:.0%})",
                         values)
    return Criterion(True, described, values)


@dataclass(frozen=True)
class ReadRate:
    """Events/s over the measured span: what the generator sent and what Flink's sources read, each the slope
    of a least-squares line through the cumulative count (SciPy linregress)."""

    offered_per_s: float
    read_per_s: float
    span_s: float  # of Flink's samples in the fit
    metrics_lag_ms: int  # Flink's counters trail the events by this much (REST fetch + start); the span is shifted


def read_rate(throughput: pd.DataFrame, sent: pd.DataFrame, generation_start_ms: int, warmup_ms: int,
              duration_ms: int) -> ReadRate | None:
    """Rates of the measured span [warm-up end, generation end]. Flink's source counters reach the REST API
    with a lag of one fetch interval or more (3-4 s on a busy machine), so a per-second mean over the span
    misses up to a second's events at each end: the cumulative count is fitted instead, over the span shifted
    by the lag (the time from the generation's start to the first events read)."""
    lag_ms = metrics_lag_ms(throughput, generation_start_ms)
    if lag_ms is None or sent.empty:
        return None
    read = _cumulative_reads(throughput[throughput["job_vertex"].str.contains("/source", regex=False)])
    start, end = generation_start_ms + warmup_ms + lag_ms, generation_start_ms + duration_ms + lag_ms
    read = read[(read.index >= start) & (read.index <= end)]
    seconds = sent[(sent["second"] >= warmup_ms // 1000) & (sent["second"] < duration_ms // 1000)]
    if len(read) < 4 or len(seconds) < 2:
        return None
    seconds_read = read.index.to_numpy() / 1000
    fit = stats.linregress(seconds_read, read.to_numpy())
    offered = stats.linregress(seconds["second"], seconds["sent"].cumsum()).slope
    return ReadRate(float(offered), float(fit.slope), float(np.ptp(seconds_read)), lag_ms)


def _cumulative_reads(sources: pd.DataFrame) -> pd.Series:
    """Events read by all sources together up to each sample time, from each source's rate x the time since its
    previous sample (throughput.csv keeps rates; the first sample of each source is the zero point)."""
    frame = sources.sort_values("time")
    gap_s = frame.groupby("job_vertex")["time"].diff() / 1000
    counts = (frame["records_in_per_s"] * gap_s).fillna(0.0)
    per_source = frame.assign(events=counts.groupby(frame["job_vertex"]).cumsum())
    table = per_source.pivot_table(index="time", columns="job_vertex", values="events", aggfunc="last")
    return table.ffill().fillna(0.0).sum(axis=1)


def falling(trend: Criterion, thresholds: Thresholds) -> bool:
    """Latency fell significantly, by more than max_growth_fraction of its mean over the span: a job that
    cannot keep up does not shrink its backlog, so the run had not reached steady state (typically the first
    job on a fresh TaskManager, whose JIT warms up for seconds into the measured span)."""
    values = trend.values
    return "slope_ci_ms_per_s" in values and values["slope_ci_ms_per_s"][1] < 0 \
        and values["growth_fraction"] < -thresholds.max_growth_fraction


def source_read(rate: ReadRate | None, thresholds: Thresholds) -> Criterion:
    """(b) Flink's sources read at least min_read_fraction of the events offered, give or take the resolution
    of Flink's counters: they are up to one fetch interval stale at either end of the span, so a shortfall of
    METRICS_RESOLUTION_S worth of events over the span is within measurement error."""
    if rate is None or rate.offered_per_s <= 0 or rate.span_s <= 0:
        return Criterion(False, "no throughput measured (generator or Flink sources)", {})
    fraction, resolution = rate.read_per_s / rate.offered_per_s, METRICS_RESOLUTION_S / rate.span_s
    values = {**asdict(rate), "read_fraction": fraction, "resolution": resolution}
    described = (f"Flink read {fraction:.1%} (± {resolution:.1%}) of the {rate.offered_per_s:.0f} events/s "
                 "offered")
    if fraction + resolution < thresholds.min_read_fraction:
        return Criterion(False, f"{described} (needs {thresholds.min_read_fraction:.0%})", values)
    return Criterion(True, described, values)


#: What (c) compares with the latency, in order of preference: the mean over the measured windows of the send lag
#: that can enter each (entering_send_lags); without per-second lags for every window, the run's largest send lag
#: (it bounds any window's); in summaries without it, the run's p99 send lag (the rule before 2026-11-29).
LAG_ENTERING, LAG_MAX, LAG_P99 = "entering windows, mean", "run max", "run p99"


def entering_send_lags(window_end_ms: np.ndarray, lag_seconds: pd.DataFrame, generation_start_ms: int,
                       watermark_bound_ms: int, watermark_interval_ms: int) -> np.ndarray:
    """Per window: the largest send lag (generator.csv ``max_lag_ms``) of the seconds in which the events that can
    sweep its watermark were sent, NaN where no row covers them. A window fires when an event of event time >=
    its end + B reaches the source (watermark = max event time - B), and such an event is scheduled no earlier
    than its event time; at these rates events with a near-zero delay are scheduled right then, so a generator
    late by L at end + B delays the firing, and so the SWM latency, by about L (give or take the watermark
    period's phase); lag at any other time moves events inside windows, not their firing. Rows are by actual send
    second, so the span [end + B, end + B + watermark interval] is covered, and a second's largest lag bounds the
    lag of the events that mattered."""
    if lag_seconds is None or lag_seconds.empty or not {"second", "max_lag_ms"} <= set(lag_seconds.columns):
        return np.full(len(window_end_ms), np.nan)
    seconds = lag_seconds["second"].to_numpy(dtype=float)
    lags = lag_seconds["max_lag_ms"].to_numpy(dtype=float)
    result = np.full(len(window_end_ms), np.nan)
    for index, end in enumerate(np.asarray(window_end_ms, dtype=float)):
        first = (end + watermark_bound_ms - generation_start_ms) / 1000
        last = first + watermark_interval_ms / 1000
        covered = (seconds + 1 > first) & (seconds < last)
        if covered.any():
            result[index] = lags[covered].max()
    return result


def generator_schedule(target_per_s: float, achieved_per_s: float | None, mean_latency_ms: float | None,
                       thresholds: Thresholds, entering_lags_ms: np.ndarray | None = None,
                       max_lag_ms: float | None = None, lag_p99_ms: float | None = None) -> Criterion:
    """(c) The generator sent at the target rate, and on time: the send lag that can enter the measured windows'
    SWM latency (entering_send_lags; their mean bounds what the lag adds to the mean latency) is small against
    that latency. Not the run's p99 send lag (the rule until 2026-11-29): it counts every event, in the warm-up
    and in seconds whose lag enters no window, and stopped a search whose windows took at most 15 ms of it
    (docs/capacity.md, "Which send lag enters the latency"). Nor the share of events > 10 ms late, which is 1–3 %
    in almost every run on a 2-core machine and says little."""
    achieved = (achieved_per_s or 0.0) / target_per_s
    lag_limit = thresholds.max_lag_fraction * (mean_latency_ms or 0.0)
    lags = np.asarray(entering_lags_ms if entering_lags_ms is not None else [], dtype=float)
    if len(lags) and not np.isnan(lags).any():
        statistic, lag, described_lag = LAG_ENTERING, float(lags.mean()), (
            f"send lag entering the {len(lags)} windows {lags.mean():.0f} ms (mean; largest {lags.max():.0f} ms)")
    elif max_lag_ms is not None:
        statistic, lag = LAG_MAX, float(max_lag_ms)
        described_lag = f"largest send lag {lag:.0f} ms (no per-second lags for every window)"
    else:
        statistic, lag = LAG_P99, float(lag_p99_ms) if lag_p99_ms is not None else float("inf")
        described_lag = f"p99 send lag {lag:.0f} ms (no per-second or largest lags)"
    values = {"target_per_s": target_per_s, "achieved_per_s": achieved_per_s, "achieved_fraction": achieved,
              "lag_statistic": statistic, "lag_ms": lag if np.isfinite(lag) else None, "lag_limit_ms": lag_limit,
              "lag_windows": int(len(lags)), "lag_p99_ms": lag_p99_ms, "max_lag_ms": max_lag_ms}
    described = f"generator sent {achieved:.1%} of {target_per_s:.0f} events/s, {described_lag}"
    if achieved < thresholds.min_achieved_fraction or lag > lag_limit:
        return Criterion(False, f"{described} (needs {thresholds.min_achieved_fraction:.0%} sent and a lag "
                                f"({statistic}) of at most {thresholds.max_lag_fraction:.0%} of the mean latency, "
                                f"{lag_limit:.0f} ms)", values)
    return Criterion(True, described, values)


def assess(summary: dict, windows: pd.DataFrame, rate: ReadRate | None, target_per_s: float,
           thresholds: Thresholds = Thresholds()) -> Assessment:
    """A probe's verdict from its summary.json, its measured windows (window_end, swm_latency_ms, and send_lag_ms:
    entering_send_lags, optional) and rates.
    The generator is the bottleneck only when it missed its schedule while Flink read everything offered."""
    if summary.get("status") != "completed":
        return Assessment(ABORTED, f"run {summary.get('status')}: {summary.get('reason') or 'no reason given'}")
    throughput, gen = summary.get("throughput") or {}, summary.get("generator") or {}
    criteria = {
        "latency_trend": latency_trend(windows["window_end"].to_numpy(), windows["swm_latency_ms"].to_numpy(),
                                       thresholds),
        "source_read": source_read(rate, thresholds),
        "generator": generator_schedule(target_per_s, throughput.get("generator_events_per_s"),
                                        (summary.get("swm_latency_ms") or {}).get("mean"), thresholds,
                                        windows["send_lag_ms"].to_numpy() if "send_lag_ms" in windows else None,
                                        gen.get("max_lag_ms"), gen.get("lag_p99_ms")),
    }
    failed = [c.why for c in criteria.values() if not c.passed]
    if not failed:
        return Assessment(SUSTAINABLE, "; ".join(c.why for c in criteria.values()), criteria)
    if falling(criteria["latency_trend"], thresholds):
        return Assessment(UNSTEADY, f"{criteria['latency_trend'].why}: latency fell, the job was still catching "
                                    "up from its start (not steady state); " + "; ".join(failed), criteria)
    if not criteria["generator"].passed and criteria["source_read"].passed and criteria["latency_trend"].passed:
        return Assessment(GENERATOR, criteria["generator"].why + "; " + criteria["source_read"].why, criteria)
    return Assessment(FLINK, "; ".join(failed), criteria)


def lost_taskmanager(summary: dict, restarted: bool) -> Assessment:
    """The verdict of a probe whose run ended because the stack lost a TaskManager, or its job ran out of heap: not
    sustainable when the search restarts the stack and goes on (--on-lost-taskmanager restart), else the end of the
    search."""
    what = "its job ran out of heap" if out_of_memory(summary) else "the stack lost a TaskManager"
    why = f"run {summary.get('status')}: {summary.get('reason') or 'no reason given'}; {what}"
    if restarted:
        return Assessment(OUT_OF_MEMORY if out_of_memory(summary) else LOST,
                          f"{why}: not sustainable (the stack is restarted before the next probe)")
    return Assessment(ABORTED, f"{why} (`--on-lost-taskmanager restart` counts such a probe as not sustainable, "
                               "restarts the stack and goes on)")


def measured_rates(run_dir: Path, summary: dict, config) -> ReadRate | None:
    """read_rate of a run directory (throughput.csv, generator.csv)."""
    from klinkctl.results.tables import read_table

    if not summary.get("warmup_until_ms"):
        return None
    return read_rate(read_table(run_dir / "throughput.csv"), read_table(run_dir / "generator.csv"),
                     summary["warmup_until_ms"] - config.warmup_ms, config.warmup_ms, config.duration_ms)


def measured_windows(run_dir: Path, summary: dict, config) -> pd.DataFrame:
    """latency.csv's windows after the warm-up that end before the generation's end, with the send lag that can
    enter each (send_lag_ms, entering_send_lags from generator.csv; NaN without it)."""
    from klinkctl.results.tables import measured_rows, read_table

    latency = read_table(run_dir / "latency.csv")
    if latency.empty:
        return pd.DataFrame({"window_end": [], "swm_latency_ms": [], "send_lag_ms": []})
    warmup_until = summary.get("warmup_until_ms")
    start = warmup_until - config.warmup_ms if warmup_until else None
    windows = measured_rows(latency, start + config.duration_ms if start is not None else None)[
        ["window_end", "swm_latency_ms"]].dropna()
    if start is None:
        return windows.assign(send_lag_ms=np.nan)
    return windows.assign(send_lag_ms=entering_send_lags(
        windows["window_end"].to_numpy(), read_table(run_dir / "generator.csv"), start, config.watermark_bound_ms,
        config.watermark_interval_ms))
