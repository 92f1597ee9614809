"""Latency statistics: pure functions on NumPy arrays, no I/O.

Definitions used throughout:

* percentiles are ``numpy.percentile`` with its default ``linear`` method, so ``pq`` of
  ``1..100`` is ``1 + (100 - 1) * q / 100`` (p50 = 50.5, p99 = 99.01);
* confidence intervals are SciPy bootstrap intervals (``scipy.stats.bootstrap``) with the
  *percentile* method: the interval between the (1−c)/2 and (1+c)/2 quantiles of the
  statistic over ``n_resamples`` resamples drawn with replacement;
* the ratio of two runs is ``mean(b) / mean(a)`` with a bootstrap CI over their windows: a *within-run*
  interval (windows taken as independent, run-to-run spread ignored), so `compare` draws no verdict from
  it; verdicts come from intervals across runs (``klinkctl.results.groups``);
* across repetitions of one configuration (one number per run, e.g. each run's mean latency) the
  CI is the Student t interval ``mean ± t((1+c)/2, n−1) · s/√n`` (``t_interval``).
"""

from __future__ import annotations

import math
import re
import warnings
from contextlib import contextmanager
from typing import Callable

import numpy as np
from scipy import stats as sps

SUMMARY_KEYS = ("count", "mean", "p50", "p90", "p95", "p99", "max")
PERCENTILES = {"p50": 50.0, "p90": 90.0, "p95": 95.0, "p99": 99.0}

# Why "percentile" and not SciPy's default "BCa": BCa needs a jackknife over every sample
# (n evaluations of the statistic on n−1 values, i.e. O(n²) work and memory for runs with many
# thousand windows) and degenerates to NaN with warnings for tail quantiles (p99) of latency
# data with many ties. With the sample sizes of a run (hundreds of windows and more) the
# percentile interval is adequate, it is always defined, and it is cheap.
CI_METHOD = "percentile"
# Resamples are evaluated in batches so that memory stays bounded (BATCH × n values). The batch
# size is part of the random stream of a two-sample bootstrap: same seed + same BATCH = same CI.
BATCH = 200

Statistic = Callable[..., np.ndarray]


