"""Every stored capacity search under ROOT judged again with today's criteria (klinkctl.run.capacity_rejudge): per
search, the stored result, the probes whose verdict changes, and where the replayed search ends (its rate, or the rate
it would have probed next, never run). Markdown on stdout; nothing is run, nothing written.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/capacity_rejudge.py docs/data [--all] [--effect]

--effect also measures what send lag does to the latency, over the measured windows of every sustainable probe: each
window's latency less its probe's median, for windows whose entering lag (the generator.csv seconds in which the events
sweeping its watermark were sent) reached 40 ms, and, as a control, for windows with such a lag 2 s before that (inside
the window: it moves events, not the firing).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from klinkctl.errors import KlinkError
from klinkctl.results.tables import read_table
from klinkctl.run.capacity_criteria import SUSTAINABLE, entering_send_lags
from klinkctl.run.capacity_rejudge import Rejudged, probe_dir, rejudge

SPIKE_MS = 40.0


def effect(found: Rejudged) -> pd.DataFrame:
    """The measured windows of the search's sustainable probes: latency less the probe's median, the entering lag, and
    the control lag (2 s earlier), each less its probe's median."""
    frames = []
    for index, (entry, probe) in enumerate(found.probes):
        windows = getattr(probe, "windows", None)
        if probe.assessment.verdict != SUSTAINABLE or windows is None or windows.empty:
            continue
        lag_seconds = read_table(probe_dir(found.path, entry["run_dir"]) / "generator.csv")
        start, bound, interval = probe.timing
        control = entering_send_lags(windows["window_end"].to_numpy() - 2000, lag_seconds, start, bound, interval)
        frame = windows.assign(control_ms=control, probe=index).dropna()
        for column in ("swm_latency_ms", "send_lag_ms", "control_ms"):
            frame[column + "_dev"] = frame[column] - frame[column].median()
        frames.append(frame)
    return pd.concat(frames) if frames else pd.DataFrame()


def effect_report(frame: pd.DataFrame) -> str:
    lines = [f"{len(frame)} measured windows of sustainable probes"]
    for column, name in (("send_lag_ms", "entering"), ("control_ms", "control, 2 s earlier")):
        spiked = frame[frame[column] >= SPIKE_MS]
        fit = stats.theilslopes(frame["swm_latency_ms_dev"], frame[column + "_dev"])
        lines.append(f"{name}: {len(spiked)} windows with >= {SPIKE_MS:.0f} ms, their latency "
                     f"{spiked['swm_latency_ms_dev'].median():+.1f} ms (median) from their probe's median; Theil-Sen "
                     f"slope of latency on lag {fit.slope:.2f} [{fit.low_slope:.2f}, {fit.high_slope:.2f}]")
    return "\n".join(lines)


def _lag(probe) -> str:
    values = probe.assessment.criteria.get("generator")
    if values is None:
        return "-"
    v = values.values
    lag = v.get("lag_ms")
    return f"{lag:.1f}" if lag is not None else "-"


def row(found: Rejudged, root: Path) -> str:
    name = str(found.path.parent.relative_to(root))
    changes = "; ".join(
        f"{entry['rate']}: {entry['verdict']} → {probe.assessment.verdict} (p99 {entry['criteria'].get('generator', {}).get('lag_p99_ms', 0):.1f} ms, "
        f"entering {_lag(probe)} ms, limit {probe.assessment.criteria['generator'].values['lag_limit_ms']:.1f} ms)"
        for i, (entry, probe) in enumerate(found.probes) if i in found.changed) or "none"
    if found.result is not None:
        now = f"{found.result.rate} ({found.result.bottleneck})"
    else:
        passed = [p.rate for _, p in found.probes if p.passed]
        now = f"≥ {max(passed) if passed else '-'}; would probe {found.next_rate} next (not run)"
    stored = f"{found.stored['rate']} ({found.stored['bottleneck']})"
    return f"| {name} | {stored} | {changes} | {now} |"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--all", action="store_true", help="list unchanged searches too")
    parser.add_argument("--effect", action="store_true", help="also measure what send lag does to the latency")
    args = parser.parse_args(argv)
    paths = sorted(args.root.glob("**/capacity.json"))
    if not paths:
        print(f"error: no capacity.json under {args.root}", file=sys.stderr)
        return 2
    print("| search | stored rate (bottleneck) | probes whose verdict changes | re-judged |\n|---|---|---|---|")
    unchanged, frames = 0, []
    try:
        for path in paths:
            found = rejudge(path, keep_windows=args.effect)
            if args.effect:
                frames.append(effect(found))
            same = not found.changed and found.result is not None and found.result.rate == found.stored["rate"]
            unchanged += same
            if args.all or not same:
                print(row(found, args.root))
    except KlinkError as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    print(f"\n{len(paths)} searches; {unchanged} unchanged.")
    if args.effect:
        print("\n" + effect_report(pd.concat(frames)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
