"""`klinkctl report`: every figure whose data exists, as PNG + SVG, and index.html around them.

A figure (``report_figures``) is a table (``report``) drawn by one function (``plots``); when its table cannot
be built (``MissingData``) the figure is skipped and the reason goes into the report and onto the console.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from klinkctl.errors import KlinkError
from klinkctl.results import regimes
from klinkctl.results.runset import REPORT_DIR, RunSet, load_runset
from klinkctl.results.report_figures import FIGURES, Section, make_section
from klinkctl.results.report_html import render_html

INDEX_HTML = "index.html"


@dataclass
class ReportOutcome:
    out_dir: Path
    html: Path
    runset: RunSet
    sections: list[Section]
    regime_files: list[Path] = field(default_factory=list)  # regimes.csv and .md of a regime map

    @property
    def written(self) -> list[Section]:
        return [section for section in self.sections if section.skipped is None]

    @property
    def skipped(self) -> list[Section]:
        return [section for section in self.sections if section.skipped is not None]


def build_report(root: Path, out_dir: Path | None = None, confidence: float = 0.95,
                 include_invalid: bool = False) -> ReportOutcome:
    """Load the runs under ``root``, write every figure whose data exists and index.html to
    ``out_dir`` (default ``root``/report). Raises KlinkError (one line) on bad input."""
    runset = load_runset(root, confidence, include_invalid)
    out_dir = out_dir or root / REPORT_DIR
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise KlinkError(f"{out_dir}: cannot create the report directory ({error.strerror})") from None
    sections = [make_section(spec, runset, out_dir) for spec in FIGURES]
    html = out_dir / INDEX_HTML
    regime_table = regimes.regime_map(runset)
    regime_files = regimes.write_regimes(regime_table, out_dir) if regime_table is not None else []
    html.write_text(render_html(runset, sections, regime_table), encoding="utf-8")
    return ReportOutcome(out_dir, html, runset, sections, regime_files)
