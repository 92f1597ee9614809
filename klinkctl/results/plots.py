"""The report's figures, one function each, drawn from the tables of ``report`` (headless: Agg).

Every function returns a matplotlib ``Figure`` (not attached to pyplot, so nothing global is kept);
``save`` writes it as PNG and SVG. One colour per policy in every figure; error bars are the
``ci_low``/``ci_high`` columns (absent where a configuration has fewer than two runs).
"""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any, Iterator

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402
from matplotlib.transforms import offset_copy  # noqa: E402

from klinkctl.results.report import LATE_STATE_METRICS, THROUGHPUT_METRICS  # noqa: E402
from klinkctl.results.runset import SERIES  # noqa: E402
from klinkctl.run.scheduler_control import AGENT_POLICIES, OUTSIDE_POLICIES  # noqa: E402

#: Policies in the paper's order (as io.klink.scheduler.policy.Policies declares them), so that a policy keeps its
#: colour from figure to figure.
POLICY_ORDER = (*AGENT_POLICIES, *OUTSIDE_POLICIES)
LINESTYLES = ("-", "--", ":", "-.")
PANEL_SIZE = (5.0, 3.6)
DODGE_POINTS = 4.0  # horizontal distance between the policies' error bars at one x
MIN_WIDTH = 6.5  # inches: room for the longest title
FORMATS = ("png", "svg")
DPI = 110
PARAM_LABELS = {"rate": "rate (events/s per query)", "confidence": "confidence f", "delay": "delay model"}


def _policy_name(label: Any) -> str:
    """The policy of a policy label: ``klink`` of ``klink[C=2,f=0.9]``."""
    return str(label).split("[", 1)[0]


#: The late-state figure's lines (a late state in place of a policy).
LATE_STATE_COLORS = {"flink-heap": "C3", "flink-rocksdb": "C0", "flink-forst": "C4", "aion": "C2"}
#: The rides workload's combiners (labels.COMBINER_SETTINGS): the first colour for the combiner with its default
#: settings, the others (stable per label) for its variants, e.g. local-global[λ_ms=1000].
COMBINER_COLORS = {"none": ("C3",), "adcom": ("C2", "C8"), "local-global": ("C0", "C1", "C4", "C5", "C9"),
                   "minibatch": ("C6", "C7")}


def policy_color(policy: Any) -> str:
    """C0…C7 for the known policies (any variant), fixed colours for the late states and the combiners, C8 or C9
    (stable per name) for others."""
    if _policy_name(policy) in POLICY_ORDER:
        return f"C{POLICY_ORDER.index(_policy_name(policy))}"
    if str(policy) in LATE_STATE_COLORS:
        return LATE_STATE_COLORS[str(policy)]
    if _policy_name(policy) in COMBINER_COLORS:
        colors = COMBINER_COLORS[_policy_name(policy)]
        return colors[0] if str(policy) in COMBINER_COLORS or len(colors) == 1 else \
            colors[1 + zlib.crc32(str(policy).encode()) % (len(colors) - 1)]
    return f"C{len(POLICY_ORDER) + zlib.crc32(str(policy).encode()) % 2}"


def _policy_key(policy: Any) -> tuple[int, str]:
    name = _policy_name(policy)
    return (POLICY_ORDER.index(name) if name in POLICY_ORDER else len(POLICY_ORDER), str(policy))


def series_names(table: pd.DataFrame) -> list[Any]:
    return sorted(table[SERIES].unique(), key=_policy_key)


def panel_label(key: tuple, panels: list[str]) -> str:
    return ", ".join(f"{name}={value}" for name, value in zip(panels, key))


def split_panels(table: pd.DataFrame, panels: list[str]) -> list[tuple[str, pd.DataFrame]]:
    """One (label, rows) per combination of the panel parameters; one unlabelled panel without any."""
    if not panels:
        return [("", table)]
    return [(panel_label(key, panels), rows) for key, rows in table.groupby(panels, dropna=False, sort=True)]