@contextmanager
def quiet():
    """Degenerate samples (all equal, zero means) make NumPy/SciPy warn; the result (nan or a
    zero-width interval) already says so, so the warnings are not shown to the user."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def _finite(value: float) -> float:
    """``value`` as a float, with ±inf (a zero mean in a ratio) turned into nan: undefined."""
    return float(value) if math.isfinite(value) else math.nan


def _as_array(values) -> np.ndarray:
    return np.asarray(values, dtype=float).ravel()


def latency_summary(values) -> dict[str, float | int | None]:
    """count, mean, p50, p90, p95, p99 and max of ``values``; an empty sample gives
    count 0 and None for every other key."""
    data = _as_array(values)
    if data.size == 0:
        return {"count": 0, **{key: None for key in SUMMARY_KEYS[1:]}}
    summary: dict[str, float | int | None] = {"count": int(data.size), "mean": float(np.mean(data))}
    for name, q in PERCENTILES.items():
        summary[name] = float(np.percentile(data, q))
    summary["max"] = float(np.max(data))
    return summary


def statistic_function(name: str) -> Statistic:
    """The vectorised statistic called ``name``: ``mean``, ``median`` or ``pNN`` (e.g. ``p99``,
    ``p99.9``), as ``f(x, axis)``. Unknown names raise ValueError."""
    if name == "mean":
        return lambda x, axis=-1: np.mean(x, axis=axis)
    if name == "median":
        name = "p50"
    match = re.fullmatch(r"p(\d+(?:\.\d+)?)", name)
    if match and 0 <= float(match.group(1)) <= 100:
        q = float(match.group(1))
        return lambda x, axis=-1: np.percentile(x, q, axis=axis)
    raise ValueError(f"unknown statistic {name!r}: use mean, median or pNN (e.g. p99)")


def bootstrap_ci(values, statistic: str = "mean", confidence: float = 0.95, seed: int = 0,
                 n_resamples: int = 2000) -> tuple[float, float]:
    """Percentile-bootstrap confidence interval ``(low, high)`` of ``statistic`` over ``values``
    at level ``confidence``, reproducible for a given ``seed``. Fewer than 2 values: (nan, nan)."""
    data = _as_array(values)
    function = statistic_function(statistic)
    if data.size < 2:
        return (math.nan, math.nan)
    with quiet():
        result = sps.bootstrap((data,), function, n_resamples=n_resamples, batch=BATCH,
                               vectorized=True, confidence_level=confidence, method=CI_METHOD,
                               rng=np.random.default_rng(seed))
    return (float(result.confidence_interval.low), float(result.confidence_interval.high))


def _ratio_of_means(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.mean(b, axis=axis) / np.mean(a, axis=axis)


def compare_samples(a, b, confidence: float = 0.95, seed: int = 0,
                    n_resamples: int = 2000) -> dict[str, float | bool | None]:
    """Compare sample ``b`` with the reference ``a``.

    Returns ``ratio_mean`` = mean(b) / mean(a); ``ratio_ci_low``/``ratio_ci_high``, a two-sample
    percentile-bootstrap CI of that ratio (each sample resampled independently, ``paired=False``);
    ``significant`` = the CI excludes 1.0; and ``mannwhitney_p``, the two-sided Mann-Whitney U
    p-value, as a distribution-free second opinion. Undefined values (an empty sample, fewer than
    2 values for the CI, a zero mean in the ratio) are nan, and ``significant`` is then None.
    """
    x, y = _as_array(a), _as_array(b)
    ratio = low = high = p_value = math.nan
    with quiet():
        if x.size and y.size:
            ratio = _finite(_ratio_of_means(x, y))
            p_value = float(sps.mannwhitneyu(x, y, alternative="two-sided").pvalue)
        if x.size >= 2 and y.size >= 2:
            result = sps.bootstrap((x, y), _ratio_of_means, n_resamples=n_resamples, batch=BATCH,
                                   vectorized=True, paired=False, confidence_level=confidence,
                                   method=CI_METHOD, rng=np.random.default_rng(seed))
            ci = result.confidence_interval
            low, high = _finite(ci.low), _finite(ci.high)
    defined = math.isfinite(low) and math.isfinite(high)
    significant = bool(low > 1.0 or high < 1.0) if defined else None
    return {"ratio_mean": ratio, "ratio_ci_low": low, "ratio_ci_high": high,
            "significant": significant, "mannwhitney_p": p_value}


def t_interval(values, confidence: float = 0.95) -> tuple[float, float]:
    """Student t confidence interval ``(low, high)`` of the mean of ``values`` at level ``confidence``
    (``scipy.stats.t.interval`` with n−1 degrees of freedom around the mean, scale = standard error):
    the interval over independent repetitions. Fewer than 2 values: (nan, nan); all equal: (mean, mean)."""
    data = _as_array(values)
    if data.size < 2:
        return (math.nan, math.nan)
    mean, sem = float(np.mean(data)), float(sps.sem(data))
    if sem == 0:
        return (mean, mean)
    low, high = sps.t.interval(confidence, data.size - 1, loc=mean, scale=sem)
    return (float(low), float(high))


def proportion_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval ``(low, high)`` of a fraction observed as ``successes`` of ``trials``
    (``scipy.stats.binomtest(...).proportion_ci(method="wilson")``): it stays inside [0, 1] and is not zero-width at
    0 or all of ``trials``, unlike the normal approximation. No trials: (nan, nan)."""
    if trials <= 0:
        return (math.nan, math.nan)
    interval = sps.binomtest(int(successes), int(trials)).proportion_ci(confidence_level=confidence, method="wilson")
    return (float(interval.low), float(interval.high))


def latency_trend(window_end_ms, latency_ms, confidence: float = 0.95) -> dict[str, float] | None:
    """Theil-Sen slope (``scipy.stats.theilslopes``) of latency over window end time: ``slope_ms_per_s`` with
    its CI at ``confidence``, ``span_s``, ``mean_ms`` and ``growth_fraction`` = slope × span / mean, how much the
    latency grew over the span relative to its mean. None with fewer than 2 distinct window ends."""
    seconds = (_as_array(window_end_ms) - np.min(window_end_ms, initial=0)) / 1000 if len(window_end_ms) else None
    latency = _as_array(latency_ms)
    if seconds is None or np.ptp(seconds) == 0:
        return None
    slope, _, low, high = sps.theilslopes(latency, seconds, alpha=confidence)
    mean, span_s = float(latency.mean()), float(np.ptp(seconds))
    return {"slope_ms_per_s": float(slope), "slope_ci_ms_per_s": [float(low), float(high)], "span_s": span_s,
            "mean_ms": mean, "growth_fraction": float(slope * span_s / mean) if mean > 0 else 0.0}
