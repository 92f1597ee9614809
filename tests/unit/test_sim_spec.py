"""klinkctl.sim: the simulator's spec is the bench run's (queries, offsets, rate, models, scheduler parameters), and
what the simulator does not model is refused before anything starts."""

from __future__ import annotations

import numpy as np
import pytest

from klinkctl.errors import KlinkError
from klinkctl.run.config import build
from klinkctl.run.sweep_plan import parse_sweep, plan_runs
from klinkctl.sim.graphs import DEFAULT_COSTS, POJO_ENCODING_YSB_COSTS, check_simulable, query_tasks
from klinkctl.sim.spec import background_burst_ms, seed_quantile, sim_spec
from klinkctl.workloads import common


SOURCE_NS, WINDOW_NS = (DEFAULT_COSTS["ysb"][role]["cost_ns_per_record"] for role in ("source", "window"))


def spec_of(**values):
    config = build({"workload": "ysb", "queries": 3, "rate": 2000, "window_ms": 3000, "duration_ms": 20_000,
                    "warmup_ms": 5000, "delay": "uniform:0-400ms", **values})
    return config, sim_spec(config, common.plan(config, "run-1"), None)


def test_the_queries_and_their_window_offsets_are_the_bench_runs():
    config, spec = spec_of(seed=7)
    planned = common.plan(config, "run-1")
    assert [(q["id"], q["windowOffsetMs"]) for q in spec["queries"]] == \
        [(q.id, q.window_offset_ms) for q in planned.queries]
    assert spec["ratePerQuery"] == 2000 and spec["seed"] == 7 and spec["delay"] == config.network_delay.spec


def test_the_policy_gets_the_agents_parameters_and_the_simulated_machine():
    _, spec = spec_of(policy="klink", cycle_ms=100, cores=2, node_cpu=0.25, queues="heap", enforce="pause")
    assert spec["policy"] == "klink" and spec["policyParams"]["r"] == "100" and spec["policyParams"]["C"] == "2"
    assert spec["coresPerNode"] == 0.25 and spec["queues"] == "heap"


def test_placement_and_forwarding_reach_the_simulator():
    _, spec = spec_of(nodes=8, placement="split", forwarding=False)
    assert (spec["nodes"], spec["placement"], spec["forwarding"]) == (8, "split", False)
    _, default = spec_of()
    assert (default["placement"], default["forwarding"]) == ("query", True)


def test_a_calibration_replaces_the_costs_of_the_roles_it_has():
    config, _ = spec_of(cost_scale=2.0)
    source, window = query_tasks(config, {"window": {"cost_ns_per_record": 999.0}})
    assert window["costNsPerRecord"] == 1998.0
    assert source["costNsPerRecord"] == 2 * SOURCE_NS and source["outputs"][0]["to"] == "window"


def test_window_cost_scale_multiplies_only_the_windows_cost():
    config, spec = spec_of(cost_scale=2.0, window_cost_scale=11)
    source, window = query_tasks(config)
    assert source["costNsPerRecord"] == 2 * SOURCE_NS and window["costNsPerRecord"] == 2 * 11 * WINDOW_NS
    assert spec["queries"][0]["tasks"][1]["costNsPerRecord"] == window["costNsPerRecord"]
    _, default = spec_of()
    assert [t["costNsPerRecord"] for t in default["queries"][0]["tasks"]] == [SOURCE_NS, WINDOW_NS]


def test_the_pojo_envelope_encoding_takes_its_own_measured_costs_and_a_calibration_still_wins():
    config, spec = spec_of(envelope_encoding="pojo")
    source, window = spec["queries"][0]["tasks"]
    assert source["costNsPerRecord"] == POJO_ENCODING_YSB_COSTS["source"]["cost_ns_per_record"]
    assert window["costNsPerRecord"] == POJO_ENCODING_YSB_COSTS["window"]["cost_ns_per_record"]
    assert query_tasks(config, {"window": {"cost_ns_per_record": 999.0}})[1]["costNsPerRecord"] == 999.0


@pytest.mark.parametrize("value", [0, -1, "fast", True])
def test_a_bad_window_cost_scale_is_one_line(value):
    with pytest.raises(KlinkError, match="window-cost-scale") as error:
        build({"workload": "ysb", "window_ms": 3000, "window_cost_scale": value})
    assert "\n" not in str(error.value)


