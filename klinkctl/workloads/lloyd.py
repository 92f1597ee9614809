"""The kMeans window's clustering (java-udfs io.klink.workloads.kmeans.Lloyd) redone in NumPy for exact results:
weighted Lloyd's algorithm from a greedy k-means++ start drawn with Java's SplittableRandom seeded by the window's end, so
that on the same points in the same order it gives the same centroids as the Java window."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

_MASK = (1 << 64) - 1
_GOLDEN_GAMMA = 0x9E3779B97F4A7C15


class SplittableRandom:
    """java.util.SplittableRandom(seed): nextDouble() draws the same sequence as the JDK's."""

    def __init__(self, seed: int) -> None:
        self._seed = seed & _MASK

    def next_long(self) -> int:
        self._seed = (self._seed + _GOLDEN_GAMMA) & _MASK
        z = self._seed
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def next_double(self) -> float:
        return (self.next_long() >> 11) * 2.0 ** -53


@dataclass(frozen=True)
class Clustering:
    centroids: np.ndarray  # (clusters, 2), sorted by x then y
    weights: np.ndarray  # the points' weight per cluster
    iterations: int


def cluster(points: np.ndarray, k: int, max_iterations: int, seed: int,
            weights: np.ndarray | None = None) -> Clustering:
    """Lloyd.cluster: at most `max_iterations` rounds, or until no point changes cluster; an empty cluster keeps
    its place."""
    n = len(points)
    ws = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    centroids = k_means_plus_plus(points, ws, min(k, n), SplittableRandom(seed))
    assignment = np.full(n, -1)
    cluster_weights = np.zeros(len(centroids))
    iterations, changed = 0, True
    while changed and iterations < max_iterations:
        iterations += 1
        nearest = np.argmin(squared_distances(points, centroids), axis=1)
        changed = bool((nearest != assignment).any())
        assignment = nearest
        centroids, cluster_weights = recentre(points, ws, centroids, assignment)
    order = np.lexsort((centroids[:, 1], centroids[:, 0]))
    return Clustering(centroids[order], cluster_weights[order], iterations)


def k_means_plus_plus(points: np.ndarray, ws: np.ndarray, k: int, random: SplittableRandom) -> np.ndarray:
    """Greedy k-means++ (Lloyd.kMeansPlusPlus): per next centre 2 + ⌊ln k⌋ candidates drawn with probability ∝
    weight · squared distance to the nearest centre so far; the one leaving the least weighted squared distance
    is kept (the first on ties)."""
    centres = [points[_pick(ws, ws, random)]]
    nearest = np.full(len(points), np.inf)
    trials = 2 + int(math.log(k)) if k > 0 else 0
    for _ in range(1, k):
        nearest = np.minimum(nearest, squared_distances(points, centres[-1][None, :])[:, 0])
        score = ws * nearest
        candidates = [_pick(score, ws, random) for _ in range(trials)]
        potentials = [float((ws * np.minimum(nearest, squared_distances(points, points[c][None, :])[:, 0])).sum())
                      for c in candidates]
        centres.append(points[candidates[int(np.argmin(potentials))]])
    return np.array(centres, dtype=float).reshape(k, 2)


def _pick(score: np.ndarray, ws: np.ndarray, random: SplittableRandom) -> int:
    """Index drawn with probability ∝ score (by weight if every score is 0): the first whose running sum passes
    a uniform draw times the total."""
    total = float(score.sum())
    by = score if total > 0 else ws
    target = random.next_double() * (total if total > 0 else float(ws.sum()))
    index = int(np.searchsorted(np.cumsum(by), target, side="right"))
    return min(index, len(by) - 1)


def squared_distances(points: np.ndarray, centres: np.ndarray) -> np.ndarray:
    dx = points[:, 0:1] - centres[None, :, 0]
    dy = points[:, 1:2] - centres[None, :, 1]
    return dx * dx + dy * dy


def recentre(points: np.ndarray, ws: np.ndarray, centroids: np.ndarray,
             assignment: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each centroid moves to the weighted mean of its points; returns the centroids and each one's weight."""
    k = len(centroids)
    weights = np.bincount(assignment, weights=ws, minlength=k)
    sums = np.stack([np.bincount(assignment, weights=ws * points[:, d], minlength=k) for d in (0, 1)], axis=1)
    moved = centroids.copy()
    filled = weights > 0
    moved[filled] = sums[filled] / weights[filled, None]
    return moved, weights
