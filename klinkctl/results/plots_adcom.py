"""The AdCom figures of `klinkctl report` (seed adcom-edbt21.txt §4), one function each, drawn from the tables of
``report_adcom`` with the helpers of ``plots`` (one colour per series, here the combiner)."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from klinkctl.results.plots import LINESTYLES, cycle, finish, grid, lines_over_time, metrics_vs, split_panels
from klinkctl.results.report_adcom import THROUGHPUT_ROWS


def throughput_over_time(table: pd.DataFrame, panels: list[str], surge: tuple[float, float] | None) -> Figure:
    """Fig. 4a: the events/s the query read per second, one line per combiner (mean over the repetitions, band:
    the t interval), colour = combiner, line style = the other varying parameters; the generator's offered
    events/s in grey (line style as its configurations') and the surge shaded."""
    figure, axes = grid(1, 1, "Throughput over time (AdCom Fig. 4a)")
    ax = axes[0][0]
    if surge is not None:
        ax.axvspan(*surge, color="grey", alpha=0.15, label=f"surge [{surge[0]:g} s, {surge[1]:g} s)")
    for style, (label, rows) in zip(cycle(LINESTYLES), split_panels(table, panels)):  # as lines_over_time's
        offered = rows.groupby("second")["offered_per_s"].mean()
        ax.plot(offered.index, offered.to_numpy(), color="grey", linestyle=style, linewidth=1,
                label=f"offered, {label}" if label else "offered (generator.csv)")
    lines_over_time(ax, table, "mean", panels, band=True)
    ax.set_ylim(bottom=0)  # a t interval of two runs reaches below zero; no throughput does
    finish(ax, "", "seconds since the generator's start", f"events/s read at the {table['counted_at'].iloc[0]}")
    return figure


def combiner_over_time(table: pd.DataFrame, panels: list[str]) -> Figure:
    """Fig. 4b: the combiners' mean output-buffer utilisation and the mini-batch interval λ per controller
    period, one line per configuration."""
    figure, axes = grid(2, 1, "Combiner buffer utilisation and mini-batch interval (AdCom Fig. 4b)")
    for ax, (column, ylabel) in zip(axes[:, 0], (("rho_avg", "outPoolUsage (mean over instances)"),
                                                  ("interval_ms", "λ (ms)"))):
        lines_over_time(ax, table, column, panels)
        finish(ax, "", "seconds since the first period", ylabel, legend=column == "rho_avg")
    return figure


def throughput_vs(table: pd.DataFrame, x: str, panels: list[str], figure_name: str) -> Figure:
    """Figs. 5 and 6: each throughput of THROUGHPUT_ROWS present against ``x``, one row each, one line per
    combiner with its interval."""
    return metrics_vs(table, x, panels, THROUGHPUT_ROWS, f"Throughput vs {x} (AdCom {figure_name})")
