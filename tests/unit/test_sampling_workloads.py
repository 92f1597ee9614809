"""Exact window results and errors of NYT (fare totals per cell, the average fare per sliding window) and kMeans (centroids), on tiny
hand-made event sets, and the kMeans clustering against the Java window's."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from klinkctl.results.accuracy import error_table
from klinkctl.run.config import RunSpec
from klinkctl.workloads import kmeans, lloyd, nyt


def trip(lon: float, lat: float, fare: float, event_time: int, total: float | None = None) -> bytes:
    """A DEBS 2015 row: 2 mi in 600 s, the pick-up at lon/lat, + the event time."""
    total = fare + 1 if total is None else total
    columns = ["m", "h", "2013-01-01 00:00:00", "2013-01-01 00:10:00", "600", "2.0", lon, lat, -73.9, 40.7, "CRD",
               fare, 0.5, 0.5, 0, 0, total, event_time]
    return ",".join(str(c) for c in columns).encode()


# (-73.98, 40.75) is in DEBS cell 157.162: x = (−73.98 + 74.913585 + 0.002993) / 0.005986 = 156.46 -> 157,
# y = (41.474937 + 0.002245778 − 40.75) / 0.004491556 = 161.90 -> 162; (-73.95, 40.70): x 161.47 -> 162,
# y 173.03 -> 174.
A, B = (-73.98, 40.75), (-73.95, 40.70)


def test_exact_nyt_results_are_the_fare_totals_per_cell_of_every_sliding_window():
    events = [trip(*A, 10, 500), trip(*A, 20, 1500), trip(*B, 5, 1200),
              trip(0, 0, 7, 600),  # no coordinates: outside the grid
              trip(*A, 9, 700, total=8),  # total below the fare
              b"not,a,trip"]
    # 2 s windows sliding by 1 s, offset 0: t=500 in the windows ending 1000, 2000; t=1200, 1500 in 2000, 3000.
    exact = nyt.exact_results(events, RunSpec(workload="nyt", window_ms=2000, slide_ms=1000), None, 0)
    assert exact.to_dict("records") == [
        {"window_end": 1000, "key": "157.162", "exact": 10.0, "events": 1},
        {"window_end": 2000, "key": "157.162", "exact": 30.0, "events": 2},
        {"window_end": 2000, "key": "162.174", "exact": 5.0, "events": 1},
        {"window_end": 3000, "key": "157.162", "exact": 20.0, "events": 1},
        {"window_end": 3000, "key": "162.174", "exact": 5.0, "events": 1}]


def test_nyt_window_ends_of_an_offset_sliding_window():
    ends = nyt.window_ends(np.array([250, 1249, 1250]), 3000, 1000, 250)
    assert ends.tolist() == [[1250, 2250, 3250], [1250, 2250, 3250], [2250, 3250, 4250]]


def fired(*windows):
    return pd.DataFrame([{"run": "r", "policy": "p", "query": "q00", "window_end": end, "events": events,
                          "warmup": False} for end, events in windows])


def test_a_nyt_windows_error_is_that_of_its_average_fare_per_trip():
    exact = pd.DataFrame({"query": "q00", "window_end": [2000, 2000], "key": ["A", "B"], "exact": [30.0, 5.0],
                          "events": [2, 1]})
    # Exact: 35 / 3 trips. Emitted: A's 2.5 weighted trips at an average 14 = 35, B missing: 35 / 2.5 = 14.
    results = pd.DataFrame({"query": ["q00"], "window_end": [2000], "key": ["A"], "value": [3], "weight": [2.5],
                            "fields": [json.dumps([14.0, 2.0, 12.0])]})
    row = error_table(fired((2000, 2)), results, exact, "aion", 0.05, nyt.window_errors).iloc[0]
    assert row["relative_error"] == pytest.approx(abs(14 - 35 / 3) / (35 / 3))
    assert row["sampling_rate"] == pytest.approx(2 / 3)
    assert (row["exact_keys"], row["emitted_keys"]) == (2, 1)


def test_a_nyt_window_passed_whole_has_no_error_and_one_with_no_result_has_all_of_it():
    exact = pd.DataFrame({"query": "q00", "window_end": [2000, 2000, 3000], "key": ["A", "B", "A"],
                          "exact": [30.0, 5.0, 20.0], "events": [2, 1, 1]})
    results = pd.DataFrame({"query": "q00", "window_end": [2000, 2000], "key": ["A", "B"], "value": [2, 1],
                            "weight": [2.0, 1.0], "fields": [json.dumps([15.0, 2.0, 12.0]), json.dumps([5.0, 2.0, 12.0])]})
    errors = error_table(fired((2000, 3), (3000, 0)), results, exact, "kslack", 0.05, nyt.window_errors)
    assert errors["relative_error"].tolist() == pytest.approx([0.0, 1.0])


def point(x: float, y: float, t: int) -> bytes:
    return f"{x},{y},{t}".encode()


def test_exact_kmeans_results_cluster_each_windows_points():
    square = [(0, 0), (2, 0), (0, 2), (2, 2)]
    events = ([point(x, y, 100 + i) for i, (x, y) in enumerate(square)]
              + [point(x + 10, y + 10, 200 + i) for i, (x, y) in enumerate(square)]
              + [point(500, 0, 300),  # an outlier outside the plane
                 point(5, 5, 3100)])  # the next window
    exact = kmeans.exact_results(events, RunSpec(workload="kmeans", window_ms=3000, k=2), None, 0)
    first = exact[exact["window_end"] == 3000]
    assert first[["key", "x", "y", "exact", "events"]].to_dict("records") == [
        {"key": "c0", "x": 1.0, "y": 1.0, "exact": 4.0, "events": 4.0},
        {"key": "c1", "x": 11.0, "y": 11.0, "exact": 4.0, "events": 4.0}]
    # spread: var x = var y = 26 (x = 0, 2 and 10, 12 about 6: (36 + 16 + 16 + 36) / 4) -> sqrt(52)
    assert first["spread"].tolist() == pytest.approx([math.sqrt(52)] * 2)
    assert exact[exact["window_end"] == 6000][["key", "x", "y", "exact"]].to_dict("records") == [
        {"key": "c0", "x": 5.0, "y": 5.0, "exact": 1.0}]  # one point: one cluster


def test_a_kmeans_windows_error_is_the_mean_matched_centroid_distance_relative_to_the_spread():
    exact = pd.DataFrame({"query": "q00", "window_end": 3000, "key": ["c0", "c1"], "exact": [4.0, 4.0],
                          "events": [4.0, 4.0], "x": [0.0, 10.0], "y": [0.0, 0.0], "spread": [5.0, 5.0]})
    # emitted in the other order, one 1 away: matched distances 1 and 0 -> 0.5 / spread 5 = 0.1
    results = pd.DataFrame({"query": "q00", "window_end": 3000, "key": ["c0", "c1"], "value": [4, 3],
                            "weight": [4.0, 3.0], "fields": [json.dumps([10.0, 0.0]), json.dumps([1.0, 0.0])]})
    row = error_table(fired((3000, 6)), results, exact, "aion", 0.05, kmeans.window_errors).iloc[0]
    assert row["relative_error"] == pytest.approx(0.1)
    assert row["sampling_rate"] == pytest.approx(6 / 8)
    assert not row["within_target"]


def test_java_splittable_random_draws():  # java.util.SplittableRandom(1700000003000).nextDouble() × 3 (JDK 17)
    random = lloyd.SplittableRandom(1_700_000_003_000)
    assert [random.next_double() for _ in range(3)] == [0.08869553029287813, 0.7532683853562202, 0.131844947219093]


def test_clustering_equals_the_java_windows():
    """io.klink.workloads.kmeans.Lloyd.cluster on the same 200 points (printed by the Java class, JDK 17)."""
    i = np.arange(200)
    c = i % 3
    points = np.stack([c * 20 + np.sin(i * 1.3) * 4, np.where(c == 1, 15, 0) + np.cos(i * 0.7) * 4], axis=1)
    three = lloyd.cluster(points, 3, 20, 12345)
    np.testing.assert_allclose(three.centroids, [[-0.006502940079573976, 0.0638729487579516],
                                                      [20.057546859234588, 15.041153914586598],
                                                      [39.99644691373532, 0.011054306600454067]], rtol=0, atol=1e-12)
    assert three.weights.tolist() == [67, 67, 66] and three.iterations == 2
    five = lloyd.cluster(points, 5, 20, 987654321)
    np.testing.assert_allclose(five.centroids, [[-0.006502940079573976, 0.0638729487579516],
                                                [19.96879213445988, 11.076764425591806],
                                                [20.10093805801332, 16.979299886984045],
                                                [39.14962701957308, 2.4646797244068095],
                                                [40.74648739142182, -2.162156777742317]], rtol=0, atol=1e-12)
    assert five.weights.tolist() == [67, 22, 45, 31, 35]