def grid(rows: int, cols: int, title: str) -> tuple[Figure, np.ndarray]:
    figure = Figure(figsize=(max(PANEL_SIZE[0] * cols, MIN_WIDTH), PANEL_SIZE[1] * rows + 0.4), layout="constrained")
    FigureCanvasAgg(figure)
    figure.suptitle(title)
    return figure, figure.subplots(rows, cols, squeeze=False)


def _yerr(rows: pd.DataFrame) -> np.ndarray:
    """Asymmetric error bars from the interval; nan (no bar) where the interval is undefined."""
    return np.vstack([rows["mean"] - rows["ci_low"], rows["ci_high"] - rows["mean"]]).astype(float)


def _lines_with_ci(ax: Axes, table: pd.DataFrame, x: str) -> None:
    """One error-bar line per policy: mean against ``x``; policies drawn a few points apart so that
    their error bars at the same x stay readable (the data stay at x)."""
    policies = series_names(table)
    for number, policy in enumerate(policies):
        rows = table[table[SERIES] == policy].sort_values(x)
        shift = offset_copy(ax.transData, fig=ax.figure, x=DODGE_POINTS * (number - (len(policies) - 1) / 2),
                            units="points")
        ax.errorbar(rows[x], rows["mean"], yerr=_yerr(rows), label=str(policy), color=policy_color(policy),
                    marker="o", capsize=3, transform=shift)
    _fit_limits(ax, table, x)
    ax.set_xticks(sorted(table[x].unique()))
    ax.grid(alpha=0.3)


def _fit_limits(ax: Axes, table: pd.DataFrame, x: str) -> None:
    """Axis limits around every mean and interval end (shifted artists do not update them)."""
    points = pd.concat([table[[x, column]].set_axis(["x", "y"], axis=1) for column in ("mean", "ci_low", "ci_high")])
    points = points.astype(float).dropna().to_numpy()
    if len(points):
        ax.update_datalim(points)
        ax.autoscale_view()


def _bars_with_ci(ax: Axes, table: pd.DataFrame, group: str, series: str) -> None:
    """Grouped bars: one group per value of ``group`` on the x axis, one bar (colour) per ``series``."""
    groups = sorted(table[group].unique(), key=str)
    names = sorted(table[series].unique(), key=_policy_key)
    width = 0.8 / len(names)
    for number, name in enumerate(names):
        rows = table[table[series] == name].set_index(group).reindex(groups)
        offsets = np.arange(len(groups)) + (number - (len(names) - 1) / 2) * width
        color = policy_color(name) if name in POLICY_ORDER else f"C{number}"
        ax.bar(offsets, rows["mean"], width, label=str(name), color=color)
        # error bars drawn apart: Axes.bar's own yerr trips a NumPy deprecation with a single bar
        ax.errorbar(offsets, rows["mean"], yerr=_yerr(rows), fmt="none", ecolor="black", capsize=3)
    ax.set_xticks(np.arange(len(groups)), [str(value) for value in groups])
    ax.set_xlabel(PARAM_LABELS.get(group, group))
    ax.grid(axis="y", alpha=0.3)


def finish(ax: Axes, title: str, xlabel: str | None, ylabel: str, legend: bool = True) -> None:
    if title:
        ax.set_title(title, fontsize="medium")
    if xlabel:
        ax.set_xlabel(PARAM_LABELS.get(xlabel, xlabel))
    ax.set_ylabel(ylabel)
    if legend:
        ax.legend(fontsize="small")


def latency_vs(table: pd.DataFrame, x: str, panels: list[str]) -> Figure:
    """Fig. 6a: mean SWM latency against ``x`` (queries, or the varying load parameter), per policy."""
    parts = split_panels(table, panels)
    figure, axes = grid(1, len(parts), f"Mean SWM latency vs {x} (Fig. 6a)")
    for ax, (label, rows) in zip(axes[0], parts):
        _lines_with_ci(ax, rows, x)
        finish(ax, label, x, "mean SWM latency (ms)")
    return figure


def _policy_lines(ax: Axes, rows: pd.DataFrame, x: str, y: str, order: str) -> None:
    """One line per policy: ``y`` against ``x``, its points in the order of ``order``."""
    for policy in series_names(rows):
        line = rows[rows[SERIES] == policy].sort_values(order)
        ax.plot(line[x], line[y], label=str(policy), color=policy_color(policy))


