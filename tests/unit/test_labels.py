"""Policy labels from a run's resolved bench settings."""

import itertools

from hypothesis import given, strategies as st

from klinkctl.results.labels import DEFAULTS, policy_label


def test_the_paper_names_of_non_default_settings():
    bench = {"policy": "klink", "enforce": "priority", "cores": 2, "confidence": 0.9, "cycle_ms": 120}
    assert policy_label(bench) == "klink[priority,C=2,f=0.9]"
    assert policy_label({"policy": "rr", "cores": 2}) == "rr[C=2]"
    assert policy_label({"policy": "klink", "cycle_ms": 200, "history": 800, "memory_bound": 0.5,
                         "strict_slack": True}) == "klink[r=200,h=800,b=0.5,strict]"


def test_default_settings_and_plain_flink_have_no_brackets():
    assert policy_label({**DEFAULTS, "policy": "klink"}) == "klink"
    assert policy_label({"policy": "default", "cores": 2, "confidence": 0.5}) == "default"
    assert policy_label({}) == "default"


def test_a_setting_missing_from_an_old_config_counts_as_its_default():
    assert policy_label({"policy": "fcfs"}) == "fcfs"


VARIANT = st.fixed_dictionaries({
    "policy": st.sampled_from(["rr", "fcfs", "hr", "sbox", "klink", "klink-nomm"]),
    "enforce": st.sampled_from(["pause", "priority"]),
    "cores": st.sampled_from([None, 1, 2, 4]),
    "confidence": st.sampled_from([0.5, 0.9, 0.95, 0.99]),
    "cycle_ms": st.sampled_from([60, 120, 200]),
    "history": st.sampled_from([100, 400]),
    "memory_bound": st.sampled_from([0.5, 0.8, 1.0]),
    "strict_slack": st.booleans(),
})


@given(st.lists(VARIANT, min_size=2, max_size=6, unique_by=lambda b: tuple(sorted(b.items(), key=str))))
def test_two_different_scheduler_variants_never_share_a_label(variants):
    for a, b in itertools.combinations(variants, 2):
        assert policy_label(a) != policy_label(b)


@given(VARIANT)
def test_a_label_starts_with_its_policy(bench):
    assert policy_label(bench).split("[")[0] == bench["policy"]
