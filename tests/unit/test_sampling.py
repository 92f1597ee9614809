"""Sampling in the harness: the bench settings, exact YSB window results, and each window's error."""

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from klinkctl.cli import main
from klinkctl.errors import KlinkError
from klinkctl.results.accuracy import accuracy_summary, error_table
from klinkctl.run.config import RunSpec, resolve
from klinkctl.workloads import common, ysb


def settings(**options):
    return resolve(None, {"workload": "ysb", "window": "3s", **options})


def test_sampler_settings_reach_the_job_config():
    config = settings(sampler="aion", error="0.02", substream="500ms", substream_history="20", confidence="0.9")
    job = common.job_config(common.plan(config, "r1"), config, "127.0.0.1:9092", ysb.JAVA_BUILDER)
    assert job["sampler"] == {"kind": "aion", "substreamMs": 500, "error": 0.02, "confidence": 0.9, "history": 20,
                              "seed": 42}
    assert job["recordResults"] is True


def test_without_a_sampler_the_job_keeps_its_watermarks_and_records_no_results():
    job = common.job_config(common.plan(settings(), "r1"), settings(), "127.0.0.1:9092", ysb.JAVA_BUILDER)
    assert job["sampler"] is None and job["recordResults"] is False
    assert settings(accuracy=True).measures_accuracy


@pytest.mark.parametrize("options, message", [
    ({"sampler": "reservoir"}, "unknown sampler 'reservoir'; valid: none, aion, aion-minus, kslack, aq-kslack"),
    ({"sampler": "aion", "error": "5"}, "--error must be less than 1, got 5"),
    ({"sampler": "aion", "substream": "700ms"}, r"--substream \(700 ms\) must be positive and divide --window"),
    ({"sampler": "aion", "substream_history": "0"}, "--substream-history must be at least 1"),
])
def test_bad_sampler_settings_are_refused(options, message):
    with pytest.raises(KlinkError, match=message):
        settings(**options)


def test_accuracy_needs_a_workload_with_exact_results():
    with pytest.raises(KlinkError, match="exact window results, which the harness computes for ysb, nyt, kmeans, "
                                         "rides, average, bigrams, lrb-segments only, not lrb"):
        resolve(None, {"workload": "lrb", "sampler": "aion"})
    assert resolve(None, {"workload": "nyt", "sampler": "aion"}).substream_ms == 500  # divides the 1 s slide
    assert resolve(None, {"workload": "kmeans", "accuracy": True}).measures_accuracy


def test_a_sliding_windows_substreams_must_divide_its_slide():
    with pytest.raises(KlinkError, match=r"--substream \(400 ms\) must divide --slide \(1000 ms\)"):
        resolve(None, {"workload": "nyt", "window": "2s", "sampler": "aion", "substream": "400ms"})


def test_the_cli_refuses_a_bad_sampler_in_one_line(tmp_path):
    result = CliRunner().invoke(main, ["bench", "ysb", "--state-dir", str(tmp_path / "s"), "--sampler", "x"])
    assert result.exit_code == 2
    assert result.output.startswith("error: Invalid value for '--sampler': 'x' is not one of")
    assert not (tmp_path / "s").exists()


def ysb_event(ad: str, event_type: str, event_time: int) -> bytes:
    return json.dumps({"user_id": "u", "page_id": "p", "ad_id": ad, "ad_type": "banner", "event_type": event_type,
                       "event_time": event_time, "ip_address": "1.2.3.4"}).encode()


def test_exact_ysb_results_count_views_per_campaign_and_window(tmp_path):
    (tmp_path / "campaigns.json").write_text(json.dumps({"c1": ["a1", "a2"], "c2": ["a3"]}))
    events = [ysb_event("a1", "view", 1_000), ysb_event("a2", "view", 2_999), ysb_event("a3", "view", 3_499),
              ysb_event("a1", "click", 1_500), ysb_event("a3", "view", 3_500), ysb_event("a2", "view", 6_499)]
    # 3 s windows offset by 500 ms: [500, 3500), [3500, 6500)
    exact = ysb.exact_results(events, RunSpec(window_ms=3000), tmp_path, 500)
    assert exact.to_dict("records") == [
        {"window_end": 3500, "key": "c1", "exact": 2, "events": 2}, {"window_end": 3500, "key": "c2", "exact": 1,
                                                                     "events": 1},
        {"window_end": 6500, "key": "c1", "exact": 1, "events": 1}, {"window_end": 6500, "key": "c2", "exact": 1,
                                                                     "events": 1}]


def latency_rows(*windows):
    return pd.DataFrame([{"run": "r", "policy": "default", "query": "q00", "window_end": end, "events": events,
                          "warmup": warmup} for end, events, warmup in windows])


def test_a_windows_error_is_the_l1_error_over_its_keys_relative_to_its_exact_total():
    latency = latency_rows((3000, 60, False), (6000, 100, False))
    exact = pd.DataFrame({"query": "q00", "window_end": [3000, 3000, 3000, 6000],
                          "key": ["a", "b", "c", "a"], "exact": [50, 30, 20, 100]})
    # window 3000: a 55 (+5), b 27 (-3), c missing (-20), d 4 extra (+4) -> 32 / 100
    results = pd.DataFrame({"query": "q00", "window_end": [3000, 3000, 3000, 6000],
                            "key": ["a", "b", "d", "a"], "value": [55, 27, 4, 100]})
    table = error_table(latency, results, exact, "aion", 0.05).set_index("window_end")
    assert table.loc[3000, "relative_error"] == pytest.approx(0.32)
    assert table.loc[3000, "sampling_rate"] == pytest.approx(0.6)
    assert (table.loc[3000, "exact_keys"], table.loc[3000, "emitted_keys"]) == (3, 3)
    assert not table.loc[3000, "within_target"]
    assert table.loc[6000, "relative_error"] == 0 and table.loc[6000, "within_target"]


def test_a_window_with_nothing_exact_but_a_result_has_an_infinite_error():
    latency = latency_rows((3000, 1, False))
    results = pd.DataFrame({"query": ["q00"], "window_end": [3000], "key": ["a"], "value": [3]})
    table = error_table(latency, results, pd.DataFrame(columns=["query", "window_end", "key", "exact"]), "x", 0.05)
    assert np.isinf(table["relative_error"].iloc[0])


def test_accuracy_summary_leaves_out_the_warmup_and_windows_after_the_generation():
    errors = pd.DataFrame({"window_end": [3000, 6000, 9000, 12000], "warmup": [True, False, False, False],
                           "relative_error": [0.5, 0.01, 0.07, 0.9], "within_target": [False, True, False, False],
                           "sampling_rate": [1.0, 0.5, 0.7, 0.2], "query": "q00"})
    sampling = pd.DataFrame({"query": ["q00", "q00", "q01"], "dropped_late": [3, 10, 4]})
    summary = accuracy_summary(errors, sampling, 0.05, generation_end_ms=10_000)
    assert summary["windows"] == 2
    assert summary["mean_error"] == pytest.approx(0.04)
    assert summary["max_error"] == pytest.approx(0.07)
    assert summary["within_target_fraction"] == 0.5
    assert summary["mean_sampling_rate"] == pytest.approx(0.6)
    assert summary["sampler_dropped_late"] == 14
