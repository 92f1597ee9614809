"""A stored capacity search judged again, offline, with today's criteria (`klinkctl.run.capacity_criteria`): every
completed probe is re-assessed from its run directory exactly as the search assesses a fresh one (measured_windows,
measured_rates, assess; (b)'s rates as stored when the directory was kept without throughput.csv), and the search (`klinkctl.run.capacity.search`) is replayed over the re-assessed probes
until it would have probed a rate that was never run. Nothing is run; nothing under the search's directory is
written. Used by benchmarks/capacity_rejudge.py (docs/capacity.md, "Which send lag enters the latency").
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import yaml

from klinkctl.errors import KlinkError
from klinkctl.run.capacity import Probe, SearchResult, SearchSettings, search
from klinkctl.run.capacity_criteria import (Assessment, Criterion, ReadRate, Thresholds, assess, measured_rates,
                                            measured_windows)


@dataclass(frozen=True)
class Rejudged:
    """One stored search judged again: what it said then, what today's criteria say, and where the replayed search
    ends (``next_rate``: the rate it would have probed next, never run; None when it ends within the probes run)."""

    path: Path
    stored: dict  # rate, bottleneck, stopped, probe verdicts as stored
    probes: list[tuple[dict, Probe]]  # each stored probe entry with its re-assessment
    result: SearchResult | None  # the replayed search, when it ended within the probes run
    next_rate: int | None
    changed: list[int] = field(default_factory=list)  # indexes of the probes whose verdict changed


@dataclass(frozen=True)
class _WithWindows(Probe):
    windows: object = None
    timing: tuple | None = None


class _NotRun(Exception):
    def __init__(self, rate: int):
        super().__init__(rate)
        self.rate = rate


def probe_dir(capacity_path: Path, run_dir: str) -> Path:
    """A probe's run directory: as recorded, or (the search copied elsewhere, e.g. docs/data) beside capacity.json."""
    recorded = Path(run_dir)
    return recorded if recorded.is_dir() else capacity_path.parent / recorded.name


def _probe_config(directory: Path, search_config: dict) -> SimpleNamespace:
    """What measured_windows/measured_rates read of a probe's config: its own config.yaml, else the search's."""
    config = dict(search_config)
    own = directory / "config.yaml"
    if own.is_file():
        config.update((yaml.safe_load(own.read_text()) or {}).get("bench") or {})
    return SimpleNamespace(**config)


def reassess(capacity_path: Path, document: dict, entry: dict, thresholds: Thresholds,
             keep: dict | None = None) -> Assessment:
    """One stored probe judged again from its run directory; a probe that did not complete keeps its verdict. With
    ``keep``, its measured windows and (generation start, B, watermark interval) are put there."""
    directory = probe_dir(capacity_path, entry.get("run_dir") or "")
    summary_path = directory / "summary.json"
    if not summary_path.is_file():
        return Assessment(entry["verdict"], entry["why"], _stored_criteria(entry))
    summary = json.loads(summary_path.read_text())
    if summary.get("status") != "completed":
        return Assessment(entry["verdict"], entry["why"], _stored_criteria(entry))
    config = _probe_config(directory, document.get("config") or {})
    windows = measured_windows(directory, summary, config)
    if keep is not None and summary.get("warmup_until_ms"):
        keep.update(windows=windows, timing=(summary["warmup_until_ms"] - config.warmup_ms,
                                             config.watermark_bound_ms, config.watermark_interval_ms))
    rates = measured_rates(directory, summary, config) if (directory / "throughput.csv").is_file() \
        else stored_rates(entry)
    return assess(summary, windows, rates, entry["rate"] * int(config.queries), thresholds)


def stored_rates(entry: dict) -> ReadRate | None:
    """(b)'s rates as the search measured them (capacity.json), for probe directories kept without throughput.csv
    (docs/data keeps none)."""
    values = (entry.get("criteria") or {}).get("source_read") or {}
    try:
        return ReadRate(float(values["offered_per_s"]), float(values["read_per_s"]), float(values["span_s"]),
                        int(values["metrics_lag_ms"]))
    except (KeyError, TypeError, ValueError):
        return None


def _stored_criteria(entry: dict) -> dict[str, Criterion]:
    return {name: Criterion(bool(values.get("passed")), values.get("why", ""),
                            {k: v for k, v in values.items() if k not in ("passed", "why")})
            for name, values in (entry.get("criteria") or {}).items()}


def rejudge(capacity_path: Path, thresholds: Thresholds = Thresholds(), keep_windows: bool = False) -> Rejudged:
    """capacity.json at ``capacity_path`` judged again (see the module's docstring); with keep_windows, each
    re-assessed probe also carries ``windows`` and ``timing`` (for benchmarks/capacity_rejudge.py --effect)."""
    try:
        document = json.loads(capacity_path.read_text())
    except (OSError, json.JSONDecodeError) as problem:
        raise KlinkError(f"{capacity_path}: not a readable capacity.json ({problem})") from None
    if not isinstance(document, dict) or not isinstance(document.get("probes"), list):
        raise KlinkError(f"{capacity_path}: not a capacity.json (no probes)")
    entries = document["probes"]
    probes = []
    for entry in entries:
        kept: dict = {}
        probe = Probe(entry["rate"], reassess(capacity_path, document, entry, thresholds,
                                              kept if keep_windows else None), entry.get("run_dir", ""))
        if keep_windows:
            probe = _WithWindows(probe.rate, probe.assessment, probe.run_dir, kept.get("windows"), kept.get("timing"))
        probes.append((entry, probe))
    changed = [i for i, (entry, probe) in enumerate(probes) if entry["verdict"] != probe.assessment.verdict]
    queue = list(probes)

    def replay(rate: int) -> Probe:
        for index, (_, probe) in enumerate(queue):
            if probe.rate == rate:
                return queue.pop(index)[1]
        raise _NotRun(rate)

    known = set(SearchSettings.__dataclass_fields__)
    settings = SearchSettings(**{k: v for k, v in (document.get("search") or {}).items() if k in known})
    stored = {"rate": document.get("rate"), "bottleneck": document.get("bottleneck"),
              "stopped": document.get("stopped"), "verdicts": [entry["verdict"] for entry in entries]}
    try:
        result = search(replay, settings)
    except _NotRun as not_run:
        return Rejudged(capacity_path, stored, probes, None, not_run.rate, changed)
    return Rejudged(capacity_path, stored, probes, result, None, changed)