def latency_cdf(table: pd.DataFrame, panels: list[str]) -> Figure:
    """Fig. 6b: SWM latency at the 40th–99th percentile, per policy (repetitions pooled)."""
    parts = split_panels(table, panels)
    figure, axes = grid(1, len(parts), "SWM latency CDF, 40th–99th percentile (Fig. 6b)")
    for ax, (label, rows) in zip(axes[0], parts):
        _policy_lines(ax, rows, "latency_ms", "percentile", order="percentile")
        ax.grid(alpha=0.3)
        finish(ax, label, "SWM latency (ms)", "percentile")
    return figure


def slowdown_vs_queries(table: pd.DataFrame, panels: list[str]) -> Figure:
    """Fig. 6c: slowdown (latency / latency of the query alone) against the number of queries."""
    parts = split_panels(table, panels)
    figure, axes = grid(1, len(parts), "Slowdown vs queries (Fig. 6c)")
    for ax, (label, rows) in zip(axes[0], parts):
        _lines_with_ci(ax, rows, "queries")
        ax.axhline(1.0, color="grey", linewidth=0.8, linestyle=":")
        finish(ax, label, "queries", "slowdown (× latency alone)")
    return figure


def throughput_vs(table: pd.DataFrame, x: str, panels: list[str]) -> Figure:
    """Fig. 6d: throughput against ``x`` per policy; one row per metric (Flink sources, generator)."""
    return metrics_vs(table, x, panels, THROUGHPUT_METRICS, f"Throughput vs {x} (Fig. 6d)")


def late_state_memory(table: pd.DataFrame, x: str, panels: list[str]) -> Figure:
    """AION's Fig. 2 analogue: live heap, heap used, GC share and ingestion against ``x`` per late state."""
    return metrics_vs(table, x, panels, LATE_STATE_METRICS, f"Late-event window state: memory vs {x}")


def metrics_vs(table: pd.DataFrame, x: str, panels: list[str], labels: dict[str, str], title: str) -> Figure:
    """Each metric of ``labels`` present in ``table`` (long: a ``metric`` column) against ``x``, one row of
    panels per metric, one line per policy with its interval."""
    metrics = [metric for metric in labels if metric in set(table["metric"])]
    parts = split_panels(table, panels)
    figure, axes = grid(len(metrics), len(parts), title)
    for row, metric in enumerate(metrics):
        for ax, (label, rows) in zip(axes[row], parts):
            _lines_with_ci(ax, rows[rows["metric"] == metric], x)
            finish(ax, label, x, labels[metric])
    return figure


def late_trigger_staleness(table: pd.DataFrame) -> Figure:
    """AION's Fig. 9 analogue: each configuration's mean maximum staleness against its re-executions per window,
    both with their intervals over the repetitions; the staleness bound dotted when all share it."""
    figure, axes = grid(1, 1, "Late triggers: executions per window and the staleness they keep (Fig. 9)")
    ax = axes[0][0]
    for _, row in table.iterrows():
        ax.errorbar(row["executions"], row["max_staleness"], fmt="o", capsize=3, label=row["configuration"],
                    xerr=[[row["executions"] - row["executions_low"]], [row["executions_high"] - row["executions"]]],
                    yerr=[[row["max_staleness"] - row["max_staleness_low"]],
                          [row["max_staleness_high"] - row["max_staleness"]]])
    if table["bound"].nunique() == 1:
        ax.axhline(float(table["bound"].iloc[0]), color="grey", linewidth=0.8, linestyle=":")
    finish(ax, "", "re-executions per window (mean)", "max staleness per window (mean)")
    return figure


RESOURCE_ROWS = {"rss_mb": "RSS (MB)", "cpu_percent": "CPU (%)"}


