"""The figures of `klinkctl report`: what each shows, the table it plots (``report``) and how it is drawn
(``plots``); ``make_section`` draws one, or skips it with the reason its data is missing."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pandas as pd
from matplotlib.figure import Figure

from klinkctl.results import plots, plots_adcom, report, report_adcom
from klinkctl.results.report import MissingData
from klinkctl.results.runset import SERIES, RunSet

CDF_SHOWN = (40, 50, 75, 90, 95, 99)  # percentiles of Fig. 6b shown in its table


@dataclass(frozen=True)
class FigureSpec:
    """One figure: its file stem, what it shows, the table it plots and how it draws it."""

    key: str
    title: str
    shows: str
    stem: Callable[[RunSet], str]
    table: Callable[[RunSet], pd.DataFrame]
    draw: Callable[[pd.DataFrame, RunSet], Figure]
    shown: Callable[[pd.DataFrame], pd.DataFrame] = lambda table: table


def _curve_at(table: pd.DataFrame, x: str, labels: dict) -> pd.DataFrame:
    """A latency curve (long: ``x``, percentile, latency_ms) at the values of ``x`` that ``labels`` names, a column
    p<label>_ms each (one row per configuration)."""
    keys = [column for column in table.columns if column not in (x, "percentile", "latency_ms")]
    rows = table[table[x].isin(list(labels))]
    wide = rows.set_index([*keys, x])["latency_ms"].unstack(x)
    wide.columns = [f"p{labels[value]}_ms" for value in wide.columns]
    return wide.reset_index()


def _cdf_shown(table: pd.DataFrame) -> pd.DataFrame:
    """The CDF table with a column per percentile of CDF_SHOWN (one row per configuration)."""
    return _curve_at(table, "percentile", {percentile: percentile for percentile in CDF_SHOWN})


def _nines_shown(table: pd.DataFrame) -> pd.DataFrame:
    """The per-record latency curve at p90, p99, p99.9 and p99.99 (one row per configuration)."""
    return _curve_at(table, "nines", plots.NINES_TICKS)


def _mean_and_peak(table: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """Mean and peak over the seconds of ``columns`` (one row per configuration, and component where there is
    one), not every second."""
    keys = [column for column in table.columns if column not in ("second", *columns)]
    wide = table.groupby(keys, dropna=False)[columns].agg(["mean", "max"])
    wide.columns = [f"{metric}_{statistic}" for metric, statistic in wide.columns]
    return wide.reset_index()


def _resources_shown(table: pd.DataFrame) -> pd.DataFrame:
    """Mean and peak of CPU and RSS per configuration and component."""
    return _mean_and_peak(table, ["cpu_percent", "rss_mb"])


def _over_time_shown(table: pd.DataFrame) -> pd.DataFrame:
    """Mean and peak of the per-record p99 and p99.9 per configuration."""
    return _mean_and_peak(table, ["p99_ms", "p999_ms"])


def _shared_bound(runset: RunSet) -> float | None:
    """b, when every run of the set used the same one."""
    bounds = {run.config["bench"].get("memory_bound") for run in runset.runs}
    return float(bounds.pop()) if len(bounds) == 1 and None not in bounds else None


def _late_state_panels(runset: RunSet) -> list[str]:
    """The panels of the late-state figure: the late state is its series, so neither it nor what it determines
    (e.g. AION's trigger, set only in its variant) makes panels."""
    if "late_state" not in runset.params:
        return runset.others(runset.x_param)
    return _not_determined_by(runset, "late_state", runset.others(runset.x_param, "late_state"))


def _combiner_panels(runset: RunSet, *used: str) -> list[str]:
    """The panels of the AdCom figures: the series (the combiner with its settings, labels.COMBINER_SETTINGS) names
    what it determines (the combiner, its interval and record count), so those make no panels."""
    return _not_determined_by(runset, SERIES, runset.others(*used))


def _not_determined_by(runset: RunSet, series: str, keys: list[str]) -> list[str]:
    """The ``keys`` that take more than one value within a value of ``series``."""
    by_series = runset.params.groupby(series, dropna=False)
    return [key for key in keys if by_series[key].nunique(dropna=False).max() > 1]


FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec("6a", "Mean SWM latency", "Mean over repetitions of each run's mean SWM latency (warm-up "
               "excluded) against the number of queries, or the load parameter that varies when queries does "
               "not; one line per policy, error bars = t interval over the repetitions.",
               lambda rs: f"fig6a_latency_vs_{rs.x_param}", report.latency_means,
               lambda table, rs: plots.latency_vs(table, rs.x_param, rs.others(rs.x_param))),
    FigureSpec("6b", "SWM latency CDF", "SWM latency at the 40th to 99th percentile of all windows of a "
               "configuration's repetitions pooled; one line per policy, one panel per configuration.",
               lambda rs: "fig6b_latency_cdf", report.latency_percentiles,
               lambda table, rs: plots.latency_cdf(table, rs.others()), _cdf_shown),
    FigureSpec("6c", "Slowdown", "Each run's mean SWM latency divided by the mean SWM latency of the same "
               "policy and parameters with one query (the query alone), against the number of queries; "
               "error bars = t interval over the repetitions (the baseline's own spread is not included).",
               lambda rs: "fig6c_slowdown_vs_queries", report.slowdowns,
               lambda table, rs: plots.slowdown_vs_queries(table, rs.others("queries"))),
    FigureSpec("6d", "Throughput", "Records/s read by the Flink sources (summary.json → "
               "throughput.flink_source_records_per_s, measured span) and events/s sent by the generator, "
               "against the number of queries or the varying load parameter; one line per policy.",
               lambda rs: f"fig6d_throughput_vs_{rs.x_param}", report.throughputs,
               lambda table, rs: plots.throughput_vs(table, rs.x_param, rs.others(rs.x_param))),
    FigureSpec("late", "Late-event state memory", "The AION paper's Fig. 2 analogue (the average workload; "
               "late-state.json, measured span): the TaskManager's live heap after GC and its heap used (medians "
               "over the run), the share of time in GC and the records/s the sources read, against the varying "
               "parameter (e.g. the allowed lateness); one line per late state, error bars = t interval over the "
               "repetitions. A run that failed (e.g. out of heap) is not plotted; the report lists it.",
               lambda rs: f"late_state_memory_vs_{rs.x_param}", report.late_state_memory,
               lambda table, rs: plots.late_state_memory(table, rs.x_param, _late_state_panels(rs))),
    FigureSpec("9s", "Late triggers: executions and staleness", "The AION paper's Fig. 9 analogue, measured in "
               "the operator (late-state.json → staleness; AION's windows with late events cleaned up during the "
               "run): each configuration's mean maximum staleness t·n/(T·N) per window against its mean "
               "re-executions per window; error bars = t interval over the repetitions, dotted: the staleness "
               "bound. Only windows planned after their query's first window was cleaned up count (the earlier "
               "ones were planned on the uniform prior). The table adds the share of windows that kept the bound.",
               lambda rs: "late_trigger_staleness", report.late_trigger_staleness,
               lambda table, rs: plots.late_trigger_staleness(table)),
    FigureSpec("8", "Memory and CPU over time", "RSS and CPU of each component (resources.csv, one sample per "
               "second), seconds since the run's first sample, averaged over the repetitions of a "
               "configuration; colour = policy, line style = the other varying parameters.",
               lambda rs: "fig8_resources_over_time", report.resources,
               lambda table, rs: plots.resources_over_time(table, rs.others()), _resources_shown),
    FigureSpec("4a", "Throughput over time", "AdCom's Fig. 4(a) analogue (rides workload): the events/s the query "
               "read in each second since the generator's start (the seconds every repetition read in), mean over "
               "the repetitions with its t interval (band), one line per combiner; grey: the events/s the generator "
               "offered (generator.csv), shaded: the rate schedule's surge. Counted by Flink's sources (throughput.csv) when every run has it, else "
               "(archived runs: throughput.csv is not archived) as the trips each fired window counted "
               "(latency.csv events), spread over the time since the previous firing: 2 s steps, later than the "
               "sources by the windows' wait. The table gives each series' mean and peak.",
               lambda rs: "fig4a_throughput_over_time", report_adcom.throughput_over_time,
               lambda table, rs: plots_adcom.throughput_over_time(table, _combiner_panels(rs),
                                                                       report_adcom.surge_span(rs)),
               lambda table: _mean_and_peak(table.drop(columns=["runs", "n", "ci_low", "ci_high"]),
                                            ["mean", "offered_per_s"])),
    FigureSpec("4b", "Combiner buffer use and λ", "AdCom's Fig. 4(b) analogue (rides workload, combiner.csv): "
               "the combiner instances' mean output-buffer utilisation (Flink's outPoolUsage, read once per "
               "controller period) and the mini-batch interval λ the PI controller set (§3.2; none for a fixed "
               "local-global interval), seconds since the first period, averaged over the repetitions.",
               lambda rs: "fig4b_combiner_over_time", report_adcom.combiner_over_time,
               lambda table, rs: plots_adcom.combiner_over_time(table, _combiner_panels(rs)),
               lambda table: _mean_and_peak(table, ["rho_avg", "interval_ms"])),
    FigureSpec("5", "Throughput vs key skew", "AdCom's Fig. 5 analogue (rides workload): per combiner the "
               "events/s read during the surge (summary.json → throughput.during_surge, surge runs only) and the "
               "records/s Flink's sources read over the measured span (throughput.flink_source_records_per_s), against "
               "the Zipf exponent of the regions (--key-skew; drawn at a single exponent too); mean over the "
               "repetitions, error bars = t interval.",
               lambda rs: "fig5_throughput_vs_key_skew", report_adcom.throughput_vs_skew,
               lambda table, rs: plots_adcom.throughput_vs(table, "key_skew", _combiner_panels(rs, "key_skew"),
                                                           "Fig. 5")),
    FigureSpec("6", "Throughput vs parallelism", "AdCom's Fig. 6 analogue (rides workload): the throughputs of "
               "Fig. 5 against the parallelism of the parse and combiner stage (--combiner-parallelism; the query's "
               "global window, the paper's reducers, runs once per query here, so the senders' parallelism is the "
               "one that varies); drawn only when runs differ in it.",
               lambda rs: "fig6_throughput_vs_combiner_parallelism", report_adcom.throughput_vs_parallelism,
               lambda table, rs: plots_adcom.throughput_vs(table, "combiner_parallelism",
                                                           _combiner_panels(rs, "combiner_parallelism"), "Fig. 6")),
    FigureSpec("mm", "Live heap and memory mode", "Klink's memory management (paper §3.4): the TaskManager's "
               "live heap after GC over its maximum heap (scheduler.csv memory_used, what Klink compares with b; "
               "dotted: b when all runs share it) and the share of each second's cycles decided in memory mode; "
               "seconds since the run's first cycle, averaged over the repetitions of a configuration.",
               lambda rs: "memory_mode_over_time", report.memory_mode,
               lambda table, rs: plots.memory_over_time(table, rs.others(), _shared_bound(rs))),
    FigureSpec("9c", "Estimator accuracy", "Percentage of SWMs ingested inside the interval the estimator "
               "predicted for them (summary.json → estimator, warm-up excluded), by delay model; one bar per "
               "estimator and confidence f (dotted: the target f); error bars = t interval over the runs. Below: "
               "the intervals' median width and the point estimate's mean |error| (means over the runs); SWMs "
               "not scored are counted per reason in summary.json → estimator → skipped. The table also pools "
               "every SWM of a configuration (pooled_inside_pct) with its Wilson interval: what a coverage target "
               "is judged on.",
               lambda rs: "fig9c_estimator_accuracy", report.estimator_accuracy,
               lambda table, rs: plots.estimator_accuracy(table, rs.others("delay", "confidence"))),
    FigureSpec("9d", "Scheduler overhead", "Mean time the runtime scheduler takes per cycle (collect, decide, "
               "pause/resume; summary.json → scheduler, from scheduler.csv cycle_ns) as a percentage of the "
               "cycle length r: the share of one core the scheduler thread uses; by confidence f, per policy.",
               lambda rs: "fig9d_scheduler_overhead", report.scheduler_overhead,
               lambda table, rs: plots.scheduler_overhead(table, rs.others("confidence"))),
    FigureSpec("rl", "Per-record latency by percentile", "End-to-end latency of single records (creation to "
               "arrival at the sink; record-latency.csv, warm-up excluded) at p90 to p99.99 on a log 'nines' axis, "
               "every record of a configuration's repetitions pooled (their HdrHistograms merged); one line per "
               "policy. Each run's figures: summary.json → record_latency.",
               lambda rs: "record_latency_percentiles", report.record_latency_curves,
               lambda table, rs: plots.record_latency_curve(table, rs.others()), _nines_shown),
    FigureSpec("rx", "Per-record tail by load: which technique where", "The tail seed's Figs. 4-5 analogue: "
               "the mean over repetitions of each run's per-record p99 and p99.9 (summary.json → record_latency, "
               "warm-up excluded) against the varying load parameter (e.g. the rate, i.e. the stages' "
               "utilisation), one line per technique, one column per other varying parameter (e.g. "
               "--stage-speeds: the heterogeneity); error bars = t interval over the repetitions.",
               lambda rs: f"record_tail_vs_{rs.x_param}", report.record_tail_means,
               lambda table, rs: plots.record_tail_vs(table, rs.x_param, rs.others(rs.x_param))),
    FigureSpec("rt", "Per-record tail latency over time", "Per-record p99 and p99.9 of each second of the "
               "measured span (record-percentiles.csv: all sink subtasks merged), seconds since its first, "
               "averaged over the repetitions of a configuration; colour = policy, line style = the other "
               "varying parameters.",
               lambda rs: "record_latency_over_time", report.record_percentiles_over_time,
               lambda table, rs: plots.record_latency_over_time(table, rs.others()), _over_time_shown),
)


@dataclass
class Section:
    """A figure of the report: written (files, table, png) or skipped (reason)."""

    spec: FigureSpec
    stem: str
    files: list[Path] = field(default_factory=list)
    table: pd.DataFrame | None = None
    png: bytes | None = None
    skipped: str | None = None
    figure: Figure | None = None


def make_section(spec: FigureSpec, runset: RunSet, out_dir: Path) -> Section:
    """The figure of ``spec`` drawn and saved, or skipped with the reason its data is missing."""
    section = Section(spec, spec.stem(runset))
    try:
        table = spec.table(runset)
    except MissingData as missing:
        section.skipped = str(missing)
        return section
    figure = spec.draw(table, runset)
    if runset.simulated_runs:  # never mistaken for a measurement of Flink
        figure.text(0.99, 0.995, f"SIMULATED ({runset.simulated_runs} of {len(runset.runs)} runs: klinkctl simulate)",
                    ha="right", va="top", fontsize="small", color="firebrick")
    section.files = plots.save(figure, out_dir, section.stem)
    section.table, section.figure = spec.shown(table), figure
    section.png = next(path for path in section.files if path.suffix == ".png").read_bytes()
    return section
