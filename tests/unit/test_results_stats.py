"""Latency statistics against data whose answers are known."""

import math

import numpy as np
import pytest
from scipy import stats as sps

from klinkctl.results.stats import BATCH, bootstrap_ci, compare_samples, latency_summary, statistic_function


def test_summary_of_1_to_100_is_exact():
    summary = latency_summary(np.arange(1, 101))
    assert summary["count"] == 100
    assert summary["mean"] == 50.5
    assert summary["p50"] == pytest.approx(50.5)
    assert summary["p90"] == pytest.approx(90.1)
    assert summary["p95"] == pytest.approx(95.05)
    assert summary["p99"] == pytest.approx(99.01)
    assert summary["max"] == 100.0


def test_summary_of_nothing_is_count_zero_and_none():
    assert latency_summary(np.array([])) == {
        "count": 0, "mean": None, "p50": None, "p90": None, "p95": None, "p99": None, "max": None}


def test_summary_values_are_plain_python_numbers():
    summary = latency_summary([3.0, 1.0, 2.0])
    assert type(summary["count"]) is int and all(type(summary[k]) is float for k in ("mean", "p99", "max"))


def test_bootstrap_ci_of_a_large_normal_sample_contains_the_true_mean_and_is_narrow():
    sample = np.random.default_rng(42).normal(100.0, 10.0, 5000)
    low, high = bootstrap_ci(sample, "mean")
    assert low < 100.0 < high
    # Standard error is 10 / sqrt(5000) ≈ 0.14, so a 95 % interval is about 0.55 wide.
    assert 0.3 < high - low < 0.9


def test_bootstrap_ci_matches_scipy_called_directly_with_the_same_seed():
    sample = np.random.default_rng(7).gamma(2.0, 30.0, 400)
    for name, statistic in (("mean", np.mean), ("p99", lambda x, axis: np.percentile(x, 99, axis=axis))):
        expected = sps.bootstrap((sample,), statistic, n_resamples=2000, confidence_level=0.9,
                                 method="percentile", rng=np.random.default_rng(3)).confidence_interval
        assert bootstrap_ci(sample, name, confidence=0.9, seed=3) == pytest.approx((expected.low, expected.high))


def test_bootstrap_ci_is_reproducible_and_depends_on_the_seed():
    sample = np.random.default_rng(1).exponential(50.0, 300)
    assert bootstrap_ci(sample, seed=5) == bootstrap_ci(sample, seed=5)
    assert bootstrap_ci(sample, seed=5) != bootstrap_ci(sample, seed=6)


def test_bootstrap_ci_widens_with_the_confidence_level():
    sample = np.random.default_rng(2).normal(10.0, 2.0, 500)
    low90, high90 = bootstrap_ci(sample, confidence=0.90)
    low99, high99 = bootstrap_ci(sample, confidence=0.99)
    assert low99 < low90 and high90 < high99


@pytest.mark.parametrize("values", [[], [12.5]])
def test_bootstrap_ci_of_fewer_than_two_values_is_nan(values):
    low, high = bootstrap_ci(values)
    assert math.isnan(low) and math.isnan(high)


def test_bootstrap_ci_of_a_constant_sample_is_a_point():
    assert bootstrap_ci([5.0] * 10, "p99") == (5.0, 5.0)


def test_statistic_names():
    data = np.arange(1, 101, dtype=float)
    assert statistic_function("median")(data) == pytest.approx(50.5)
    assert statistic_function("p99.9")(data) == pytest.approx(np.percentile(data, 99.9))
    with pytest.raises(ValueError, match="unknown statistic"):
        statistic_function("p101")
    with pytest.raises(ValueError, match="unknown statistic"):
        bootstrap_ci([1.0, 2.0], "average")


def test_samples_from_the_same_distribution_are_not_significantly_different():
    rng = np.random.default_rng(11)
    result = compare_samples(rng.normal(100.0, 10.0, 2000), rng.normal(100.0, 10.0, 2000))
    assert result["ratio_mean"] == pytest.approx(1.0, abs=0.02)
    assert result["ratio_ci_low"] < 1.0 < result["ratio_ci_high"]
    assert result["significant"] is False
    assert result["mannwhitney_p"] > 0.05


def test_doubling_a_sample_doubles_the_ratio_and_is_significant():
    sample = np.random.default_rng(12).gamma(3.0, 20.0, 500)
    result = compare_samples(sample, sample * 2)
    assert result["ratio_mean"] == pytest.approx(2.0)
    assert 1.0 < result["ratio_ci_low"] < 2.0 < result["ratio_ci_high"]
    assert result["significant"] is True
    assert result["mannwhitney_p"] < 1e-6


def test_a_smaller_b_is_significant_too():
    sample = np.random.default_rng(13).gamma(3.0, 20.0, 500)
    result = compare_samples(sample, sample / 2)
    assert result["ratio_ci_high"] < 1.0 and result["significant"] is True


def test_ratio_ci_matches_scipy_two_sample_bootstrap_with_the_same_seed():
    # Two samples are drawn batch by batch, so the batch size is part of the random stream.
    rng = np.random.default_rng(14)
    a, b = rng.gamma(3.0, 20.0, 300), rng.gamma(3.0, 22.0, 200)
    expected = sps.bootstrap((a, b), lambda x, y, axis: np.mean(y, axis=axis) / np.mean(x, axis=axis),
                             paired=False, n_resamples=2000, method="percentile", batch=BATCH,
                             rng=np.random.default_rng(9)).confidence_interval
    result = compare_samples(a, b, seed=9)
    assert (result["ratio_ci_low"], result["ratio_ci_high"]) == pytest.approx((expected.low, expected.high))
    assert result["mannwhitney_p"] == pytest.approx(sps.mannwhitneyu(a, b).pvalue)


def test_undefined_comparisons_give_nan_and_no_verdict():
    tiny = compare_samples([10.0], [20.0, 30.0])
    assert tiny["ratio_mean"] == 2.5 and math.isnan(tiny["ratio_ci_low"]) and tiny["significant"] is None
    empty = compare_samples([], [1.0, 2.0])
    assert math.isnan(empty["ratio_mean"]) and math.isnan(empty["mannwhitney_p"]) and empty["significant"] is None
    zero_mean = compare_samples([0.0, 0.0, 0.0], [1.0, 2.0, 3.0])
    assert math.isnan(zero_mean["ratio_mean"]) and zero_mean["significant"] is None


def test_latency_trend_is_the_growth_over_the_span_relative_to_the_mean():
    from klinkctl.results.stats import latency_trend
    ends = np.arange(0, 11_000, 1000)  # 11 windows over 10 s
    trend = latency_trend(ends, 1000 + 0.03 * ends)  # +30 ms/s
    assert trend["slope_ms_per_s"] == pytest.approx(30) and trend["span_s"] == 10
    assert trend["growth_fraction"] == pytest.approx(300 / 1150)
    assert latency_trend(ends, np.full(11, 500.0))["growth_fraction"] == 0
    assert latency_trend([5000, 5000], [1.0, 2.0]) is None
