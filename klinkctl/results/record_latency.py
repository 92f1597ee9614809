"""Per-record end-to-end latency: the sinks' HdrHistograms (record-latency.csv) merged into a run's figures.

A sink subtask publishes, once a second, a "records" row (``klinkctl.run.collectors``): how many records arrived
in that second (first copies only), how many later copies it dropped (``duplicates``), the sum of their queueing
delays (``queued_us``: each record's waits from an upstream hand-over to the start of a stage's work, added up over
its stages) and an HdrHistogram of their latencies in microseconds (record creation to arrival at the sink), base64 of Java's V2 compressed encoding.
Here the rows of the measured span (``warmup`` false) are merged across subtasks and queries: the run's figures
in milliseconds (summary.json → ``record_latency``) and one row per second (``record-percentiles.csv``).

Rows are placed by the second their records *arrived*, so records created before the generator stopped and
drained after it are measured (leaving them out would hide the tail); a second that began in the warm-up is left
out whole. Percentiles are HdrHistogram's (``get_value_at_percentile``): the highest value equivalent to the
recorded one at 3 significant digits, so a figure is exact to within 0.1 %.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

import numpy as np
import pandas as pd
from hdrh.histogram import HdrHistogram

from klinkctl.results.tables import measured_rows, read_table

RECORD_FILE = "record-latency.csv"
#: Of the events sent, those a filtering workload's stages let through (klinkctl.run.from_input.write_expected_records).
EXPECTED_RECORDS_FILE = "records-expected.json"
PERCENTILES_FILE = "record-percentiles.csv"
#: The Java sinks' histogram settings: 1 µs to one hour, 3 significant digits.
LOWEST_US, HIGHEST_US, DIGITS = 1, 3_600_000_000, 3
US_PER_MS = 1000.0
#: summary.json → record_latency: name → percentile.
SUMMARY_PERCENTILES = {"p50": 50.0, "p90": 90.0, "p99": 99.0, "p999": 99.9, "p9999": 99.99}
#: record-percentiles.csv: name → percentile, per second.
SECOND_PERCENTILES = {"p90": 90.0, "p99": 99.0, "p999": 99.9, "p9999": 99.99}
SECOND_COLUMNS = ["second", "count", *(f"{name}_ms" for name in SECOND_PERCENTILES)]


def empty_histogram() -> HdrHistogram:
    return HdrHistogram(LOWEST_US, HIGHEST_US, DIGITS)


def decode(encoded: object) -> HdrHistogram | None:
    """A row's histogram; None for an empty cell (a second without records)."""
    if not isinstance(encoded, str) or not encoded.strip():
        return None
    return HdrHistogram.decode(encoded.strip())


def merge(histograms: Iterable[HdrHistogram | None]) -> HdrHistogram:
    """One histogram holding every record of ``histograms`` (None: none)."""
    total = empty_histogram()
    for histogram in histograms:
        if histogram is not None:
            total.add(histogram)
    return total


def percentiles_ms(histogram: HdrHistogram, percentiles: dict[str, float]) -> dict[str, float | None]:
    """name → the latency at that percentile in ms; None for every name when the histogram is empty."""
    if not histogram.get_total_count():
        return {name: None for name in percentiles}
    return {name: histogram.get_value_at_percentile(q) / US_PER_MS for name, q in percentiles.items()}


