"""The compose backend, checked statically (no Docker engine needed)."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from klinkctl import FLINK_VERSION, KAFKA_VERSION
from klinkctl.artifacts import Artifacts
from klinkctl.errors import KlinkError
from klinkctl.stack.compose import (
    AGENT_JAR_NAME,
    COMPOSE_DIR,
    COMPOSE_FILE,
    RECORD_FILE,
    ComposeArtifacts,
    ComposeBackend,
    compose_command,
    compose_environment,
    prepare_build_context,
)
from klinkctl.stack.docker_engine import container_status
from klinkctl.stack.spec import StackSpec

VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
SCALED_SERVICES = ("kafka", "jobmanager", "taskmanager")


@pytest.fixture(scope="module")
def compose_text() -> str:
    return COMPOSE_FILE.read_text()


@pytest.fixture(scope="module")
def compose(compose_text: str) -> dict:
    return yaml.safe_load(compose_text)


@pytest.fixture(scope="module")
def dockerfile() -> str:
    return (COMPOSE_DIR / "Dockerfile").read_text()


@pytest.fixture
def default_spec(tmp_path: Path) -> StackSpec:
    return StackSpec(state_dir=tmp_path / "state")


def published(service: dict) -> list[tuple[str, str, str]]:
    """(host ip, host port expression, container port) per published port."""
    result = []
    for entry in service.get("ports", []):
        assert isinstance(entry, str), f"use the short 'ip:host:container' form: {entry!r}"
        ip, rest = entry.split(":", 1)
        host_port, container_port = rest.rsplit(":", 1)
        result.append((ip, host_port, container_port))
    return result


def env_default(expression: str) -> str:
    match = VARIABLE.fullmatch(expression)
    assert match and match.group(2) is not None, f"{expression!r} should be ${{VAR:-default}}"
    return match.group(2)


def listeners(value: str) -> dict[str, str]:
    return dict(item.split("://", 1) for item in value.split(","))


def flink_properties(compose: dict, service: str) -> dict[str, str]:
    text = compose["services"][service]["environment"]["FLINK_PROPERTIES"]
    pairs = (line.split(":", 1) for line in text.splitlines() if ":" in line)
    return {key.strip(): value.strip() for key, value in pairs}


# -- docker-compose.yml ---------------------------------------------------------------------------


def test_compose_file_has_the_three_services(compose: dict) -> None:
    assert set(SCALED_SERVICES) <= set(compose["services"])
    assert compose["services"]["kafka"]["image"] == f"apache/kafka:{KAFKA_VERSION}"
    for service in ("jobmanager", "taskmanager"):
        assert compose["services"][service]["build"]["dockerfile"] == "Dockerfile"


def test_every_published_port_is_loopback_only(compose: dict) -> None:
    ports = [p for service in compose["services"].values() for p in published(service)]
    assert ports, "kafka and jobmanager must publish their ports"
    assert all(ip == "127.0.0.1" for ip, _, _ in ports), ports


def test_rest_port_maps_to_the_local_backends_port(compose: dict, default_spec: StackSpec) -> None:
    ((_, host_port, container_port),) = published(compose["services"]["jobmanager"])
    assert VARIABLE.fullmatch(host_port).group(1) == "REST_PORT"
    assert int(env_default(host_port)) == default_spec.rest_port == 8081
    assert int(container_port) == default_spec.rest_port


def test_kafka_port_maps_to_the_listener_advertised_to_the_host(compose: dict, default_spec: StackSpec) -> None:
    kafka = compose["services"]["kafka"]
    ((_, host_port, container_port),) = published(kafka)
    assert VARIABLE.fullmatch(host_port).group(1) == "KAFKA_PORT"
    assert int(env_default(host_port)) == default_spec.kafka_port == 9092
    bound = listeners(kafka["environment"]["KAFKA_LISTENERS"])
    advertised = listeners(kafka["environment"]["KAFKA_ADVERTISED_LISTENERS"])
    external = [name for name, address in bound.items() if address == f":{container_port}"]
    assert len(external) == 1, f"no listener on container port {container_port}: {bound}"
    assert advertised[external[0]] == f"127.0.0.1:{host_port}"
    assert "kafka:9092" in advertised.values(), "containers reach kafka:9092"


def test_kafka_is_a_single_kraft_node(compose: dict) -> None:
    env = compose["services"]["kafka"]["environment"]
    assert str(env["KAFKA_NODE_ID"]) == "1"
    assert env["KAFKA_PROCESS_ROLES"] == "broker,controller"
    assert env["KAFKA_CONTROLLER_QUORUM_VOTERS"] == "1@kafka:9093"
    for key in ("OFFSETS_TOPIC_REPLICATION_FACTOR", "TRANSACTION_STATE_LOG_REPLICATION_FACTOR"):
        assert str(env[f"KAFKA_{key}"]) == "1"
    assert "kafka-data" in compose["volumes"]
    assert any(v.startswith("kafka-data:") for v in compose["services"]["kafka"]["volumes"])


def test_variables_are_exactly_what_compose_environment_produces(compose_text: str, default_spec: StackSpec) -> None:
    used = VARIABLE.findall(compose_text)
    assert {name for name, _ in used} == set(compose_environment(default_spec))


def test_yaml_defaults_equal_the_stack_spec_defaults(compose_text: str, default_spec: StackSpec) -> None:
    env = compose_environment(default_spec)
    for name, default in VARIABLE.findall(compose_text):
        assert default == env[name], f"${{{name}:-{default}}} but StackSpec's default gives {env[name]!r}"
    assert env["KAFKA_PORT"] == "9092" and env["REST_PORT"] == "8081" and env["TASK_SLOTS"] == "4"
    assert (env["JM_MEMORY"], env["TM_MEMORY"], env["KAFKA_HEAP"]) == ("1024m", "1536m", "512m")


def test_taskmanager_scales(compose: dict) -> None:
    taskmanager = compose["services"]["taskmanager"]
    assert "container_name" not in taskmanager
    assert not taskmanager.get("ports")
    assert all("container_name" not in s for s in compose["services"].values())


def test_netem_services_have_net_admin(compose: dict) -> None:
    for service in SCALED_SERVICES:
        assert "NET_ADMIN" in compose["services"][service].get("cap_add", []), service


def test_healthchecks_for_kafka_and_jobmanager(compose: dict) -> None:
    for service in ("kafka", "jobmanager"):
        assert compose["services"][service]["healthcheck"]["test"], service


def test_flink_properties(compose: dict, dockerfile: str) -> None:
    for service in ("jobmanager", "taskmanager"):
        props = flink_properties(compose, service)
        assert props["jobmanager.rpc.address"] == "jobmanager"
        assert props["taskmanager.numberOfTaskSlots"] == "${TASK_SLOTS:-4}"
        assert props["jobmanager.memory.process.size"] == "${JM_MEMORY:-1024m}"
        assert props["taskmanager.memory.process.size"] == "${TM_MEMORY:-1536m}"
        python = props["python.executable"]
        assert python.startswith("/opt/klink-venv/") and "/opt/klink-venv" in dockerfile
        agent = props["env.java.opts.taskmanager"]
        assert agent.startswith(f"-javaagent:/opt/flink/lib/klink/{AGENT_JAR_NAME}=")
    assert "/opt/flink/lib/klink/" in dockerfile


# -- Dockerfile -----------------------------------------------------------------------------------


def test_dockerfile_base_is_flink_java17(dockerfile: str) -> None:
    froms = re.findall(r"^FROM\s+(\S+)", dockerfile, flags=re.MULTILINE)
    assert froms == [f"flink:{FLINK_VERSION}-java17"]


def test_dockerfile_installs_pyflink_and_copies_the_jars(dockerfile: str) -> None:
    assert "python3.11" in dockerfile
    assert f"apache-flink=={FLINK_VERSION}" in dockerfile
    assert re.search(r"^COPY\b.*\bbuild/jars/\s+/opt/flink/lib/klink/", dockerfile, flags=re.MULTILINE)
    assert re.search(r"^USER flink\s*$", dockerfile.strip().splitlines()[-1])


# -- pure functions -------------------------------------------------------------------------------


def test_compose_command_argv(default_spec: StackSpec) -> None:
    spec = StackSpec(state_dir=default_spec.state_dir, taskmanagers=3)
    base = ["docker", "compose", "-f", str(COMPOSE_FILE), "-p", "klink"]
    assert compose_command(spec, "up") == [*base, "up", "-d", "--build", "--scale", "taskmanager=3"]
    assert compose_command(spec, "down") == [*base, "down"]
    assert compose_command(spec, "purge") == [*base, "down", "-v"]
    custom = compose_command(spec, "down", project="exp1", compose_file=Path("/x/c.yml"))
    assert custom == ["docker", "compose", "-f", "/x/c.yml", "-p", "exp1", "down"]
    with pytest.raises(ValueError):
        compose_command(spec, "restart")  # type: ignore[arg-type]


def test_compose_environment_follows_the_spec(tmp_path: Path) -> None:
    spec = StackSpec(
        state_dir=tmp_path,
        kafka_port=19092,
        rest_port=18081,
        slots=2,
        jobmanager_memory="768m",
        taskmanager_memory="1g",
        kafka_heap="256m",
        extra_flink_config={"rest.flamegraph.enabled": "true", "a.b": "1"},
    )
    env = compose_environment(spec, agent_args="statusDir=/s,policy=klink")
    assert env == {
        "KAFKA_PORT": "19092",
        "REST_PORT": "18081",
        "TASK_SLOTS": "2",
        "JM_MEMORY": "768m",
        "TM_MEMORY": "1g",
        "KAFKA_HEAP": "256m",
        "KLINK_AGENT_ARGS": "statusDir=/s,policy=klink",
        "FLINK_EXTRA_PROPERTIES": "a.b: 1\nrest.flamegraph.enabled: true",
    }


def test_prepare_build_context_copies_every_jar(tmp_path: Path) -> None:
    jars = {name: tmp_path / name for name in ("connector.jar", "agent-1.0.jar", "klink-core.jar")}
    for path in jars.values():
        path.write_bytes(b"PK")
    stale = tmp_path / "ctx" / "old.jar"
    stale.parent.mkdir()
    stale.write_bytes(b"")
    artifacts = ComposeArtifacts(jars["connector.jar"], jars["agent-1.0.jar"], (jars["klink-core.jar"],))
    written = prepare_build_context(artifacts, tmp_path / "ctx")
    expected = sorted([AGENT_JAR_NAME, "connector.jar", "klink-core.jar"])
    assert sorted(p.name for p in (tmp_path / "ctx").iterdir()) == expected
    assert len(written) == 3


def test_prepare_build_context_names_missing_jars(tmp_path: Path) -> None:
    artifacts = ComposeArtifacts(tmp_path / "missing-connector.jar", tmp_path / "missing-agent.jar")
    with pytest.raises(KlinkError, match="missing-connector.jar"):
        prepare_build_context(artifacts, tmp_path / "ctx")
    assert not (tmp_path / "ctx").exists()


def test_artifacts_from_the_local_backends_artifacts(tmp_path: Path) -> None:
    jars = Artifacts(tmp_path / "libs", tmp_path / "c.jar", tmp_path / "a.jar", (tmp_path / "u.jar",))
    assert ComposeArtifacts.from_artifacts(jars) == ComposeArtifacts(jars.connector_jar, jars.agent_jar, jars.udf_jars)


def test_container_status_from_docker_attrs(default_spec: StackSpec) -> None:
    def container(service: str, number: str, state: dict) -> SimpleNamespace:
        return SimpleNamespace(
            name=f"klink-{service}-{number}",
            labels={"com.docker.compose.service": service, "com.docker.compose.container-number": number},
            attrs={"State": state},
            stats=lambda **_: {"memory_stats": {"usage": 300 * 2**20}},
        )

    running = {"Running": True, "Status": "running", "Pid": 4242, "StartedAt": "2020-01-01T00:00:00.123456789Z"}
    tm = container_status(container("taskmanager", "2", running), default_spec)
    assert (tm.name, tm.running, tm.pid, tm.rss_bytes, tm.port) == ("taskmanager-2", True, 4242, 300 * 2**20, None)
    assert tm.uptime_s is not None and tm.uptime_s > 0
    kafka = container_status(container("kafka", "1", {**running, "Health": {"Status": "healthy"}}), default_spec)
    assert (kafka.name, kafka.port, kafka.detail) == ("kafka", 9092, "healthy")
    stopped = {"Running": False, "Status": "exited", "Pid": 0, "ExitCode": 1, "StartedAt": "2020-01-01T00:00:00Z"}
    jm = container_status(container("jobmanager", "1", stopped), default_spec)
    assert (jm.name, jm.running, jm.pid, jm.port) == ("jobmanager", False, None, 8081)
    assert jm.uptime_s is None and jm.rss_bytes is None
    assert "exit code 1" in jm.detail


# -- no Docker engine -----------------------------------------------------------------------------


@pytest.fixture
def no_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    host = f"unix://{tmp_path / 'no-such-dir' / 'docker.sock'}"
    monkeypatch.setenv("DOCKER_HOST", host)
    for name in ("DOCKER_TLS_VERIFY", "DOCKER_CERT_PATH", "DOCKER_CONTEXT"):
        monkeypatch.delenv(name, raising=False)
    return host


def test_up_without_an_engine_fails_fast_and_creates_nothing(tmp_path: Path, no_engine: str) -> None:
    state_dir = tmp_path / "state"
    jars_dir = tmp_path / "jars"
    artifacts = ComposeArtifacts(tmp_path / "connector.jar", tmp_path / "klink-agent.jar")
    backend = ComposeBackend(state_dir, artifacts=artifacts, jars_dir=jars_dir)
    lines: list[str] = []
    with pytest.raises(KlinkError) as raised:
        backend.up(StackSpec(state_dir=state_dir), progress=lines.append)
    message = str(raised.value)
    assert "\n" not in message and "Docker engine" in message
    assert no_engine in message and "klinkctl up (without --backend compose)" in message
    assert not state_dir.exists() and not jars_dir.exists() and lines == []


def test_status_down_and_endpoints_without_a_started_stack_need_no_engine(tmp_path: Path, no_engine: str) -> None:
    backend = ComposeBackend(tmp_path / "state")
    assert backend.recorded_spec() is None
    assert backend.status() == []
    assert backend.down(purge=True) == []
    assert backend.endpoints().bootstrap_servers == "127.0.0.1:9092"
    assert backend.endpoints().rest_url == "http://127.0.0.1:8081"
    assert not (tmp_path / "state").exists()


def test_status_of_a_recorded_stack_without_an_engine_is_a_one_line_error(tmp_path: Path, no_engine: str) -> None:
    state_dir = tmp_path / "state"
    spec = StackSpec(state_dir=state_dir, rest_port=18081)
    backend = ComposeBackend(state_dir)
    backend._save(spec)
    assert (state_dir / RECORD_FILE).is_file()
    assert ComposeBackend(state_dir).recorded_spec() == spec
    assert ComposeBackend(state_dir).endpoints().rest_url == "http://127.0.0.1:18081"
    with pytest.raises(KlinkError, match="Docker engine") as raised:
        backend.status()
    assert "\n" not in str(raised.value)


def test_compose_environment_writes_the_adaptive_partitioner_as_yaml_true(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr("klinkctl.stack.spec.flink_release", lambda: (2, 3, 0))
    spec = StackSpec(state_dir=tmp_path, adaptive_partitioner=True)
    assert compose_environment(spec)["FLINK_EXTRA_PROPERTIES"] == \
        "taskmanager.network.adaptive-partitioner.enabled: true"
