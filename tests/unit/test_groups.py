"""Statistics across repetitions (klinkctl.results.groups): grouping, t intervals, the ratio CI, verdicts."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings, strategies as st
from scipy import stats as sps

from klinkctl.results import groups
from klinkctl.results.groups import (add_ratios, describe_groups, group_labels, invalid_line, ratio_interval,
                                     sample_size_notes, significance)
from klinkctl.results.stats import t_interval
from klinkctl.results.validity import Validity

LATENCIES = st.lists(st.floats(min_value=10.0, max_value=10_000.0), min_size=2, max_size=8)
SCALE = st.floats(min_value=0.1, max_value=10.0)


@given(LATENCIES, LATENCIES, SCALE)
@settings(max_examples=60)
def test_scaling_a_group_scales_its_ratio_and_ci(reference, other, factor):
    ratio, low, high = ratio_interval(reference, other)
    assume(math.isfinite(low))
    scaled = ratio_interval(reference, [value * factor for value in other])
    assert scaled == pytest.approx((ratio * factor, low * factor, high * factor), rel=1e-6)


@given(LATENCIES, LATENCIES)
@settings(max_examples=60)
def test_swapping_the_groups_inverts_the_ratio_and_its_ci(reference, other):
    ratio, low, high = ratio_interval(reference, other)
    assume(math.isfinite(low))
    assert ratio_interval(other, reference) == pytest.approx((1 / ratio, 1 / high, 1 / low), rel=1e-6)
    assert low <= ratio <= high


@given(LATENCIES)
@settings(max_examples=60)
def test_identical_groups_have_ratio_one_inside_their_ci(values):
    ratio, low, high = ratio_interval(values, list(values))
    assert ratio == pytest.approx(1.0)
    assert math.isnan(low) or low <= 1.0 <= high


def test_the_ratio_ci_is_welchs_interval_on_log_latency():
    reference, other = [100.0, 110.0, 95.0, 105.0], [150.0, 170.0, 160.0]
    expected = sps.ttest_ind(np.log(other), np.log(reference), equal_var=False).confidence_interval(0.9)
    ratio, low, high = ratio_interval(reference, other, 0.9)
    assert ratio == pytest.approx(sps.gmean(other) / sps.gmean(reference))
    assert (low, high) == pytest.approx((math.exp(expected.low), math.exp(expected.high)))


def test_clearly_separated_groups_of_five_are_significant():
    rng = np.random.default_rng(1)
    reference, other = 1000 * (1 + 0.1 * rng.standard_normal(5)), 1500 * (1 + 0.1 * rng.standard_normal(5))
    _, low, high = ratio_interval(reference, other)
    assert significance(5, 5, low, high) is True


def test_one_run_a_side_has_a_ratio_but_no_interval_and_no_verdict():
    ratio, low, high = ratio_interval([100.0], [300.0])
    assert ratio == pytest.approx(3.0) and math.isnan(low) and math.isnan(high)
    assert significance(1, 5, 0.5, 0.9) is None and significance(5, 1, 0.5, 0.9) is None


def test_no_ratio_without_runs_or_with_a_non_positive_latency():
    assert all(math.isnan(value) for value in ratio_interval([], [1.0, 2.0]))
    assert all(math.isnan(value) for value in ratio_interval([0.0, 1.0], [1.0, 2.0]))


def frame(rows):
    """Per-run rows: (run, policy, seed, mean, valid)."""
    return pd.DataFrame([groups.run_row(run, {"policy": policy, "seed": seed},
                                        Validity(valid, [] if valid else ["censored windows"]),
                                        np.full(10, mean) + np.arange(10))
                         for run, policy, seed, mean, valid in rows])


RUNS = frame([("a1", "default", 1, 100, True), ("b1", "klink", 1, 200, True), ("a2", "default", 2, 110, True),
              ("b2", "klink", 2, 210, True), ("a3", "default", 3, 900, False)])


def test_groups_keep_the_order_of_first_appearance_and_leave_invalid_runs_out():
    table = describe_groups(RUNS, ["policy"])
    assert table["policy"].tolist() == ["default", "klink"]
    assert table["n"].tolist() == [2, 2] and table["n_invalid"].tolist() == [1, 0]
    assert table.loc[0, "mean_ms"] == pytest.approx(np.mean([104.5, 114.5]))
    assert (table.loc[0, "mean_ci_low"], table.loc[0, "mean_ci_high"]) == pytest.approx(t_interval([104.5, 114.5]))
    assert table.loc[0, "runs"] == "a1 a2"
    included = describe_groups(RUNS, ["policy"], include_invalid=True)
    assert included["n"].tolist() == [3, 2] and included.loc[0, "runs"] == "a1 a2 a3"


def test_ratios_go_to_the_given_reference_row():
    table = add_ratios(describe_groups(RUNS, ["policy"]), [0, 0])
    assert table["verdict"].tolist() == ["reference", "significant"]
    assert table.loc[1, "ratio"] == pytest.approx(np.sqrt(204.5 * 214.5) / np.sqrt(104.5 * 114.5))
    assert add_ratios(describe_groups(RUNS, ["policy"]), [None, None])["verdict"].tolist() == ["no verdict"] * 2


def test_labels_are_policy_labels_made_distinct_by_the_settings_that_differ():
    table = describe_groups(RUNS, ["policy", "seed"])
    labels = group_labels(table, ["policy", "seed"], by_configuration=True)
    assert labels == ["default seed=1", "klink seed=1", "default seed=2", "klink seed=2", "default seed=3"]
    assert group_labels(describe_groups(RUNS, ["policy"]), ["policy"], by_configuration=False) == \
        ["policy=default", "policy=klink"]


def test_the_invalid_line_counts_runs_and_reasons():
    assert invalid_line(RUNS, False) == ("left out 1 invalid run (1 censored windows); --include-invalid to "
                                         "include them")
    assert invalid_line(RUNS, True).startswith("included 1 invalid run")
    assert invalid_line(RUNS[RUNS["valid"]], False) is None


def test_sample_size_notes():
    table = pd.DataFrame({"label": ["a", "b", "c"], "n": [1, 3, 5]})
    assert sample_size_notes(table) == ["a: 1 run: no verdict; run ≥ 5 repetitions",
                                        "fewer than 5 runs in b: intervals are wide; the bar for a figure is ≥ 5 "
                                        "interleaved repetitions per side"]


def test_settings_fill_defaults_and_flatten_nested_values():
    values = groups.settings({"policy": "klink", "extra": {"b": 1, "a": 2}})
    assert values["cores"] is None and values["seed"] == 42 and values["extra"] == '{"a": 2, "b": 1}'
    assert groups.settings({}) == {}


def paired_frame(pairs):
    """Per repetition (reference mean, other mean): a default and a klink run each, repetition known."""
    rows = []
    for rep, (reference, other) in enumerate(pairs):
        for policy, mean in (("default", reference), ("klink", other)):
            rows.append(groups.run_row(f"{policy}{rep}", {"policy": policy, "seed": 42}, Validity(True, []),
                                       np.full(4, float(mean)), repetition=rep))
    return pd.DataFrame(rows)


def test_pairing_by_repetition_takes_a_drift_common_to_both_sides_out():
    # the machine gets 4x faster during the sweep; within every repetition klink is 0.8x default
    drift = [4000, 2000, 1000, 700, 500]
    table = add_ratios(describe_groups(paired_frame([(d, 0.8 * d * f) for d, f in zip(drift, (1.02, .98, 1.01, .99,
                                                                                            1.0))]),
                                       ["policy"]), [0, 0])
    klink = table.loc[1]
    assert klink["pairs"] == 5 and klink["paired_ratio"] == pytest.approx(0.8, rel=0.01)
    assert 0.75 < klink["paired_ratio_ci_low"] < 0.8 < klink["paired_ratio_ci_high"] < 0.85
    assert klink["ratio_ci_low"] < 0.5 and klink["ratio_ci_high"] > 1.2  # unpaired: the drift swamps it
    assert klink["verdict"] == "not significant"  # the verdict stays on the conservative Welch interval
    assert table.loc[0, "pairs"] == 0 and math.isnan(table.loc[0, "paired_ratio"])


def test_runs_without_windows_pair_their_record_p99_by_repetition():
    rows = [groups.run_row(f"{tail}{rep}", {"policy": "default", "tail": tail}, Validity(True, []), np.array([]),
                           repetition=rep, record_latency={"p99_ms": p99, "mean_ms": 1.0})
            for rep, base in enumerate([500.0, 100.0, 120.0])
            for tail, p99 in (("none", base), ("adaptive", base / 2))]
    table = add_ratios(describe_groups(pd.DataFrame(rows), ["tail"]), [0, 0])
    adaptive = table.loc[1]
    assert adaptive["pairs"] == 3 and adaptive["paired_ratio"] == pytest.approx(0.5)


def test_pairs_need_both_sides_in_one_repetition():
    assert groups.paired_ratio_interval({1: 100.0, 2: 200.0}, {2: 100.0, 3: 50.0})[3] == 1
    ratio, low, high, pairs = groups.paired_ratio_interval({1: 100.0, 2: 200.0}, {2: 100.0, 3: 50.0})
    assert ratio == pytest.approx(0.5) and math.isnan(low) and math.isnan(high)  # one pair: no interval
    assert groups.paired_ratio_interval({}, {1: 5.0})[3] == 0
    assert all(math.isnan(v) for v in groups.paired_ratio_interval({1: 0.0}, {1: 5.0})[:3])


@given(st.lists(st.tuples(st.floats(10, 1e4), st.floats(10, 1e4)), min_size=2, max_size=8), SCALE)
def test_a_paired_ratio_scales_with_the_other_side(pairs, scale):
    assume(np.ptp([math.log(b / a) for a, b in pairs]) > 1e-9)  # a spread rounding cannot erase
    reference = {rep: a for rep, (a, _) in enumerate(pairs)}
    other = {rep: b for rep, (_, b) in enumerate(pairs)}
    scaled = {rep: b * scale for rep, b in other.items()}
    base, moved = groups.paired_ratio_interval(reference, other), groups.paired_ratio_interval(reference, scaled)
    assert moved[0] == pytest.approx(base[0] * scale, rel=1e-9)
    if math.isfinite(base[1]):
        assert moved[1] == pytest.approx(base[1] * scale, rel=1e-6)
