"""How the commands print: the two consoles, one-line messages, durations and a run's summary."""

from __future__ import annotations

import click
from rich.console import Console
from rich.table import Table

console = Console(stderr=True)
# Piped output (scripts, tests) must not be cut to 80 columns: give tables room when not on a terminal.
out = Console() if Console().is_terminal else Console(width=200)


def printable(text: str) -> str:
    """A message as one printable line: control characters a user's value may carry are shown escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def format_duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


def _print_window_census(summary: dict) -> None:
    expected, censored = summary.get("windows_expected"), summary.get("windows_censored_total")
    if not expected:
        return
    exact = "" if summary.get("windows_expected_exact") else "at least "
    line = f"windows: {summary['windows_measured']} measured of {exact}{expected} expected"
    if censored:
        line += f"; {censored} CENSORED (never fired): the latency statistics are a lower bound"
    drain = summary.get("drain") or {}
    if drain.get("waited_ms") is not None:
        line += f"; waited {drain['waited_ms'] / 1000:.1f} s after the end for the last windows"
    click.echo(line)


def print_summary(summary: dict) -> None:
    table = Table("metric", "count", "mean", "p50", "p90", "p95", "p99", "max", title=f"{summary['run']}")
    for label, key in (("SWM latency (ms)", "swm_latency_ms"), ("marker latency (ms)", "marker_latency_ms"),
                       ("watermark propagation (ms)", "watermark_propagation_ms")):
        stats = summary[key]
        table.add_row(label, str(stats["count"]),
                      *[f"{stats[k]:.0f}" if stats[k] is not None else "-"
                        for k in ("mean", "p50", "p90", "p95", "p99", "max")])
    out.print(table)
    throughput, gen = summary["throughput"], summary["generator"]
    rate = throughput.get("generator_events_per_s")
    flink_rate = throughput.get("flink_source_records_per_s")
    click.echo(f"throughput: generator {rate or 0:.0f} events/s, Flink sources {flink_rate or 0:.0f} records/s")
    if surge := throughput.get("during_surge"):
        click.echo(f"during the {surge['factor']:g}x surge ({surge['span_s']:g} s): offered "
                   f"{surge['offered_events_per_s']:.0f} events/s, Flink sources read {surge['read_events_per_s']:.0f} "
                   f"({surge['read_fraction']:.0%})")
    behind = gen.get("behind_fraction")
    click.echo(f"generator: {gen.get('events_sent')} events sent, behind schedule "
               f"{(behind or 0):.2%} of events; late events dropped by windows: {summary['late_dropped']}")
    _print_window_census(summary)
    delay = summary.get("delay") or {}
    if delay.get("samples"):
        click.echo(f"network delay {delay['model']}: mean {delay['observed_mean_ms']:.1f} ms sent vs "
                   f"{delay['requested_mean_ms']:.1f} requested, p99 {delay['observed_p99_ms']:.0f} vs "
                   f"{delay['requested_p99_ms']:.0f}; KS D = {delay['ks_statistic']:.4f}")
    scheduler = summary.get("scheduler") or {}
    if scheduler.get("cycles"):
        click.echo(f"scheduler: {scheduler['cycles']} cycles, {scheduler['mean_cycle_us']:.0f} µs per cycle "
                   f"(p99 {scheduler['p99_cycle_us']:.0f} µs)")
    prioritised = summary.get("os_priority") or {}
    if prioritised.get("periods") is not None:
        unmapped = prioritised.get("unmapped_vertices") or []
        click.echo(f"os-priority: {prioritised['periods']} periods, {prioritised['threads_touched']} task threads "
                   f"re-niced (nice {', '.join(map(str, prioritised['nice_levels_used']))})"
                   + (f"; no thread found for {', '.join(unmapped)}" if unmapped else ""))
    for name, acc in (summary.get("estimator") or {}).items():
        if acc.get("swms"):
            low, high = acc.get("inside_ci") or (None, None)
            interval = f" [{low:.0%}–{high:.0%}]" if low is not None else ""
            click.echo(f"estimator {name}: {acc['inside_fraction']:.0%}{interval} of {acc['swms']} SWMs inside the predicted "
                       f"{acc['confidence']:.0%} interval (median width {acc['median_width_ms']:.0f} ms), mean |error| "
                       f"{acc['mean_abs_error_ms']:.0f} ms; skipped {_skipped_text(acc.get('skipped') or {})}")
    acc = summary.get("accuracy") or {}
    if acc.get("windows"):
        click.echo(f"accuracy ({summary.get('sampler', 'none')}): mean error {acc['mean_error']:.2%}, p95 "
                   f"{acc['p95_error']:.2%}, max {acc['max_error']:.2%}; {acc['within_target_fraction']:.0%} of "
                   f"{acc['windows']} windows within {acc['error_target']:.0%}; sampling rate "
                   f"{acc['mean_sampling_rate']:.0%}; stragglers dropped by the sampler: {acc['sampler_dropped_late']}")
    for flag in summary["flags"]:
        click.echo(f"FLAG: {flag}")
    click.echo(f"status: {summary['status']}" + (f" ({summary['reason']})" if summary["reason"] else ""))


def _skipped_text(skipped: dict[str, int]) -> str:
    """`3 (no_history 2, run_ended 1)`, or `0`."""
    reasons = ", ".join(f"{reason} {count}" for reason, count in skipped.items())
    return f"{sum(skipped.values())} ({reasons})" if skipped else "0"


def report_outcome(outcome, fmt: str, what: str) -> None:
    """A bench or simulated run's summary (table or JSON), where its files are, and a non-zero exit unless it
    completed."""
    import json

    import click

    from klinkctl.errors import RunNotCompleted

    if fmt == "json":
        click.echo(json.dumps(outcome.summary, indent=2))
    else:
        print_summary(outcome.summary)
    click.echo(f"results: {outcome.run_dir}", err=fmt == "json")
    if outcome.summary["status"] != "completed":
        raise RunNotCompleted(f"{what} {outcome.summary['status']}: {outcome.summary['reason']}")
