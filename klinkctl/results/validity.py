"""Which runs are compared: a run is *invalid for comparison* when what it measured may not be what the
configuration produces.

A run is invalid when any of these holds (one short reason each, in this order):

1. its status is not ``completed`` (failed, interrupted, or no summary.json at all): it measured only part of
   the run, or nothing can be said about it;
2. it has censored windows: windows that should have fired in the measured span but have no latency row, so
   the slowest windows are missing and the mean is biased low (``windows_censored_total > 0``; summaries
   written before that field existed: ``windows_measured < windows_expected``);
3. the generator offered less than ``MIN_OFFERED_FRACTION`` (99 %) of the requested load: it sent fewer than
   99 % of the events its schedule holds (``generator.events_sent / generator.events_scheduled``; summaries
   without them: ``achieved_rate / target_rate``). Not the achieved rate when the schedule is known: that rate
   divides by the generator's wall time, which includes the network-delay tail (events are sent at event time
   + delay), so an exponential delay model put a generator that kept its schedule to the millisecond at 91 %
   of its rate. A generator that falls behind still sends every event, late: rule 4 catches it;
4. the generator's p99 send lag (``generator.lag_p99_ms``) is above ``MAX_LAG_FRACTION`` (5 %) of the run's
   mean SWM latency: events left late enough to move the measured latency (coordinated omission). Skipped when
   the summary has no send-lag percentile (older runs), and for per-record workloads, whose latency counts from
   each record's scheduled creation time, so a late send is charged to the run's latency, not hidden;
5. (per-record workloads) records never reached the sinks (``record_latency.records_missing > 0``): lost, or
   still queued when collection stopped; like censored windows, the slowest records would be missing;
6. Flink's sources read nothing in the measured span by their metrics (``throughput.flink_source_records_per_s``
   null or 0) although the generator sent events: the metrics did not come from this run's tasks (measured: a
   JobManager that went on serving a replaced TaskManager's last values), so the throughput, heap and CPU read
   beside them cannot be trusted either. Skipped for summaries without that field.

Why these thresholds: on this machine 1–3 % of events leave more than 10 ms behind schedule in almost every
run, so "fell behind" alone says little; a 1 % rate shortfall or a p99 lag of 5 % of the latency is what can
move a mean latency by about as much as the differences the project reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: The generator must offer at least this fraction of the requested rate.
MIN_OFFERED_FRACTION = 0.99
#: The generator's p99 send lag may be at most this fraction of the run's mean SWM latency.
MAX_LAG_FRACTION = 0.05

CENSORED = "censored windows"
GENERATOR_SLOW = f"generator below {MIN_OFFERED_FRACTION * 100:g} % of the requested rate"
GENERATOR_LAG = f"generator p99 send lag above {MAX_LAG_FRACTION * 100:g} % of the mean latency"
NO_SUMMARY = "no summary.json"
RECORDS_MISSING = "records missing at the sinks"
NO_SOURCE_RATE = "no Flink source rate in the measured span"


@dataclass(frozen=True)
class Validity:
    valid: bool
    reasons: list[str] = field(default_factory=list)

    def as_summary(self) -> dict[str, Any]:
        """The ``comparison`` entry of summary.json."""
        return {"valid": self.valid, "invalid_reasons": list(self.reasons)}


def assess(summary: dict[str, Any]) -> Validity:
    """Whether the run of ``summary`` (summary.json as a dict) may be compared, and if not, why."""
    if not summary:
        return Validity(False, [NO_SUMMARY])
    checks = (_status_reason, _censored_reason, _rate_reason, _lag_reason, _missing_records_reason,
              _source_rate_reason)
    reasons = [reason for check in checks if (reason := check(summary))]
    return Validity(not reasons, reasons)


def _section(summary: dict[str, Any], key: str) -> dict[str, Any]:
    value = summary.get(key)
    return value if isinstance(value, dict) else {}


def _status_reason(summary: dict[str, Any]) -> str | None:
    status = summary.get("status")
    return None if status == "completed" else f"status {status or 'unknown'}"


def _censored_reason(summary: dict[str, Any]) -> str | None:
    censored = summary.get("windows_censored_total")
    if censored is None:
        measured, expected = summary.get("windows_measured"), summary.get("windows_expected")
        censored = expected - measured if measured is not None and expected is not None else 0
    return CENSORED if censored > 0 else None


def _rate_reason(summary: dict[str, Any]) -> str | None:
    generator = _section(summary, "generator")
    offered, requested = generator.get("events_sent"), generator.get("events_scheduled")
    if offered is None or not requested:
        offered, requested = generator.get("achieved_rate"), generator.get("target_rate")
    if offered is None or not requested:
        return None
    return GENERATOR_SLOW if offered / requested < MIN_OFFERED_FRACTION else None


def _lag_reason(summary: dict[str, Any]) -> str | None:
    lag_p99 = _section(summary, "generator").get("lag_p99_ms")
    mean_latency = _section(summary, "swm_latency_ms").get("mean")
    if lag_p99 is None or not mean_latency:
        return None
    return GENERATOR_LAG if lag_p99 > MAX_LAG_FRACTION * mean_latency else None


def _missing_records_reason(summary: dict[str, Any]) -> str | None:
    missing = _section(summary, "record_latency").get("records_missing")
    return RECORDS_MISSING if missing else None


def _source_rate_reason(summary: dict[str, Any]) -> str | None:
    throughput = _section(summary, "throughput")
    if "flink_source_records_per_s" not in throughput or not _section(summary, "generator").get("events_sent"):
        return None
    return None if throughput["flink_source_records_per_s"] else NO_SOURCE_RATE
