"""summary.json's `tm_links`: what crossed each shaped TaskManager link (`up --tm-link-rate`) in a run's measured
span, from links.csv (klinkctl.run.collectors: the relay's counters, sampled once a second)."""

from __future__ import annotations

import pandas as pd

#: A second in which a link carried at least this share of its rate counts as one at its rate.
AT_RATE = 0.9


def link_summary(links: pd.DataFrame, measured: tuple[int, int] | None) -> dict | None:
    """Per shaped TaskManager: its rate, the bytes it sent to other TaskManagers (and received from them) in the
    measured span, their mean and peak rate per second, and the share of seconds it ran at its rate. None without
    a shaped link or a measured span."""
    if links.empty or measured is None:
        return None
    counted = links.drop_duplicates(["taskmanager", "counted_at"])
    counted = counted[counted["counted_at"].between(*measured)].sort_values("counted_at")
    found = {name: _one_link(rows) for name, rows in counted.groupby("taskmanager") if len(rows) >= 2}
    return found or None


def _one_link(rows: pd.DataFrame) -> dict:
    seconds = (rows["counted_at"].iloc[-1] - rows["counted_at"].iloc[0]) / 1000
    rate = float(rows["rate_bytes_per_s"].iloc[-1])
    sent = _growth(rows, "bytes_to_clients")
    per_second = rows["bytes_to_clients"].diff().iloc[1:] / (rows["counted_at"].diff().iloc[1:] / 1000)
    return {"rate_bytes_per_s": rate, "seconds": seconds, "bytes_to_clients": sent,
            "bytes_to_target": _growth(rows, "bytes_to_target"),
            "mean_bytes_per_s_to_clients": sent / seconds if seconds else None,
            "peak_bytes_per_s_to_clients": float(per_second.max()),
            "utilisation": sent / seconds / rate if seconds else None,
            "seconds_at_rate_fraction": float((per_second >= AT_RATE * rate).mean())}


def _growth(rows: pd.DataFrame, column: str) -> int:
    return int(rows[column].iloc[-1] - rows[column].iloc[0])
