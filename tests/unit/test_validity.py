"""Which runs are compared: the rules of klinkctl.results.validity, one at a time."""

import pytest

from klinkctl.results.validity import (CENSORED, GENERATOR_LAG, GENERATOR_SLOW, MAX_LAG_FRACTION,
                                       MIN_OFFERED_FRACTION, NO_SOURCE_RATE, NO_SUMMARY, assess)


def summary(**changes):
    """A summary.json of a clean run (exact rate, no censoring, small lag), with ``changes`` applied."""
    base = {"status": "completed", "windows_measured": 40, "windows_expected": 40, "windows_censored_total": 0,
            "swm_latency_ms": {"mean": 1000.0},
            "throughput": {"generator_events_per_s": 10000.0, "flink_source_records_per_s": 9990.0},
            "generator": {"achieved_rate": 10000.0, "target_rate": 10000, "events_sent": 100,
                          "events_scheduled": 100, "lag_p99_ms": 3.0}}
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            base[key] = {**base[key], **value}
        elif value is None:
            base.pop(key, None)
        else:
            base[key] = value
    return base


def test_a_clean_run_is_valid():
    assert assess(summary()).valid and assess(summary()).reasons == []


@pytest.mark.parametrize("status", ["failed", "interrupted", None])
def test_a_run_that_did_not_complete_is_invalid(status):
    result = assess(summary(status=status))
    assert not result.valid and result.reasons == [f"status {status or 'unknown'}"]


def test_no_summary_is_invalid():
    assert assess({}).reasons == [NO_SUMMARY]


def test_censored_windows_make_a_run_invalid():
    assert assess(summary(windows_censored_total=1)).reasons == [CENSORED]


def test_without_the_censored_count_missing_windows_count():
    old = summary(windows_censored_total=None, windows_measured=38)
    assert assess(old).reasons == [CENSORED]
    assert assess(summary(windows_censored_total=None, windows_measured=45)).valid
    assert assess(summary(windows_censored_total=None, windows_expected=None)).valid


def test_the_new_censored_count_wins_over_the_loose_expected_count():
    assert assess(summary(windows_censored_total=0, windows_measured=30)).valid


def test_a_generator_that_sent_less_than_99_percent_of_its_schedule_is_invalid():
    just = round(MIN_OFFERED_FRACTION * 100)
    assert assess(summary(generator={"events_sent": just})).valid
    assert assess(summary(generator={"events_sent": just - 1})).reasons == [GENERATOR_SLOW]


def test_a_delay_tail_that_stretches_the_generators_wall_time_is_not_a_shortfall():
    # exp:240ms: every event sent on schedule, but the last ones up to ~3 s after the last event time
    on_schedule = summary(generator={"achieved_rate": 9162.9, "target_rate": 10000, "events_sent": 100,
                                     "events_scheduled": 100, "lag_p99_ms": 1.4})
    assert assess(on_schedule).valid


def test_without_a_schedule_the_achieved_rate_is_the_fallback():
    old = summary(generator={"achieved_rate": 500.0, "target_rate": 1000, "events_sent": None,
                             "events_scheduled": None})
    assert assess(old).reasons == [GENERATOR_SLOW]
    assert assess(summary(generator={"events_scheduled": None, "target_rate": None})).valid


def test_a_p99_send_lag_above_5_percent_of_the_mean_latency_is_invalid():
    limit = MAX_LAG_FRACTION * 1000.0
    assert assess(summary(generator={"lag_p99_ms": limit})).valid
    assert assess(summary(generator={"lag_p99_ms": limit + 0.1})).reasons == [GENERATOR_LAG]


def test_the_lag_rule_is_skipped_without_a_lag_percentile_or_a_latency():
    assert assess(summary(generator={"lag_p99_ms": None})).valid
    assert assess(summary(generator={"lag_p99_ms": 900.0}, swm_latency_ms={"mean": None})).valid


@pytest.mark.parametrize("read", [None, 0.0])
def test_sources_that_read_nothing_by_their_metrics_make_a_run_invalid(read):
    assert assess(summary(throughput={"flink_source_records_per_s": read})).reasons == [NO_SOURCE_RATE]


def test_the_source_rule_is_skipped_without_the_field_or_without_events_sent():
    no_field = summary()
    no_field["throughput"].pop("flink_source_records_per_s")
    assert assess(no_field).valid
    assert assess(summary(throughput={"flink_source_records_per_s": None},
                          generator={"events_sent": 0, "events_scheduled": 0})).valid


def test_every_reason_is_listed_once():
    bad = summary(status="failed", windows_censored_total=2,
                  generator={"events_sent": 50, "lag_p99_ms": 500.0})
    result = assess(bad)
    assert result.reasons == ["status failed", CENSORED, GENERATOR_SLOW, GENERATOR_LAG]
    assert result.as_summary() == {"valid": False, "invalid_reasons": result.reasons}
