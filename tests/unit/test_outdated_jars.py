"""A running local stack keeps copies of our jars (klinkctl.stack.flink.write_lib_dir): a run after a rebuild is
refused rather than run on the old code."""

from __future__ import annotations

from pathlib import Path

import pytest

from klinkctl.errors import KlinkError
from klinkctl.stack import flink, running
from klinkctl.stack.spec import StackSpec


@pytest.fixture
def stack(tmp_path, monkeypatch):
    built = tmp_path / "target"
    built.mkdir()
    jars = [built / "klink-workloads.jar", built / "klink-generator.jar"]
    for jar in jars:
        jar.write_bytes(b"v1")
    agent = built / "klink-agent.jar"
    agent.write_bytes(b"agent v1")
    monkeypatch.setattr("klinkctl.artifacts.built_jars", lambda: jars)
    monkeypatch.setattr("klinkctl.artifacts.AGENT_JAR", agent)
    spec = StackSpec(state_dir=tmp_path / "state")
    lib = flink.lib_dir(spec)
    lib.mkdir(parents=True)
    (lib / "klink-workloads.jar").write_bytes(b"v1")  # the generator's jar is not on the cluster's classpath
    flink.installed_agent_jar(spec).parent.mkdir(parents=True)
    flink.installed_agent_jar(spec).write_bytes(b"agent v1")
    return spec, jars[0], agent


def test_copies_equal_to_the_build_are_current(stack):
    spec, _, _ = stack
    assert flink.outdated_copies(spec) == []


def test_a_rebuilt_jar_or_agent_makes_its_copy_outdated(stack):
    spec, workloads, agent = stack
    workloads.write_bytes(b"v2")
    agent.write_bytes(b"agent v2")
    assert flink.outdated_copies(spec) == ["klink-agent.jar", "klink-workloads.jar"]


class RunningLocal:
    name = "local"

    def __init__(self, spec: StackSpec):
        self.spec = spec

    def status(self):
        return [type("Component", (), {"running": True, "name": "kafka", "pid": 1})()]

    def recorded_spec(self):
        return self.spec


def test_a_run_on_a_stack_with_outdated_copies_is_refused_in_one_line(stack, monkeypatch):
    spec, workloads, _ = stack
    monkeypatch.setattr("klinkctl.stack.running.locks.hold", lambda *args: None)
    monkeypatch.setattr("klinkctl.stack.running.backends.detect", lambda state_dir: RunningLocal(spec))
    assert running.ensure_stack(spec.state_dir)[0] == spec
    workloads.write_bytes(b"v2")
    with pytest.raises(KlinkError, match="runs older copies of klink-workloads.jar") as raised:
        running.ensure_stack(spec.state_dir)
    assert "\n" not in str(raised.value)