def test_gc_pressure_reaches_the_simulator_and_is_off_by_default():
    _, spec = spec_of(gc_pressure=0.073)
    assert spec["gcPressure"] == 0.073
    assert spec_of()[1]["gcPressure"] == 0.0


@pytest.mark.parametrize("value", [-0.1, -1, "high", True])
def test_a_bad_gc_pressure_is_one_line(value):
    with pytest.raises(KlinkError, match="gc-pressure") as error:
        build({"workload": "ysb", "window_ms": 3000, "gc_pressure": value})
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("values, complaint", [
    ({"workload": "kmeans"}, "simulate models the ysb, nyt, lrb workloads"),
    ({"policy": "os-priority"}, "os-priority"),
    ({"sampler": "kslack"}, "--sampler"),
    ({"placement": "split"}, "give --nodes 2 or more"),
    ({"workload": "nyt", "slide_ms": 1000, "envelope_encoding": "pojo"}, "measured with it for ysb only"),
])
def test_what_the_simulator_does_not_model_is_refused(values, complaint):
    config = build({"workload": "ysb", "window_ms": 3000, **values})
    with pytest.raises(KlinkError, match=complaint):
        check_simulable(config)


def test_a_sweep_in_simulate_mode_plans_simulated_runs_and_checks_them():
    sweep = parse_sweep({"workload": "ysb", "mode": "simulate", "repetitions": 1, "fixed": {"node-cpu": 0.5},
                         "variants": {"default": {"policy": "default"}, "klink": {"policy": "klink"}}}, "s.yaml", "s")
    runs = plan_runs(sweep, "s.yaml")
    assert sweep.to_dict()["mode"] == "simulate" and all(run.simulated for run in runs)
    with pytest.raises(KlinkError, match="mode 'replay'; valid: bench, simulate"):
        parse_sweep({"workload": "ysb", "mode": "replay"}, "s.yaml", "s")
    bad = parse_sweep({"workload": "kmeans", "mode": "simulate", "repetitions": 1}, "s.yaml", "s")
    with pytest.raises(KlinkError, match="simulate models"):
        plan_runs(bad, "s.yaml")


def test_without_a_spread_every_run_has_the_declared_burst_length():
    for seed in (42, 43, 44):
        _, spec = spec_of(seed=seed, background_burst_ms=90)
        assert spec["backgroundBurstMs"] == 90


def test_with_a_spread_each_seed_draws_its_burst_length_and_every_policy_of_a_seed_the_same():
    lengths = [spec_of(seed=seed, background_burst_spread=0.6)[1]["backgroundBurstMs"] for seed in range(42, 47)]
    assert len(set(lengths)) == 5 and min(lengths) < 160 < max(lengths)
    _, klink = spec_of(seed=44, policy="klink", background_burst_spread=0.6)
    _, again = spec_of(seed=44, background_burst_spread=0.6)
    assert klink["backgroundBurstMs"] == again["backgroundBurstMs"] == lengths[2]


def test_the_drawn_burst_lengths_are_a_log_normal_whose_mean_is_the_declared_length():
    config, _ = spec_of(background_burst_ms=100, background_burst_spread=0.5)
    lengths = np.array([background_burst_ms(config.model_copy(update={"seed": seed})) for seed in range(2000)])
    assert lengths.mean() == pytest.approx(100, rel=0.01)
    assert np.log(lengths).std() == pytest.approx(0.5, rel=0.02)


def test_consecutive_seeds_spread_over_the_whole_distribution():
    quantiles = sorted(seed_quantile(seed) for seed in range(42, 47))
    assert all(0 < q < 1 for q in quantiles)
    assert max(np.diff([0, *quantiles, 1])) < 0.4  # no gap wider than two fifths


@pytest.mark.parametrize("value", [-0.1, 3.5, "wide", True])
def test_a_bad_burst_spread_is_one_line(value):
    with pytest.raises(KlinkError, match="background-burst-spread") as error:
        build({"workload": "ysb", "window_ms": 3000, "background_burst_spread": value})
    assert "\n" not in str(error.value)
