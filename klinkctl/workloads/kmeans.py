"""kMeans: 2-D points of drifting clusters, a windowed k-means per query (the expensive window operator)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment

from klinkctl import catalog
from klinkctl.results import accuracy
from klinkctl.run.config import RunSpec
from klinkctl.workloads import common, lloyd

JAVA_BUILDER = "io.klink.workloads.kmeans.KmeansJob"
event_time = common.last_column_event_time  # x,y,event_time
#: KmeansJob.PLANE: points outside [-PLANE, PLANE]² are outliers, dropped by the job's filter.
PLANE = catalog.kmeans_plane()


def write_job_config(plan_: common.Plan, config: RunSpec, bootstrap: str, run_dir: Path) -> Path:
    return common.write_job_config(run_dir, common.job_config(plan_, config, bootstrap, JAVA_BUILDER, k=config.k,
                                                              iterations=config.kmeans_iterations))


def generator_args(config: RunSpec) -> list[str]:
    return ["--workload", "kmeans"]


def points(values: Iterable[bytes]) -> pd.DataFrame:
    """x, y, event_time of every well-formed point inside the plane, in topic order (the window's input order)."""
    rows = []
    for value in values:
        columns = value.split(b",")
        try:
            if len(columns) == 3:
                rows.append((float(columns[0]), float(columns[1]), int(columns[2])))
        except ValueError:
            continue
    frame = pd.DataFrame(rows, columns=["x", "y", "event_time"])
    return frame[(frame["x"].abs() <= PLANE) & (frame["y"].abs() <= PLANE)]


def exact_results(values: Iterable[bytes], config: RunSpec, run_dir: Path, window_offset_ms: int) -> pd.DataFrame:
    """Each window's k-means on all of its points, as the Java window clusters them (same order, the k-means++
    start seeded by the window's end): per centroid (key c0.., sorted by x then y) its points (exact, events),
    x, y, and the spread of the window's points sqrt(var x + var y)."""
    frame = points(values)
    times = frame["event_time"].to_numpy(dtype=np.int64)
    frame = frame.assign(window_end=times - np.mod(times - window_offset_ms, config.window_ms) + config.window_ms)
    rows = []
    for end, window in frame.groupby("window_end", sort=True):
        xy = window[["x", "y"]].to_numpy(dtype=float)
        clustering = lloyd.cluster(xy, config.k, config.kmeans_iterations, int(end))
        spread = float(np.sqrt(xy[:, 0].var() + xy[:, 1].var()))
        for c, (centroid, weight) in enumerate(zip(clustering.centroids, clustering.weights)):
            rows.append({"window_end": int(end), "key": f"c{c}", "exact": weight, "events": weight,
                         "x": centroid[0], "y": centroid[1], "spread": spread})
    return pd.DataFrame(rows, columns=["window_end", "key", "exact", "events", "x", "y", "spread"])


def matched_distance(emitted: np.ndarray, exact: np.ndarray) -> float:
    """Mean distance between emitted and exact centroids matched one to one at the least total distance (the
    larger set's unmatched centroids are left out)."""
    distances = np.sqrt(lloyd.squared_distances(emitted, exact))
    rows, columns = linear_sum_assignment(distances)
    return float(distances[rows, columns].mean())


def centroid_errors(results: pd.DataFrame, exact: pd.DataFrame) -> pd.DataFrame:
    """Per window: mean matched centroid distance / spread of the window's points (inf if only one side has
    centroids, 0 if the spread is 0 and the centroids agree)."""
    emitted = results.assign(x=0.0, y=0.0) if results.empty else results.assign(
        **dict(zip(("x", "y"), accuracy.result_fields(results)[:, :2].T)))
    by_window = {key: group for key, group in emitted.groupby(accuracy.WINDOW)}
    rows = []
    for (query, end), truth in exact.groupby(accuracy.WINDOW):
        mine = by_window.get((query, end), emitted.iloc[0:0])
        distance = (matched_distance(mine[["x", "y"]].to_numpy(float), truth[["x", "y"]].to_numpy(float))
                    if len(mine) else np.inf)
        rows.append({"query": query, "window_end": end, "exact_events": float(truth["events"].sum()),
                     "exact_keys": len(truth), "emitted_keys": len(mine),
                     "relative_error": float(accuracy.divide(np.array([distance]),
                                                             np.array([truth["spread"].iloc[0]]))[0])})
    return pd.DataFrame(rows, columns=accuracy.WINDOW_ERROR_COLUMNS)


window_errors: accuracy.WindowErrors = centroid_errors
