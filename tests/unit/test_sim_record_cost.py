"""--source-record-cost-ns: the events-per-record law of the generator's send bursts, the fit that gives its
constants (benchmarks/sim_record_cost_fit.py) on synthetic runs, and the source's split cost in the spec."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from sim_record_cost_fit import fit_costs, fit_look_period  # noqa: E402
from klinkctl.errors import KlinkError  # noqa: E402
from klinkctl.run.config import build  # noqa: E402
from klinkctl.sim.graphs import (DEFAULT_COSTS, events_per_kafka_record, generator_look_us,  # noqa: E402
                                 query_tasks)
from klinkctl.sim.spec import sim_spec  # noqa: E402
from klinkctl.workloads import common  # noqa: E402

SOURCE_NS = DEFAULT_COSTS["ysb"]["source"]["cost_ns_per_record"]


def test_a_record_carries_one_event_at_low_rates_and_rate_times_look_at_high_ones():
    assert events_per_kafka_record(1.0, 100.0) == pytest.approx(1.0, abs=1e-4)
    assert events_per_kafka_record(0.0, 100.0) == 1.0
    assert events_per_kafka_record(1_000_000.0, 100.0) == pytest.approx(100.0, rel=1e-9)
    # x = 1: the mean of a Poisson(1) count that is at least one
    assert events_per_kafka_record(10_000.0, 100.0) == pytest.approx(1 / (1 - np.exp(-1)))
    rates = np.array([1e3, 1e4, 1e5])
    assert np.all(np.diff(events_per_kafka_record(rates, 80.0)) > 0)


def test_the_look_period_fit_recovers_a_synthetic_generators():
    rng = np.random.default_rng(3)
    rates = rng.uniform(2_000, 160_000, 200)
    topics = rng.choice([2, 4, 8, 16], 200).astype(float)
    truth = events_per_kafka_record(rates, 60.0 + 5.0 * topics)
    noisy = truth * np.exp(rng.normal(0, 0.02, 200))
    fit = fit_look_period(rates, topics, noisy)
    assert fit["look_us"] == pytest.approx(60.0, rel=0.05)
    assert fit["look_us_per_topic"] == pytest.approx(5.0, rel=0.1)
    assert fit["rms_relative"] < 0.03


def test_the_cost_fit_recovers_per_record_and_per_event_costs():
    rng = np.random.default_rng(5)
    events = rng.uniform(1e6, 5e6, 60)
    per_record = rng.uniform(1, 12, 60)
    records = events / per_record
    cpu = 700 * records + 500 * events + rng.normal(0, 5, 60) * events
    table = pd.DataFrame({"records_in": records, "events_read": events, "ns_per_event": cpu / events})
    fit = fit_costs(table)
    assert fit["ns_per_record"] == pytest.approx(700, rel=0.05)
    assert fit["ns_per_event"] == pytest.approx(500, rel=0.02)
    assert fit["r2"] > 0.95 and fit["runs"] == 60


def config_of(**values):
    return build({"workload": "ysb", "queries": 2, "rate": 100_000, "window_ms": 3000, "duration_ms": 20_000,
                  "warmup_ms": 5000, "delay": "uniform:0-400ms", **values})


def test_off_by_default_the_source_pays_its_calibrated_cost_per_event():
    source, window = query_tasks(config_of())
    assert (source["costNsPerRecord"], source["costNsPerKafkaRecord"], source["eventsPerKafkaRecord"]) == \
        (SOURCE_NS, 0.0, 1.0)
    assert window["costNsPerKafkaRecord"] == 0.0


def test_with_a_record_cost_a_source_costs_its_calibrated_cost_in_the_calibration_cell_and_less_at_higher_rates():
    def per_event(**values):
        source = query_tasks(config_of(source_record_cost_ns=728.0, **values))[0]
        return source["costNsPerRecord"] + source["costNsPerKafkaRecord"] / source["eventsPerKafkaRecord"]
    assert per_event(queries=8, rate=8618) == pytest.approx(SOURCE_NS)
    assert per_event(queries=2, rate=100_000) < per_event(queries=4, rate=40_000) < SOURCE_NS
    assert per_event(queries=16, rate=3000) > SOURCE_NS
    source = query_tasks(config_of(source_record_cost_ns=728.0))[0]
    assert source["eventsPerKafkaRecord"] == pytest.approx(events_per_kafka_record(100_000, generator_look_us(2)))
    assert source["costNsPerKafkaRecord"] == 728.0


def test_the_split_reaches_the_spec_and_too_large_a_record_cost_is_refused():
    config = config_of(source_record_cost_ns=728.0, cost_scale=2.0)
    source = sim_spec(config, common.plan(config, "run-1"), None)["queries"][0]["tasks"][0]
    assert source["costNsPerKafkaRecord"] == 2 * 728.0
    with pytest.raises(KlinkError, match="source-record-cost-ns"):
        query_tasks(config_of(source_record_cost_ns=5000.0))


def test_a_calibrating_runs_own_cell_keeps_its_cost_per_event(tmp_path):
    (tmp_path / "config.yaml").write_text("bench:\n  queries: 2\n  rate: 100000\n")
    config = config_of(source_record_cost_ns=728.0, calibrate_from=str(tmp_path))
    source = query_tasks(config, {"source": {"cost_ns_per_record": 600.0}})[0]
    assert source["costNsPerRecord"] + source["costNsPerKafkaRecord"] / source["eventsPerKafkaRecord"] == \
        pytest.approx(600.0)
    (tmp_path / "config.yaml").write_text("nothing: here\n")
    with pytest.raises(KlinkError, match="queries and rate"):
        query_tasks(config, {"source": {"cost_ns_per_record": 600.0}})
