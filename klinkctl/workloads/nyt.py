"""NYT (DEBS 2015 taxi trips): sliding-window job config for the NYT job, the generator's event arguments, and
exact window results (the job's parse, validate and cell redone in pandas)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from klinkctl.results import accuracy
from klinkctl.run.config import RunSpec
from klinkctl.workloads import common

JAVA_BUILDER = "io.klink.workloads.nyt.NytJob"
event_time = common.last_column_event_time  # appended after the 17 DEBS columns

#: DEBS 2015 columns the job reads (io.klink.workloads.nyt.NytOperators) and the grid (NytGrid).
TRIP_SECS, DISTANCE, PICKUP_LON, PICKUP_LAT, FARE, TOTAL = 4, 5, 6, 7, 11, 16
COLUMNS = 18
CELL1_LAT, CELL1_LON = 41.474937, -74.913585
CELL_DEG_LAT, CELL_DEG_LON = 0.004491556, 0.005986
CELLS = 300


def write_job_config(plan_: common.Plan, config: RunSpec, bootstrap: str, run_dir: Path) -> Path:
    return common.write_job_config(run_dir, common.job_config(plan_, config, bootstrap, JAVA_BUILDER, slideMs=config.slide_ms))


def generator_args(config: RunSpec) -> list[str]:
    """Synthetic trips, or the replay of a DEBS 2015 CSV (--data)."""
    return ["--workload", "nyt", *(["--data", str(Path(config.data).resolve())] if config.data else [])]


def grid_index(cells: np.ndarray) -> np.ndarray:
    """NytGrid.index: 1-based cell index, 0 outside the grid."""
    inside = (cells >= 0) & (cells < CELLS)
    return np.where(inside, np.floor(np.where(inside, cells, 0)).astype(np.int64) + 1, 0)


def trips(values: Iterable[bytes]) -> pd.DataFrame:
    """cell, fare, event_time of every trip the job's validate keeps (NytOperators.Validate, NytGrid)."""
    rows = []
    for value in values:
        c = value.decode().split(",")
        if len(c) != COLUMNS:
            continue
        try:
            rows.append([float(c[i]) for i in (PICKUP_LON, PICKUP_LAT, DISTANCE, FARE, TRIP_SECS, TOTAL)]
                        + [int(c[-1])])
        except ValueError:
            continue
    frame = pd.DataFrame(rows, columns=["lon", "lat", "distance", "fare", "secs", "total", "event_time"])
    x = grid_index(((frame["lon"] - (CELL1_LON - CELL_DEG_LON / 2)) / CELL_DEG_LON).to_numpy())
    y = grid_index((((CELL1_LAT + CELL_DEG_LAT / 2) - frame["lat"]) / CELL_DEG_LAT).to_numpy())
    valid = ((x != 0) & (y != 0) & (frame["distance"] > 0) & (frame["fare"] > 0) & (frame["secs"] > 0)
             & (frame["total"] >= frame["fare"])).to_numpy()
    cell = pd.Series(x.astype(str), index=frame.index) + "." + pd.Series(y.astype(str), index=frame.index)
    return frame.assign(cell=cell)[valid][["cell", "fare", "event_time"]]


def window_ends(event_times: np.ndarray, size_ms: int, slide_ms: int, offset_ms: int) -> np.ndarray:
    """Per event, the ends of the size/slide sliding windows that contain it (SlidingAggregateWindows; the slide
    divides the size): shape (events, size / slide)."""
    first = event_times - np.mod(event_times - offset_ms, slide_ms) + slide_ms
    return first[:, None] + slide_ms * np.arange(size_ms // slide_ms)[None, :]


def exact_results(values: Iterable[bytes], config: RunSpec, run_dir: Path, window_offset_ms: int) -> pd.DataFrame:
    """Per window and cell: the fare total (exact: trips × the window's average fare) and the trips (events)."""
    frame = trips(values)
    ends = window_ends(frame["event_time"].to_numpy(dtype=np.int64), config.window_ms, config.slide_ms,
                       window_offset_ms)
    copies = ends.shape[1]
    per_window = pd.DataFrame({"window_end": ends.ravel(), "key": np.repeat(frame["cell"].to_numpy(), copies),
                               "fare": np.repeat(frame["fare"].to_numpy(), copies)})
    return (per_window.groupby(["window_end", "key"]).agg(exact=("fare", "sum"), events=("fare", "size"))
            .reset_index())


def fare_total(results: pd.DataFrame) -> pd.Series:
    """The emitted fare total per cell: the weighted trips (unrounded) × the weighted average fare."""
    return results["weight"].astype(float) * accuracy.result_fields(results)[:, 0]


def average_fare_errors(results: pd.DataFrame, exact: pd.DataFrame) -> pd.DataFrame:
    """Per window, the relative error of its average fare per trip (the thesis' NYT query, a mean over the sliding
    window, and what the sampler's target holds for: NytJob.VALUE): emitted = Σ fare totals / Σ weighted trips
    over the window's cells, exact = Σ fares / trips."""
    emitted = results.assign(fare=fare_total(results) if not results.empty else 0.0,
                             trips=results["weight"].astype(float))
    emitted = emitted.groupby(accuracy.WINDOW).agg(fare=("fare", "sum"), trips=("trips", "sum"),
                                                   emitted_keys=("fare", "size"))
    exact = accuracy.exact_with_events(exact).groupby(accuracy.WINDOW).agg(
        exact_fare=("exact", "sum"), exact_events=("events", "sum"), exact_keys=("key", "size"))
    windows = exact.join(emitted, how="outer").fillna(0.0).reset_index()
    average, exact_average = (accuracy.divide(windows["fare"], windows["trips"]),
                              accuracy.divide(windows["exact_fare"], windows["exact_events"]))
    windows["relative_error"] = accuracy.divide(np.abs(average - exact_average), exact_average)
    return windows.astype({"exact_keys": int, "emitted_keys": int})[accuracy.WINDOW_ERROR_COLUMNS]


window_errors: accuracy.WindowErrors = average_fare_errors
