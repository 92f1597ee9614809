"""Python and Java agree: every name klinkctl accepts is one the Java side declares (klink-catalog.json, written by
the build) and the other way round, and every file or command line klinkctl writes for Java uses only keys Java
knows (Java refuses the others)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from klinkctl import catalog, delay, workloads
from klinkctl import generator as generator_module
from klinkctl.run import scheduler_control
from klinkctl.generator import MAX_PACK_BYTES
from klinkctl.run.config import (AGENT_POLICIES, ENFORCEMENTS, OPTIONS, OUTSIDE_POLICIES, POLICIES, SAMPLERS,
                                 WORKLOADS, RunSpec, resolve)
from klinkctl.stack import flink
from klinkctl.stack.spec import StackSpec
from klinkctl.workloads import common, kmeans, lrb


def test_policies_are_the_agents_plus_those_klinkctl_carries_out_itself() -> None:
    assert AGENT_POLICIES == catalog.policies()
    assert set(POLICIES) == set(catalog.policies()) | set(OUTSIDE_POLICIES)
    assert not set(OUTSIDE_POLICIES) & set(catalog.policies())
    assert "default" in catalog.policies()


def test_samplers_are_the_java_ones_plus_none() -> None:
    assert SAMPLERS == ("none", *catalog.samplers())
    assert "none" not in catalog.samplers()


def test_every_workload_has_a_python_side_a_job_and_generated_events() -> None:
    assert set(WORKLOADS) == set(catalog.workloads())
    generated = []
    for name in WORKLOADS:
        assert workloads.get(name).JAVA_BUILDER == catalog.workload_builder(name)
        args = workloads.get(name).generator_args(resolve(None, {"workload": name}))
        generated.append(args[args.index("--workload") + 1])  # its own events or another's (lrb-segments: lrb's)
    assert set(generated) == set(catalog.generator()["workloads"])


def test_mirrored_limits_are_the_java_ones() -> None:
    assert ENFORCEMENTS == catalog.enforcements()
    assert MAX_PACK_BYTES == catalog.generator()["maxPackBytes"]
    assert lrb.MAX_EXPRESSWAYS == catalog.generator()["maxExpressways"]
    assert kmeans.PLANE == catalog.kmeans_plane()


def test_benchs_scheduler_defaults_are_the_agents() -> None:
    defaults, bench = catalog.policy_parameter_defaults(), RunSpec()
    assert (bench.cycle_ms, bench.history, bench.confidence, bench.memory_bound, bench.aging) == \
        (defaults["r"], defaults["h"], defaults["f"], defaults["b"], defaults["age"])
    assert (bench.strict_slack, bench.fill_cycle) == (defaults["strict"], defaults["fill"])


def test_python_models_exactly_the_generators_delay_kinds() -> None:
    assert set(delay.DISTRIBUTIONS) == {kind.name for kind in catalog.delay_kinds()}


@pytest.mark.parametrize("kind", catalog.delay_kinds(), ids=lambda kind: kind.name)
def test_each_delay_example_means_the_same_on_both_sides(kind: catalog.DelayKind) -> None:
    """Python parses Java's example as that kind, and Java's canonical spec of it as the same distribution; the
    example has one value per parameter Java declares."""
    model = delay.parse_delay(kind.example)
    assert model.kind == kind.name
    assert delay.parse_delay(kind.canonical).spec == model.spec
    values = kind.example.partition(":")[2].replace("-", ":").split(":")
    assert len(values) == len(kind.parameters)
    assert f"{kind.form} ({kind.example})" in delay.EXPECTED_FORMS


def test_bench_help_names_every_policy_sampler_and_delay_model_the_catalog_has() -> None:
    """A newcomer's new registry entry shows in `klinkctl bench --help` without touching Python."""
    help_of = {option.name: option.help for option in OPTIONS}
    assert all(name in help_of["policy"] for name in POLICIES)
    assert all(name in help_of["sampler"] for name in SAMPLERS)
    assert all(kind.example in help_of["delay"] for kind in catalog.delay_kinds())


@pytest.mark.parametrize("kind", catalog.gap_kinds(), ids=lambda kind: kind["name"])
def test_each_gap_example_is_what_python_hands_the_generator(kind: dict) -> None:
    assert delay.parse_inter_event(kind["example"], rate=1000).generator_arg == kind["example"]


def _job_config(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **overrides: str) -> dict:
    monkeypatch.setattr(generator_module, "campaigns", lambda *args: {"c1": ["a1"]})  # no JVM for YSB's table
    config = resolve(None, {"workload": name, "queries": "2", **overrides})
    path = workloads.get(name).write_job_config(common.plan(config, "r1"), config, "localhost:1", tmp_path)
    return json.loads(path.read_text())


@pytest.mark.parametrize("name", WORKLOADS)
def test_each_job_config_has_exactly_the_keys_its_java_workload_reads(name: str, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    sampled = {"sampler": "aion", "window": "3s", "substream": "500ms"} if name in ("ysb", "kmeans") else {}
    job = _job_config(name, tmp_path, monkeypatch, **sampled)
    assert set(job) == catalog.job_config_keys(name)
    assert all(set(query) == catalog.query_keys() for query in job["queries"])
    if sampled:
        assert set(job["sampler"]) == catalog.sampler_settings_keys()


def test_the_run_control_has_only_keys_and_parameters_the_agent_reads() -> None:
    config = resolve(None, {"policy": "klink", "cores": "2", "strict_slack": "true", "fill_cycle": "true",
                            "aging": "3"})
    body = scheduler_control.control(config.agent_policy, config.scheduler_params(), "run-1")
    assert set(body) == catalog.control_keys()
    assert set(body["params"]) <= catalog.control_parameters()
    assert {"r", "h", "f", "b", "C", "strict", "fill", "age"} <= set(body["params"])


def test_the_agent_gets_only_options_it_reads() -> None:
    spec = StackSpec(state_dir=Path("/srv/klink-state"), kafka_port=19092, kafka_controller_port=19093,
                     rest_port=18081, jobmanager_rpc_port=16123, slots=1)
    agent_arg = next(o for o in flink.cluster_config(spec, None, flink.flink_home())["env.java.opts.taskmanager"]
                     .split() if o.startswith("-javaagent:"))
    options = agent_arg.partition("=")[2].split(",")
    assert {option.partition("=")[0] for option in options} <= catalog.agent_options()


@pytest.mark.parametrize("name", WORKLOADS)
def test_the_generator_gets_only_options_it_reads(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[list[str]] = []
    monkeypatch.setattr(generator_module, "GeneratorProcess", lambda argv, log: started.append(argv))
    config = resolve(None, {"workload": name})
    generator_module.start("localhost:1", ["t0"], config.rate, 1.0, config.seed, config.delay,
                           config.gaps.generator_arg, workloads.get(name).generator_args(config), 0, tmp_path)
    known = set(catalog.generator()["options"]) | set(catalog.generator()["switches"])
    assert {arg for arg in started[0] if arg.startswith("--")} <= known