def resources_over_time(table: pd.DataFrame, panels: list[str]) -> Figure:
    """Fig. 8: memory (RSS) and CPU per component over the run, one line per configuration: colour =
    policy, line style = combination of the other varying parameters; repetitions averaged."""
    components = sorted(table["component"].unique(), key=_component_key)
    figure, axes = grid(len(RESOURCE_ROWS), len(components), "Memory and CPU over time (Fig. 8)")
    for row, (column, ylabel) in enumerate(RESOURCE_ROWS.items()):
        for ax, component in zip(axes[row], components):
            lines_over_time(ax, table[table["component"] == component], column, panels)
            finish(ax, component, "seconds since the first sample", ylabel, legend=False)
    figure.legend(*axes[0][0].get_legend_handles_labels(), loc="outside right upper", fontsize="small")
    return figure


def memory_over_time(table: pd.DataFrame, panels: list[str], bound: float | None) -> Figure:
    """Klink's memory management: live heap / max heap and the share of memory-mode cycles per second, one line
    per configuration (colour = policy, line style = the other varying parameters); b dotted."""
    figure, axes = grid(2, 1, "TaskManager live heap and Klink's memory mode")
    for ax, (column, ylabel) in zip(axes[:, 0], (("memory_used", "live heap / max heap"),
                                                  ("memory_mode", "memory-mode cycles (share)"))):
        lines_over_time(ax, table, column, panels)
        if column == "memory_used" and bound is not None:
            ax.axhline(bound, color="grey", linestyle=":", label=f"b = {bound:g}")
        finish(ax, "", "seconds since the first cycle", ylabel, legend=column == "memory_used")
    return figure


def _component_key(component: str) -> tuple[int, str]:
    """The stream processor first (TaskManagers, JobManager), then Kafka, the generator, the rest."""
    prefixes = ("taskmanager", "jobmanager", "kafka", "generator")
    return next((number for number, prefix in enumerate(prefixes) if component.startswith(prefix)), 4), component


def lines_over_time(ax: Axes, table: pd.DataFrame, column: str, panels: list[str], band: bool = False) -> None:
    """``column`` against ``second``, one line per configuration: colour = policy, line style = the other varying
    parameters; with ``band``, the ``ci_low``–``ci_high`` interval shaded around it."""
    for style, (label, rows) in zip(cycle(LINESTYLES), split_panels(table, panels)):
        for policy in series_names(rows):
            line = rows[rows[SERIES] == policy].sort_values("second")
            name = f"{policy}, {label}" if label else str(policy)
            ax.plot(line["second"], line[column], label=name, color=policy_color(policy), linestyle=style)
            if band:
                ax.fill_between(line["second"], line["ci_low"].astype(float), line["ci_high"].astype(float),
                                color=policy_color(policy), alpha=0.15, linewidth=0)
    ax.grid(alpha=0.3)


def cycle(values: tuple[str, ...]) -> Iterator[str]:
    while True:
        yield from values


#: Fig. 9c's lower rows: what "inside" rests on (means over repetitions, no interval drawn).
ESTIMATOR_SPREAD = {"median_width_ms": "median interval width (ms)", "mean_abs_error_ms": "mean |error| (ms)"}


def estimator_accuracy(table: pd.DataFrame, panels: list[str]) -> Figure:
    """Fig. 9c: % of SWMs ingested inside the predicted interval, grouped by delay model, one bar per
    estimator and confidence (and policy, when several policies estimate); below, the interval's median
    width and the point estimate's mean |error|, without which "inside" says little."""
    table = table.assign(series=_estimator_labels(table))
    parts = split_panels(table, panels)
    figure, axes = grid(1 + len(ESTIMATOR_SPREAD), len(parts),
                         "Estimator accuracy by delay model and confidence (Fig. 9c)")
    for column, (label, rows) in enumerate(parts):
        ax = axes[0][column]
        _bars_with_ci(ax, rows, "delay", "series")
        for level in sorted(rows["confidence"].unique()):
            ax.axhline(100 * level, color="grey", linewidth=0.8, linestyle=":")
        ax.set_ylim(0, 105)
        finish(ax, label, None, "SWMs inside the interval (%)")
        for row, (metric, ylabel) in enumerate(ESTIMATOR_SPREAD.items(), start=1):
            spread = rows.assign(mean=rows[metric], ci_low=np.nan, ci_high=np.nan)
            _bars_with_ci(axes[row][column], spread, "delay", "series")
            finish(axes[row][column], "", None, ylabel, legend=False)
    return figure


