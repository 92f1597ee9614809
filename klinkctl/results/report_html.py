"""index.html of `klinkctl report`: one self-contained page (plots inlined as base64 PNG, tables by
pandas, every run's resolved config), readable without the files beside it."""

from __future__ import annotations

import base64
import math
from datetime import datetime, timezone
from html import escape
from typing import TYPE_CHECKING, Any

import pandas as pd

from klinkctl import __version__
from klinkctl.results import regimes
from klinkctl.results.report import run_table
from klinkctl.results.runset import SERIES, RunSet

if TYPE_CHECKING:
    from klinkctl.results.report_figures import Section

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 2px 6px; text-align: right; }
th { background: #f3f3f3; }
img { max-width: 100%; }
pre { background: #f7f7f7; padding: 0.5em; overflow-x: auto; font-size: 0.8em; }
.skipped { color: #8a4b00; }
"""
RUN_COLUMNS = ("windows", "mean_latency_ms", "p99_latency_ms", "flink_source_records_per_s",
               "generator_events_per_s", "fell_behind", "flags")


def render_html(runset: RunSet, sections: list[Section], regime_table: pd.DataFrame | None = None) -> str:
    body = [f"<h1>klinkctl report: {escape(str(runset.root))}</h1>", _overview(runset, sections),
            *[_section_html(section) for section in sections], _regimes_html(regime_table), _runs_html(runset),
            _configs_html(runset)]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>klinkctl report: {escape(runset.root.name)}</title><style>{STYLE}</style></head>\n"
            "<body>\n" + "\n".join(body) + "\n</body></html>\n")


def number(value: Any) -> str:
    """Numbers for people: thousands separated above 100, three significant digits below; — for none."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def table_html(frame: pd.DataFrame) -> str:
    formatters = {column: number for column in frame.columns}
    return frame.to_html(index=False, formatters=formatters, na_rep="—", border=0, escape=True)


def _overview(runset: RunSet, sections: list[Section]) -> str:
    level = f"{runset.confidence * 100:g} %"
    varying = ", ".join(runset.varying) or "none (every run has the same configuration)"
    items = [
        f"{len(runset.runs)} completed runs used, {len(runset.excluded)} left out (listed under Runs).",
        f"Parameters that vary across the runs (config.yaml → bench): {escape(varying)}. "
        f"Series (colours): {SERIES}; runs with equal parameters except the seed are repetitions.",
        f"Confidence intervals (error bars, ci_low/ci_high): {level} Student t interval of the mean over the "
        "repetitions of a configuration (scipy.stats.t.interval, n − 1 degrees of freedom, scale = standard "
        "error of the per-run values); none where a configuration has fewer than 2 runs with a value "
        "(n in the tables).",
        _x_note(runset),
        *([f"<strong>Simulated</strong>: {runset.simulated_runs} of {len(runset.runs)} runs come from "
           "<code>klinkctl simulate</code> (a model of Flink running the real policy classes, docs/simulator.md), "
           "not from the real stack; every figure says so."] if runset.simulated_runs else []),
        f"Generated {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC by klinkctl {__version__}.",
    ]
    figures = [f'<li><a href="#{section.stem}">Fig. {section.spec.key}: {escape(section.spec.title)}</a></li>'
               if section.skipped is None else
               f'<li class="skipped">Fig. {section.spec.key}: {escape(section.spec.title)} — skipped: '
               f"{escape(section.skipped)}</li>" for section in sections]
    notes = [f"<li>{escape(note)}</li>" for note in runset.notes]
    return ("<ul>" + "".join(f"<li>{item}</li>" for item in items) + "</ul>"
            + "<h2>Figures</h2><ul>" + "".join(figures) + "</ul>"
            + ("<h2>Notes</h2><ul>" + "".join(notes) + "</ul>" if notes else ""))


def _x_note(runset: RunSet) -> str:
    if runset.x_param == "queries":
        return "x axis of Figs. 6a/6d: queries."
    queries = ", ".join(str(value) for value in sorted(runset.params["queries"].dropna().unique())) \
        if "queries" in runset.params else "not recorded"
    return (f"queries does not vary (queries = {escape(queries)}): Figs. 6a and 6d are plotted against "
            f"{escape(runset.x_param)} instead.")


def _section_html(section: Section) -> str:
    spec = section.spec
    heading = f'<h2 id="{section.stem}">Fig. {spec.key}: {escape(spec.title)}</h2>'
    if section.skipped is not None:
        return heading + f'<p class="skipped">Skipped: {escape(section.skipped)}</p>'
    image = base64.b64encode(section.png or b"").decode("ascii")
    links = " · ".join(f'<a href="{path.name}">{path.name}</a>' for path in section.files)
    return (heading + f"<p>{escape(spec.shows)}</p>"
            + f'<img alt="Fig. {spec.key}: {escape(spec.title)}" src="data:image/png;base64,{image}">'
            + f"<p>Files: {links}</p>" + table_html(section.table))


def _regimes_html(table: pd.DataFrame | None) -> str:
    """The regime map's table (klinkctl.results.regimes), where the runs are one."""
    if table is None:
        return ""
    shown = table[[column for column in regimes.HTML_COLUMNS if column in table.columns]]
    return ("<h2>Regime map</h2><p>Per cell: runs used and left out, mean SWM latency (ms) over runs, Klink / Default "
            "with its interval across runs, oracle / processor sharing in the fluid model of one core (the ideal), "
            "and Klink's share of the ideal reduction, (Default − Klink) / (Default − ideal); \"no room\" where the "
            f"ideal gains at most {regimes.NO_ROOM_GAIN:.0%}. All columns: regimes.csv; with intervals: regimes.md "
            "(docs/scheduler.md, \"Regime map\").</p>" + table_html(shown))


def _runs_html(runset: RunSet) -> str:
    runs = run_table(runset)
    shown = runs[["run", "repetition", *runset.group_keys, *RUN_COLUMNS]]
    excluded = (table_html(runset.excluded) if len(runset.excluded)
                else "<p>None: every run found completed.</p>")
    return ("<h2>Runs</h2><p>Completed runs used (mean and p99 of the SWM latency after the warm-up; "
            "flags = summary.json flags such as a generator behind schedule):</p>"
            + table_html(shown) + "<h3>Left out (not completed)</h3>" + excluded)


def _configs_html(runset: RunSet) -> str:
    constant = [key for key in runset.bench_keys if key not in runset.varying]
    common = pd.DataFrame({"parameter": constant,
                           "value": [", ".join(map(str, runset.params[key].unique())) for key in constant]})
    sweep = (f"<h3>sweep.yaml</h3><pre>{escape(runset.sweep_text)}</pre>" if runset.sweep_text else "")
    configs = "".join(f"<details><summary>{escape(run.run_id)}</summary><pre>"
                      f"{escape((run.run_dir / 'config.yaml').read_text(encoding='utf-8'))}</pre></details>"
                      for run in runset.runs)
    return ("<h2>Resolved configs</h2><h3>Bench parameters that are not plot axes (the same in every run; "
            "a seed may differ between repetitions)</h3>" + table_html(common)
            + sweep + "<h3>config.yaml of each run</h3>" + configs)
