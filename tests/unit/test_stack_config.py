"""The generated Kafka and Flink configs keep every listener on the chosen host and every write in the state dir."""

import sys
from pathlib import Path

import pytest

from klinkctl.artifacts import Artifacts
from klinkctl.errors import KlinkError
from klinkctl.stack import flink, kafka
from klinkctl.stack.spec import StackSpec

SPEC = StackSpec(state_dir=Path("/srv/klink-state"), kafka_port=19092, kafka_controller_port=19093,
                 rest_port=18081, jobmanager_rpc_port=16123, slots=3)
ARTIFACTS = Artifacts(Path("/cache/kafka/libs"), Path("/cache/connector.jar"), Path("/src/klink-agent.jar"), ())


def test_kafka_listens_only_on_the_host_and_keeps_data_in_the_state_dir():
    props = kafka.server_properties(SPEC)
    assert props["listeners"] == "PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093"
    assert props["advertised.listeners"] == "PLAINTEXT://127.0.0.1:19092"
    assert props["controller.quorum.bootstrap.servers"] == "127.0.0.1:19093"
    assert props["log.dirs"] == "/srv/klink-state/kafka/data"


def test_flink_binds_every_endpoint_to_the_host():
    config = flink.cluster_config(SPEC, ARTIFACTS, flink.flink_home())
    for key in ("jobmanager.rpc.address", "jobmanager.bind-host", "taskmanager.bind-host", "taskmanager.host",
                "rest.address", "rest.bind-address"):
        assert config[key] == "127.0.0.1", key
    assert config["rest.port"] == 18081 and config["jobmanager.rpc.port"] == 16123
    assert config["taskmanager.numberOfTaskSlots"] == 3


def test_flink_writes_only_inside_the_state_dir():
    config = flink.cluster_config(SPEC, ARTIFACTS, flink.flink_home())
    for key in ("env.pid.dir", "io.tmp.dirs", "web.tmpdir", "blob.storage.directory"):
        assert str(config[key]).startswith("/srv/klink-state/"), key
    assert "-Djava.io.tmpdir=/srv/klink-state/flink/tmp" in config["env.java.opts.all"]
    assert "--add-opens=java.base/java.lang=ALL-UNNAMED" in config["env.java.opts.all"]  # shipped opts kept


def test_taskmanagers_get_the_agent_from_the_state_dir_and_python_is_this_venv():
    # a copy made at `up`: rebuilding java-udfs must not change the jar under a running TaskManager
    config = flink.cluster_config(SPEC, ARTIFACTS, flink.flink_home())
    assert config["env.java.opts.taskmanager"].split()[0] == \
        "-javaagent:/srv/klink-state/flink/agent/klink-agent.jar=statusDir=/srv/klink-state/agent," \
        f"control=http://127.0.0.1:{SPEC.control_port},stack={SPEC.stack_token}"
    assert config["python.executable"] == config["python.client.executable"] == sys.executable


@pytest.mark.parametrize("gc, flag", [("g1", "-XX:+UseG1GC"), ("serial", "-XX:+UseSerialGC"), ("z", "-XX:+UseZGC")])
def test_taskmanagers_run_flinks_own_collector_unless_told_otherwise(gc, flag):
    # Flink's taskmanager.sh sets G1 only when no JVM option is configured, and ours always are
    assert StackSpec(state_dir=SPEC.state_dir).taskmanager_gc == "g1"
    options = flink.cluster_config(SPEC.model_copy(update={"taskmanager_gc": gc}), ARTIFACTS,
                                   flink.flink_home())["env.java.opts.taskmanager"].split()
    assert flag in options and sum(o.startswith("-XX:+Use") and o.endswith("GC") for o in options) == 1


@pytest.mark.parametrize("jit, flags", [("tiered", set()), ("c1", {"-XX:TieredStopAtLevel=1"})])
def test_taskmanagers_compile_as_the_jvm_does_unless_told_otherwise(jit, flags):
    assert StackSpec(state_dir=SPEC.state_dir).taskmanager_jit == "tiered"
    options = flink.cluster_config(SPEC.model_copy(update={"taskmanager_jit": jit}), ARTIFACTS,
                                   flink.flink_home())["env.java.opts.taskmanager"].split()
    assert {o for o in options if "Tiered" in o} == flags


@pytest.mark.parametrize("where, flags", [("in-quota", set()), ("outside-quota", {"-XX:-UseDynamicNumberOfCompilerThreads"})])
def test_compiler_threads_taken_out_of_the_quota_all_exist_from_the_start(where, flags):
    spec = SPEC.model_copy(update={"taskmanager_jit_cpu": where})
    options = flink.cluster_config(spec, ARTIFACTS, flink.flink_home())["env.java.opts.taskmanager"].split()
    assert {o for o in options if "CompilerThreads" in o} == flags


def test_as_root_taskmanagers_apply_java_priority_2_as_nice_19_and_every_other_as_nice_0(monkeypatch):
    monkeypatch.setattr(flink, "_PRIORITY_OPTS", flink.priority_opts(can_renice=True))
    options = flink.cluster_config(SPEC, ARTIFACTS, flink.flink_home())["env.java.opts.taskmanager"].split()
    assert {"-XX:ThreadPriorityPolicy=1", "-XX:JavaPriority2_To_OSPriority=19", "-XX:JavaPriority1_To_OSPriority=0",
            "-XX:JavaPriority5_To_OSPriority=0", "-XX:JavaPriority10_To_OSPriority=0"} <= set(options)
    assert flink.priority_opts(can_renice=False) == []


def test_adaptive_partitioner_is_off_unless_asked_and_then_one_flink_key(monkeypatch):
    monkeypatch.setattr("klinkctl.stack.spec.flink_release", lambda: (2, 3, 0))
    key = "taskmanager.network.adaptive-partitioner.enabled"
    assert key not in flink.cluster_config(SPEC, ARTIFACTS, flink.flink_home())
    adaptive = SPEC.model_copy(update={"adaptive_partitioner": True})
    assert flink.cluster_config(adaptive, ARTIFACTS, flink.flink_home())[key] is True


def test_adaptive_partitioner_on_a_flink_before_2_3_is_a_one_line_error(monkeypatch):
    monkeypatch.setattr("klinkctl.stack.spec.flink_release", lambda: (2, 2, 1))
    with pytest.raises(KlinkError, match="^--adaptive-partitioner needs Flink 2.3") as raised:
        StackSpec.build(state_dir=Path("/srv/klink-state"), adaptive_partitioner=True)
    assert "\n" not in str(raised.value)