def _estimator_labels(table: pd.DataFrame) -> pd.Series:
    labels = table["estimator"] + "-" + (100 * table["confidence"].astype(float)).map("{:g}".format)
    if table[SERIES].nunique() > 1:
        labels = labels + " (" + table[SERIES].astype(str) + ")"
    return labels


def scheduler_overhead(table: pd.DataFrame, panels: list[str]) -> Figure:
    """Fig. 9d: the scheduler's time per cycle as % of the cycle length r, by confidence, per policy."""
    parts = split_panels(table, panels)
    figure, axes = grid(1, len(parts), "Scheduler overhead (Fig. 9d)")
    for ax, (label, rows) in zip(axes[0], parts):
        _bars_with_ci(ax, rows, "confidence", SERIES)
        finish(ax, label, None, "scheduler time per cycle (% of r)")
    return figure


#: The "nines" axis of the per-record latency curve: 1 = p90, 2 = p99, 3 = p99.9, 4 = p99.99.
NINES_TICKS = {1.0: "90", 2.0: "99", 3.0: "99.9", 4.0: "99.99"}
RECORD_OVER_TIME = {"p99_ms": "per-record p99 (ms)", "p999_ms": "per-record p99.9 (ms)"}


def record_latency_curve(table: pd.DataFrame, panels: list[str]) -> Figure:
    """Per-record latency against the percentile on a log "nines" axis (p90 … p99.99), one line per policy,
    repetitions pooled; latency on a log axis."""
    parts = split_panels(table, panels)
    figure, axes = grid(1, len(parts), "Per-record end-to-end latency by percentile, p90–p99.99")
    for ax, (label, rows) in zip(axes[0], parts):
        _policy_lines(ax, rows, "nines", "latency_ms", order="nines")
        ax.set_xticks(list(NINES_TICKS), list(NINES_TICKS.values()))
        ax.set_yscale("log")
        for axis_ticks in (ax.yaxis.set_major_formatter, ax.yaxis.set_minor_formatter):
            axis_ticks(FuncFormatter(lambda value, _: f"{value:g}"))  # 20, 50, 100 ms, not 2×10¹
        ax.grid(alpha=0.3, which="both")
        finish(ax, label, "percentile", "per-record latency (ms)")
    return figure


def record_tail_vs(table: pd.DataFrame, x: str, panels: list[str]) -> Figure:
    """The tail seed's Figs. 4-5: per-record p99 (top) and p99.9 (bottom) against ``x`` (e.g. the rate: the
    utilisation), one line per technique, one column per heterogeneity level (or other varying parameter)."""
    parts = split_panels(table, panels)
    percentiles = sorted(table["percentile"].unique())
    figure, axes = grid(len(percentiles), len(parts), f"Per-record tail latency vs {x}: which technique where")
    for row, percentile in enumerate(percentiles):
        for ax, (label, rows) in zip(axes[row], parts):
            _lines_with_ci(ax, rows[rows["percentile"] == percentile], x)
            finish(ax, label, x, f"per-record {percentile} (ms)", legend=row == 0)
    return figure


def record_latency_over_time(table: pd.DataFrame, panels: list[str]) -> Figure:
    """Per-record p99 and p99.9 per second of the measured span, averaged over repetitions; colour = policy,
    line style = the other varying parameters."""
    figure, axes = grid(len(RECORD_OVER_TIME), 1, "Per-record latency p99 and p99.9 over time")
    for ax, (column, ylabel) in zip(axes[:, 0], RECORD_OVER_TIME.items()):
        lines_over_time(ax, table, column, panels)
        finish(ax, "", "seconds since the measured span's start", ylabel, legend=column == "p99_ms")
    return figure


def save(figure: Figure, directory: Path, stem: str) -> list[Path]:
    """``stem``.png and ``stem``.svg in ``directory``."""
    paths = [directory / f"{stem}.{fmt}" for fmt in FORMATS]
    for path in paths:
        figure.savefig(path, dpi=DPI)
    return paths