def measured_records(frame: pd.DataFrame) -> pd.DataFrame:
    """record-latency.csv's rows after the warm-up, with a ``second`` column (the epoch second of start_ms)."""
    if frame.empty:
        return frame
    measured = measured_rows(frame)
    return measured.assign(second=measured["start_ms"] // 1000)


def per_second_histograms(measured: pd.DataFrame) -> pd.Series:
    """second → the histogram of the records every subtask received in it, in order of time."""
    if measured.empty:
        return pd.Series(dtype=object)
    decoded = measured["histogram"].map(decode)
    return pd.Series({second: merge(group) for second, group in decoded.groupby(measured["second"], sort=True)},
                     dtype=object)


def per_second_table(seconds: pd.Series) -> pd.DataFrame:
    """record-percentiles.csv: per second, the records and their p90…p99.99 in ms (merged across subtasks)."""
    rows = [{"second": int(second), "count": int(histogram.get_total_count()),
             **{f"{name}_ms": value for name, value in percentiles_ms(histogram, SECOND_PERCENTILES).items()}}
            for second, histogram in seconds.items()]
    return pd.DataFrame(rows, columns=SECOND_COLUMNS)


def latency_summary(histogram: HdrHistogram, duplicates: int, queued_us: float | None = None
                    ) -> dict[str, float | int | None]:
    """summary.json → record_latency: records, duplicates dropped, mean, p50…p99.99 and max, in ms, and the mean
    queueing delay per record over all its stages (None when the sinks did not report it)."""
    count = int(histogram.get_total_count())
    figures = percentiles_ms(histogram, SUMMARY_PERCENTILES)
    return {"count": count, "duplicates": int(duplicates),
            "mean_ms": histogram.get_mean_value() / US_PER_MS if count else None,
            **{f"{name}_ms": value for name, value in figures.items()},
            "max_ms": histogram.get_max_value() / US_PER_MS if count else None,
            "queueing_mean_ms": queued_us / count / US_PER_MS if count and queued_us is not None else None}


def run_record_latency(run_dir: Path) -> dict | None:
    """A run's per-record latency (summary.json → record_latency), writing record-percentiles.csv beside its
    record-latency.csv; None for a run without record rows (no file written)."""
    if not (run_dir / RECORD_FILE).is_file():
        return None
    every_row = read_table(run_dir / RECORD_FILE)
    measured = measured_records(every_row)
    seconds = per_second_histograms(measured)
    per_second_table(seconds).to_csv(run_dir / PERCENTILES_FILE, index=False)
    duplicates = int(measured["duplicates"].sum()) if "duplicates" in measured else 0
    queued = measured["queued_us"].sum() if "queued_us" in measured and measured["queued_us"].notna().all() else None
    return {**latency_summary(merge(seconds), duplicates, queued), **whole_run_counts(every_row),
            "stage_shares": stage_shares(run_dir)}


def stage_shares(run_dir: Path) -> dict[str, float] | None:
    """The fraction of the stages' records each TaskManager processed over the whole run (the agent's per-task
    totals in tasks.csv placed by placement.csv): what a balancing exchange sent away from a slow TaskManager.
    None when either file is missing or names no stage task."""
    if not ((run_dir / "tasks.csv").is_file() and (run_dir / "placement.csv").is_file()):
        return None
    tasks = read_table(run_dir / "tasks.csv")
    tasks = tasks[tasks["role"].astype(str).str.startswith("stage-")]
    placed = tasks.assign(vertex=tasks["query"] + "/" + tasks["role"]).merge(
        read_table(run_dir / "placement.csv"), on=["vertex", "subtask"])
    by_taskmanager = placed.groupby("taskmanager")["records_in"].sum()
    total = by_taskmanager.sum()
    return {str(tm): round(float(n / total), 4) for tm, n in by_taskmanager.items()} if total > 0 else None


def whole_run_counts(rows: pd.DataFrame) -> dict[str, int]:
    """Records (first copies) and dropped copies the sinks saw over the whole run, warm-up included: set against
    the events the generator sent, what a technique lost or duplicated."""
    if rows.empty:
        return {"records_total": 0, "duplicates_total": 0}
    return {"records_total": int(rows["count"].sum()), "duplicates_total": int(rows["duplicates"].sum())}


def pooled_histogram(run_dirs: Iterable[Path]) -> HdrHistogram:
    """Every measured record of the runs in one histogram (a configuration's repetitions pooled)."""
    frames = [measured_records(read_table(run_dir / RECORD_FILE)) for run_dir in run_dirs]
    return merge(decode(text) for frame in frames if not frame.empty for text in frame["histogram"])


def nines_curve(histogram: HdrHistogram, nines: np.ndarray) -> pd.DataFrame:
    """Latency (ms) at each percentile 100 × (1 − 10^−nines): nines 1 = p90, 2 = p99, 3 = p99.9, 4 = p99.99."""
    percentiles = 100.0 * (1.0 - 10.0 ** -np.asarray(nines, dtype=float))
    latencies = [histogram.get_value_at_percentile(q) / US_PER_MS for q in percentiles]
    return pd.DataFrame({"nines": nines, "percentile": percentiles, "latency_ms": latencies,
                         "records": int(histogram.get_total_count())})
