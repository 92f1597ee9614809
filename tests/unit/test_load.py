"""`--load F --capacity FILE` of bench and sweep: the rate it resolves to, what the run's config records, and
bad input (one line, exit != 0, nothing started or created)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from klinkctl.cli import main
from klinkctl.run import sweep_plan
from klinkctl.run.config import RunSpec, resolve


def capacity_file(tmp_path: Path, rate: int | None = 20_000, name: str = "capacity.json", **settings) -> Path:
    config = RunSpec(**{"queries": 4, "window_ms": 3000, "duration_ms": 20_000, "warmup_ms": 4000,
                            **settings}).to_dict()
    path = tmp_path / name
    path.write_text(json.dumps({"kind": "klinkctl-capacity", "version": 1, "workload": config["workload"],
                                "rate": rate, "bottleneck": "flink" if rate else "not reached (limit)",
                                "stopped": "test", "config": {**config, "rate": rate}, "probes": []}))
    return path


def test_load_sets_the_rate_to_that_fraction_of_the_capacity(tmp_path):
    capacity = capacity_file(tmp_path)
    config = resolve(None, {"workload": "ysb", "queries": "4", "window": "3s", "load": "0.9",
                            "capacity": str(capacity)})
    assert config.rate == 18_000 and config.load == 0.9 and config.capacity == str(capacity)
    recorded = config.to_dict()  # what config.yaml's bench section holds
    assert (recorded["load"], recorded["capacity"], recorded["rate"]) == (0.9, str(capacity), 18_000)


def test_the_policy_its_parameters_duration_and_seed_may_differ_from_the_capacitys(tmp_path):
    capacity = capacity_file(tmp_path)
    config = resolve(None, {"workload": "ysb", "queries": "4", "window": "3s", "load": "1.1",
                            "capacity": str(capacity), "policy": "klink", "cycle": "200ms", "cores": "1",
                            "duration": "60s", "warmup": "10s", "seed": "7"})
    assert config.rate == 22_000 and config.policy == "klink"


def test_a_sweep_takes_load_as_a_grid_axis_and_capacity_as_a_fixed_setting(tmp_path):
    capacity = capacity_file(tmp_path)
    path = tmp_path / "at-load.yaml"
    path.write_text(yaml.safe_dump({"workload": "ysb", "repetitions": 1, "fixed": {
        "queries": 4, "window": "3s", "capacity": str(capacity)}, "grid": {"load": [0.8, 1.0, 1.1],
                                                                           "policy": ["default", "klink"]}}))
    _, runs = sweep_plan.read_sweep_file(path)
    assert [run.config.rate for run in runs] == [16_000, 16_000, 20_000, 20_000, 22_000, 22_000]
    assert {run.config.load for run in runs} == {0.8, 1.0, 1.1}


def test_a_capacity_template_names_one_capacity_per_query_count_bound_and_delay(tmp_path):
    for queries, rate in ((2, 30_000), (4, 20_000)):
        for bound, delay in ((200, "uniform:0-400ms"), (1000, "uniform:0-400ms")):
            capacity_file(tmp_path, rate + bound, name=f"cap-{queries}q-{bound}ms-uniform_0-400ms.json",
                          queries=queries, watermark_bound_ms=bound, delay=delay)
    path = tmp_path / "regimes.yaml"
    path.write_text(yaml.safe_dump({"workload": "ysb", "repetitions": 1, "fixed": {
        "window": "3s", "delay": "uniform:0-400ms",
        "capacity": str(tmp_path / "cap-{queries}q-{watermark_bound_ms}ms-{delay}.json")},
        "grid": {"queries": [2, 4], "watermark-bound": ["200ms", "1s"], "load": [0.5]}}))
    _, runs = sweep_plan.read_sweep_file(path)
    assert [(run.config.queries, run.config.watermark_bound_ms, run.config.rate) for run in runs] == [
        (2, 200, 15_100), (2, 1000, 15_500), (4, 200, 10_100), (4, 1000, 10_500)]
    assert runs[0].config.capacity == str(tmp_path / "cap-2q-200ms-uniform_0-400ms.json")


def test_a_sweep_counts_every_missing_capacity_file_of_its_cells_in_one_line(tmp_path):
    capacity_file(tmp_path, name="cap-2q.json", queries=2)
    path = tmp_path / "regimes.yaml"
    path.write_text(yaml.safe_dump({"workload": "ysb", "fixed": {"window": "3s", "capacity": str(tmp_path / "cap-{queries}q.json")},
                                    "grid": {"queries": [2, 4, 8, 16, 32], "load": [0.9, 1.1]}}))
    result = CliRunner().invoke(main, ["sweep", "--dry-run", str(path)])
    assert result.exit_code != 0 and "4 of 5 capacity files missing" in result.output
    assert f"{tmp_path / 'cap-16q.json'}" in result.output and "and 1 more" in result.output
    assert len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize("template, message", [
    ("cap-{sampler_rate}.json", "names {sampler_rate}, which this run does not set"),
    ("cap-{queries.json", "expected '}'"),
])
def test_a_bad_capacity_template_is_one_line(tmp_path, template, message):
    result = CliRunner().invoke(main, ["bench", "ysb", "--queries", "4", "--window", "3s", "--load", "0.9",
                                       "--capacity", str(tmp_path / template), "--state-dir", str(tmp_path / "s")])
    assert result.exit_code != 0 and message in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_a_sweep_with_load_and_rate_is_refused_before_anything_runs(tmp_path):
    capacity = capacity_file(tmp_path)
    path = tmp_path / "both.yaml"
    path.write_text(yaml.safe_dump({"workload": "ysb", "fixed": {"queries": 4, "window": "3s", "rate": 1000,
                                                                 "capacity": str(capacity)}, "grid": {"load": [0.5]}}))
    result = CliRunner().invoke(main, ["sweep", str(path), "--results", str(tmp_path / "results"),
                                       "--state-dir", str(tmp_path / "state")])
    assert result.exit_code != 0 and "give --load or --rate, not both" in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "results").exists() and not (tmp_path / "state").exists()


def not_json(tmp_path: Path) -> Path:
    path = tmp_path / "broken.json"
    path.write_text("{not json")
    return path


def not_capacity(tmp_path: Path) -> Path:
    path = tmp_path / "summary.json"
    path.write_text(json.dumps({"status": "completed", "run": "x"}))
    return path


@pytest.mark.parametrize("args, message", [
    (lambda t: ["--load", "0.9", "--rate", "5000", "--capacity", str(capacity_file(t))],
     "give --load or --rate, not both"),
    (lambda t: ["--load", "0.9"], "--load needs --capacity FILE"),
    (lambda t: ["--capacity", str(capacity_file(t))], "--capacity needs --load F"),
    (lambda t: ["--load", "0", "--capacity", str(capacity_file(t))], "--load must be greater than 0, got 0"),
    (lambda t: ["--load", "-0.5", "--capacity", str(capacity_file(t))], "--load must be greater than 0"),
    (lambda t: ["--load", "abc", "--capacity", str(capacity_file(t))], "Invalid value for '--load': 'abc' is not a valid float"),
    (lambda t: ["--load", "0.9", "--capacity", str(t / "missing.json")], "missing.json: no such file"),
    (lambda t: ["--load", "0.9", "--capacity", str(not_json(t))], "broken.json is not JSON"),
    (lambda t: ["--load", "0.9", "--capacity", str(not_capacity(t))], "summary.json is not a capacity file"),
    (lambda t: ["--load", "0.9", "--capacity", str(capacity_file(t, rate=None))], "has no sustainable rate"),
    (lambda t: ["--load", "0.9", "--capacity", str(capacity_file(t, workload="kmeans"))],
     "was measured for workload kmeans, not ysb"),
    (lambda t: ["--load", "0.9", "--capacity", str(capacity_file(t, queries=8))],
     "was measured with queries = 8, this run has 4"),
    (lambda t: ["--load", "0.9", "--capacity", str(capacity_file(t, window_ms=10_000))],
     "was measured with window_ms = 10000, this run has 3000"),
    (lambda t: ["--load", "0.9", "--capacity", str(capacity_file(t, delay="const:300ms"))],
     "was measured with delay = 'const:300ms'"),
])
def test_bad_load_input_is_one_line_and_starts_nothing(tmp_path, args, message):
    state = tmp_path / "state"
    result = CliRunner().invoke(main, ["bench", "ysb", "--queries", "4", "--window", "3s", *args(tmp_path),
                                       "--state-dir", str(state), "--results", str(tmp_path / "results")])
    assert result.exit_code != 0
    assert message in result.output and len(result.output.strip().splitlines()) == 1, result.output
    assert not state.exists() and not (tmp_path / "results").exists()


def test_capacity_refuses_bad_search_settings_and_a_config_with_load_before_anything_starts(tmp_path):
    state = tmp_path / "state"
    bad = CliRunner().invoke(main, ["capacity", "ysb", "--precision", "2", "--state-dir", str(state)])
    assert bad.exit_code != 0 and bad.output.strip() == "error: --precision must be between 0 and 1 (exclusive), " \
                                                        "e.g. 0.05, got 2.0"
    rate = CliRunner().invoke(main, ["capacity", "ysb", "--rate", "5000", "--state-dir", str(state)])
    assert rate.exit_code != 0 and "No such option '--rate'" in rate.output
    config = tmp_path / "bench.yaml"
    config.write_text(yaml.safe_dump({"queries": 4, "window": "3s", "load": 0.9,
                                      "capacity": str(capacity_file(tmp_path))}))
    with_load = CliRunner().invoke(main, ["capacity", "ysb", "--config", str(config), "--state-dir", str(state)])
    assert with_load.exit_code != 0 and "which `klinkctl capacity` searches for" in with_load.output
    assert not state.exists()
