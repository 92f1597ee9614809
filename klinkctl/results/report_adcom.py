"""The AdCom figures of `klinkctl report` (seed adcom-edbt21.txt §4; the rides workload, docs/combiner.md): per
figure, the table it plots from a set of runs (``runset``): throughput over time (Fig. 4a), buffer use and λ over
time (Fig. 4b), throughput against the Zipf key skew (Fig. 5) and against the parallelism (Fig. 6).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from klinkctl.errors import KlinkError
from klinkctl.rate_schedule import parse as parse_schedule
from klinkctl.results.report import MissingData, mean_per_second, mean_with_ci, metrics_vs_x, run_table
from klinkctl.results.runset import Run, RunSet
from klinkctl.results.summary import metrics_lag_ms
from klinkctl.results.tables import read_table

RIDES = "rides"
#: Fig. 4a's two counts of what the query read, per second: Flink's source counters when every run kept them
#: (throughput.csv, which `klinkctl archive` leaves out), else the trips the windows counted (latency.csv).
SOURCES, WINDOWS = "sources (throughput.csv)", "windows (latency.csv events)"
#: Figs. 5 and 6: the throughputs per run, the surge's first (summary.json → throughput).
THROUGHPUT_ROWS = {"surge_read_per_s": "read during the surge (events/s)",
                   "flink_source_records_per_s": "Flink sources, measured span (records/s)"}


def combiner_over_time(runset: RunSet) -> pd.DataFrame:
    """AdCom's Fig. 4(b) analogue and its λ: the combiners' mean output-buffer utilisation and the mini-batch
    interval per controller period (combiner.csv, rides workload), seconds since the run's first period, averaged
    over the repetitions of a configuration; a fixed-interval combiner has no λ (NaN)."""
    return mean_per_second(runset, _combiner_frame, ["rho_avg", "interval_ms"],
                           "no run has combiner.csv (rides runs with --combiner adcom or local-global)")


def _combiner_frame(run: Run) -> pd.DataFrame:
    frame = read_table(run.run_dir / "combiner.csv")
    if frame.empty:
        return frame
    interval = frame["interval_ms"].where(frame["interval_ms"] >= 0)
    return pd.DataFrame({"run": run.run_id, "second": (frame["time_ms"] - frame["time_ms"].min()) // 1000,
                         "rho_avg": frame["rho_avg"], "interval_ms": interval})


def throughput_over_time(runset: RunSet) -> pd.DataFrame:
    """AdCom's Fig. 4(a) analogue: per configuration and second since the generator's start in which every
    repetition read (runs that drain longer do not end the curve in one run's noise), the events/s the query read
    (``mean`` over the repetitions with its t interval, ``runs``/``n``) and the events/s the generator offered
    (generator.csv ``sent``, mean over the repetitions); ``counted_at`` says where the reads were counted:

    - ``SOURCES``: Flink's source counters (throughput.csv, all sources summed per sample), shifted by the
      counters' lag as summary.json's during_surge is (``summary.metrics_lag_ms``); used when every run has it;
    - ``WINDOWS``: otherwise (archived runs), the trips each fired window counted (latency.csv ``events``), spread
      evenly over the time since the query's previous firing and summed over queries: the query's throughput,
      2 s windows apart and later than the sources' by the windows' wait (half a window, the watermark bound)."""
    runs = [run for run in runset.runs if run.params.get("workload") == RIDES]
    counted_at = SOURCES if runs and all((run.run_dir / "throughput.csv").is_file() for run in runs) else WINDOWS
    frames = [frame for frame in (_reads_per_second(run, counted_at) for run in runs) if not frame.empty]
    if not frames:
        raise MissingData("no rides run has generator-summary.json start_ms with latency.csv window events or "
                          "throughput.csv (throughput over time, AdCom Fig. 4a)")
    samples = pd.concat(frames, ignore_index=True).merge(runset.params, on="run")
    keys = runset.group_keys + ["second"]
    table = mean_with_ci(samples, keys, "read_per_s", runset.confidence)
    table = table[table["n"] == table.groupby(runset.group_keys, dropna=False)["n"].transform("max")]
    offered = samples.groupby(keys, dropna=False)["offered_per_s"].mean().reset_index()
    return table.merge(offered, on=keys, how="left").assign(counted_at=counted_at)


def _reads_per_second(run: Run, counted_at: str) -> pd.DataFrame:
    """One run's reads (``read_per_s``) and offered events (``offered_per_s``) per second since its generation's
    start; empty without that start or without reads."""
    try:
        start_ms = int(json.loads((run.run_dir / "generator-summary.json").read_text())["start_ms"])
    except (OSError, ValueError, KeyError, TypeError):
        return pd.DataFrame()
    reads = _source_reads(run, start_ms) if counted_at == SOURCES else _window_reads(run, start_ms)
    if reads.empty:
        return reads
    sent = read_table(run.run_dir / "generator.csv")
    offered = (sent.set_index("second")["sent"] if not sent.empty else pd.Series(dtype=float)).rename("offered_per_s")
    reads = reads.join(offered, how="left")
    return reads.rename_axis("second").reset_index().assign(run=run.run_id)


def _source_reads(run: Run, start_ms: int) -> pd.DataFrame:
    throughput = read_table(run.run_dir / "throughput.csv")
    lag = metrics_lag_ms(throughput, start_ms)
    if lag is None:
        return pd.DataFrame()
    sources = throughput[throughput["job_vertex"].str.contains("/source", regex=False)]
    per_sample = sources.groupby("time")["records_in_per_s"].sum()
    second = (per_sample.index.to_numpy() - start_ms - lag) // 1000
    return per_sample.groupby(second).mean().rename("read_per_s").to_frame()


def _window_reads(run: Run, start_ms: int) -> pd.DataFrame:
    windows = read_table(run.run_dir / "latency.csv")
    if windows.empty or "events" not in windows:
        return pd.DataFrame()
    per_query = [_query_reads(rows, start_ms) for _, rows in windows.groupby("query")]
    rates = pd.concat(per_query, axis=1).dropna()  # the seconds every query's firings span
    return rates.sum(axis=1).rename("read_per_s").to_frame()


def _query_reads(windows: pd.DataFrame, start_ms: int) -> pd.Series:
    """Per whole second between a query's first and last firing, the trips its windows counted in it: the count
    of each window spread evenly since the previous firing (the first firing is the zero point)."""
    fired = windows.sort_values("fired_at")
    at = (fired["fired_at"].to_numpy() - start_ms) / 1000
    counted = np.concatenate([[0.0], np.cumsum(fired["events"].to_numpy()[1:], dtype=float)])
    seconds = np.arange(np.ceil(at[0]), np.floor(at[-1]))
    return pd.Series(np.interp(seconds + 1, at, counted) - np.interp(seconds, at, counted),
                     index=seconds.astype(int))


def surge_span(runset: RunSet) -> tuple[float, float] | None:
    """The surge (seconds since the generation's start) when every rides run has the same surge schedule."""
    spans = set()
    for run in runset.runs:
        if run.params.get("workload") != RIDES:
            continue
        try:
            schedule = parse_schedule(str(run.params.get("rate_schedule") or "steady"),
                                      int(run.params.get("duration_ms") or 0))
        except KlinkError:
            return None
        spans.add((schedule.start_ms / 1000, (schedule.start_ms + schedule.length_ms) / 1000)
                  if schedule.kind == "surge" else None)
    return spans.pop() if len(spans) == 1 else None


def throughput_vs_skew(runset: RunSet) -> pd.DataFrame:
    """AdCom's Fig. 5 analogue: per configuration, its throughputs (THROUGHPUT_ROWS) against the Zipf exponent of
    the regions (``key_skew``), mean over repetitions with its t interval (long: a ``metric`` column); drawn at one
    exponent too (the issue's skew target is read at s = 1.2)."""
    return _throughput_vs(runset, "key_skew", 1)


def throughput_vs_parallelism(runset: RunSet) -> pd.DataFrame:
    """AdCom's Fig. 6 analogue, throughput per number of reducers: the rides query's global window runs once per
    query, so the parallelism it has is the parse and combiner stage's (``combiner_parallelism``, the senders
    before the shuffle); as Fig. 5 but against it, and only where it varies (at one value it repeats Fig. 5)."""
    return _throughput_vs(runset, "combiner_parallelism", 2)


def _throughput_vs(runset: RunSet, x: str, values: int) -> pd.DataFrame:
    """THROUGHPUT_ROWS of the rides runs against ``x``, which must have at least ``values`` values among them."""
    runs = run_table(runset)
    runs = runs[runs["workload"] == RIDES] if "workload" in runs else runs.iloc[:0]
    if runs.empty or x not in runs or runs[x].isna().all():
        raise MissingData(f"no rides run sets {x} (config.yaml → bench)")
    if runs[x].nunique() < values:
        raise MissingData(f"{x} is {runs[x].dropna().iloc[0]} in every rides run: the figure needs runs at "
                          f"{values} or more values of it")
    surge = [{"run": run.run_id, "surge_read_per_s": _surge_read(run)} for run in runset.runs]
    runs = runs.merge(pd.DataFrame(surge, columns=["run", "surge_read_per_s"]), on="run")
    return metrics_vs_x(runset, runs, THROUGHPUT_ROWS, "no summary.json of a rides run has throughput."
                        "during_surge or throughput.flink_source_records_per_s", x=x)


def _surge_read(run: Run) -> float:
    surge = (run.summary.get("throughput") or {}).get("during_surge") or {}
    return float(surge["read_events_per_s"]) if surge.get("read_events_per_s") is not None else np.nan
