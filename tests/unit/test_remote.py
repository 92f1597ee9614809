"""The remote backend without a cluster: its options, refusals, the agent probe over real loopback HTTP (requests
shaped as the agent's HarnessChannel sends them) and the operator's instructions. Against a real cluster:
tests/integration/test_remote.py."""

from __future__ import annotations

import socket
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from klinkctl.artifacts import Artifacts
from klinkctl.cli import main
from klinkctl.errors import KlinkError, StackNotRunning
from klinkctl.stack import agent_probe, backends, running
from klinkctl.stack.agent_probe import AgentCheck
from klinkctl.stack.local import mark_state_dir
from klinkctl.stack.ports import port_is_free
from klinkctl.stack.remote import (RECORD_FILE, RemoteBackend, agent_java_option, operator_instructions,
                                   read_cluster_file, refuse_remote_options, refuse_unhonoured)
from klinkctl.stack.spec import STACK_OPTIONS, StackSpec, option_name

ENDPOINTS = {"flink_rest": "http://flink.example:8081", "kafka_bootstrap": "kafka.example:9092"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def remote_spec(tmp_path: Path, **overrides) -> StackSpec:
    return StackSpec.build(state_dir=tmp_path / "state", **{**ENDPOINTS, **overrides})


# --- the options --------------------------------------------------------------------------------------
def test_the_endpoints_given_are_the_stacks_and_only_the_control_port_is_this_machines(tmp_path):
    spec = remote_spec(tmp_path, flink_rest="http://flink.example:8081/", control_port=47005)
    assert (spec.remote, spec.rest_url, spec.bootstrap_servers) == (True, "http://flink.example:8081",
                                                                    "kafka.example:9092")
    assert [p.option for p in spec.ports()] == ["--control-port"]
    assert not StackSpec.build(state_dir=tmp_path).remote


def test_a_given_stack_token_replaces_the_one_made_from_the_state_dir(tmp_path):
    made = StackSpec.build(state_dir=tmp_path).stack_token
    assert len(made) == 12
    assert StackSpec.build(state_dir=tmp_path, token="lab-cluster_1").stack_token == "lab-cluster_1"


@pytest.mark.parametrize("overrides, message", [
    ({"flink_rest": "http://flink:8081"}, "give both"),
    ({"kafka_bootstrap": "kafka:9092"}, "give both"),
    ({**ENDPOINTS, "flink_rest": "flink:8081"}, "--flink-rest must be http://HOST:PORT"),
    ({**ENDPOINTS, "flink_rest": "https://flink:8081"}, "--flink-rest must be http://HOST:PORT"),
    ({**ENDPOINTS, "flink_rest": "http://flink:8081/ui"}, "--flink-rest must be http://HOST:PORT"),
    ({**ENDPOINTS, "flink_rest": "http://flink:99999"}, "--flink-rest must be http://HOST:PORT"),
    ({**ENDPOINTS, "kafka_bootstrap": "kafka"}, "--kafka-bootstrap must be HOST:PORT"),
    ({**ENDPOINTS, "kafka_bootstrap": "a:1,b"}, "--kafka-bootstrap must be HOST:PORT"),
    ({"token": "a,control=http://evil:1"}, "--stack-token must be at most 64 letters"),
    ({"token": "x" * 65}, "--stack-token must be at most 64 letters"),
])
def test_bad_endpoints_and_tokens_are_one_line_naming_the_option(tmp_path, overrides, message):
    with pytest.raises(KlinkError, match=message):
        StackSpec.build(state_dir=tmp_path, **overrides)


# --- what the remote backend refuses ---------------------------------------------------------------------
HONOURED = {"host", "control_port", "flink_rest", "kafka_bootstrap", "token"}
SAMPLE_VALUES = {"taskmanagers": 1, "slots": 4, "jobmanager_memory": "1024m", "taskmanager_memory": "1536m",
                 "kafka_heap": "512m", "taskmanager_cpus": "0", "taskmanager_cpu_quota": 0.5,
                 "taskmanager_quotas": "1=0.5", "taskmanager_interference": "1=0.5",
                 "taskmanager_link_rates": "",  # a rate needs 2 TaskManagers; given at its default, still refused
                 "adaptive_partitioner": True, "kafka_port": 9092, "kafka_controller_port": 9093,
                 "jobmanager_rpc_port": 6123, "rest_port": 8081, "taskmanager_gc": "serial", "taskmanager_jit": "c1",
                 "taskmanager_jit_cpu": "in-quota",
                 "base_image": "debian:12",
                 "debian_mirror": "http://deb.debian.org/debian"}


@pytest.mark.parametrize("name", [o.name for o in STACK_OPTIONS if o.name not in HONOURED
                                  and o.name != "taskmanager_cgroup_parent"])
def test_every_option_that_sizes_pins_or_places_the_cluster_is_refused_even_at_its_default(tmp_path, name):
    spec = remote_spec(tmp_path, **{name: SAMPLE_VALUES[name]})
    with pytest.raises(KlinkError, match=f"^{option_name(name)}: the remote backend cannot honour it"):
        refuse_unhonoured(spec)


def test_the_options_it_honours_pass_and_missing_endpoints_are_named(tmp_path):
    refuse_unhonoured(remote_spec(tmp_path, host="127.0.0.1", control_port=47005, token="t"))
    with pytest.raises(KlinkError, match="give its --flink-rest http://HOST:PORT and --kafka-bootstrap"):
        refuse_unhonoured(StackSpec.build(state_dir=tmp_path))


@pytest.mark.parametrize("backend", ["local", "compose"])
def test_other_backends_refuse_the_endpoints_of_an_existing_cluster(tmp_path, backend):
    with pytest.raises(KlinkError, match=f"the {backend} backend does not do: add --backend remote"):
        refuse_remote_options(backend, remote_spec(tmp_path))
    refuse_remote_options(backend, StackSpec.build(state_dir=tmp_path))


def _cli(*args: str):
    return CliRunner().invoke(main, list(args))


def test_up_refuses_in_one_line_and_creates_nothing(tmp_path):
    state = tmp_path / "state"
    endpoints = ["--flink-rest", "http://127.0.0.1:1", "--kafka-bootstrap", "127.0.0.1:1"]
    for args, message in [
        (["--backend", "remote", *endpoints, "--tm-cpus", "0"], "error: --tm-cpus: the remote backend cannot honour"),
        (["--backend", "remote", *endpoints, "--taskmanagers", "2", "--rest-port", "8082"],
         "error: --taskmanagers and --rest-port: the remote backend cannot honour them"),
        (["--backend", "remote"], "error: --backend remote attaches to an existing cluster"),
        (endpoints, "error: --flink-rest and --kafka-bootstrap attach to an existing cluster, which the local"),
    ]:
        result = _cli("up", "--state-dir", str(state), *args)
        assert result.exit_code == 2, result.output
        assert result.output.strip().startswith(message) and len(result.output.strip().splitlines()) == 1
    assert not state.exists()


def test_an_unreachable_flink_is_one_line_and_leaves_nothing_listening_or_recorded(tmp_path):
    closed, control = _free_port(), _free_port()
    spec = StackSpec.build(state_dir=tmp_path, flink_rest=f"http://127.0.0.1:{closed}",
                           kafka_bootstrap=f"127.0.0.1:{closed}", control_port=control)
    with pytest.raises(StackNotRunning, match=f"Flink's REST API does not answer at http://127.0.0.1:{closed}"):
        RemoteBackend(tmp_path).up(spec)
    assert not (tmp_path / RECORD_FILE).exists()
    assert port_is_free("127.0.0.1", control)


def test_without_a_record_status_is_empty_down_is_harmless_and_detect_finds_a_record(tmp_path):
    backend = RemoteBackend(tmp_path)
    assert backend.status() == [] and backend.down() == [] and backend.notes() == []
    (tmp_path / RECORD_FILE).write_text('{"backend": "remote", "spec": %s}' % remote_spec(tmp_path).model_dump_json())
    assert backends.detect(tmp_path).name == "remote"
    assert backend.endpoints().rest_url == "http://flink.example:8081"
    backend.down()
    assert backends.detect(tmp_path) is None


# --- the probe ------------------------------------------------------------------------------------------
def _poll(port: int, stack: str, agent: str) -> int:
    url = f"http://127.0.0.1:{port}/control?stack={stack}&agent={agent}&version=0.1.0"
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            assert response.read() == b""  # as an idle klinkctl: nothing to run
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def _agents_poll(port: int, calls: list[tuple[str, str]], answers: list[int]) -> threading.Thread:
    def run() -> None:
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            try:
                answers.extend(_poll(port, stack, agent) for stack, agent in calls)
                return
            except urllib.error.URLError:
                time.sleep(0.05)  # the probe is not listening yet
    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_the_probe_hears_each_agent_with_its_token_and_stops_once_all_answered():
    port, answers = _free_port(), []
    agents = _agents_poll(port, [("other", "tm9:1"), ("tok", "tm1:7"), ("tok", "tm2:8")], answers)
    started = time.monotonic()
    heard = agent_probe.listen("127.0.0.1", port, "tok", expected=2, wait_s=10)
    agents.join()
    assert time.monotonic() - started < 5
    assert heard == {"tm9:1": "other", "tm1:7": "tok", "tm2:8": "tok"}
    assert answers == [409, 200, 200]
    assert port_is_free("127.0.0.1", port)  # closed on return


def test_a_taken_control_port_is_one_line_naming_the_option():
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        with pytest.raises(KlinkError, match="choose another --control-port"):
            agent_probe.listen("127.0.0.1", holder.getsockname()[1], "tok", expected=1, wait_s=0.1)


@pytest.mark.parametrize("loaded, heard, expected", [
    ({"tm-a": True, "tm-b": True}, {"h:1": "tok", "h:2": "tok"}, None),
    ({"tm-a": True, "tm-b": None}, {"h:1": "tok", "h:2": "tok"}, None),
    ({"tm-a": True, "tm-b": False}, {"h:1": "tok"},
     "klink-agent is not loaded on 1 of 2 TaskManager(s) (tm-b): the cluster operator must add it"),
    ({"tm-a": True, "tm-b": True}, {"h:1": "old", "h:2": "old"},
     "the cluster's agents name stack token old, not 'tok': attach with --stack-token old"),
    ({"tm-a": True, "tm-b": True}, {"h:1": "tok"},
     "1 of 2 TaskManagers' agents reached klinkctl at http://10.0.0.5:8090 within 5 s"),
])
def test_what_is_missing_is_one_line(loaded, heard, expected):
    check = AgentCheck(["tm-a", "tm-b"], loaded, heard, token="tok", control_url="http://10.0.0.5:8090")
    assert check.problem() == expected if expected is None else check.problem().startswith(expected)
    if expected:
        assert "\n" not in check.problem()


# --- what the operator must add ---------------------------------------------------------------------------
def _jars(tmp_path: Path) -> Artifacts:
    return Artifacts(Path(), tmp_path / "flink-sql-connector-kafka-5.0.jar", tmp_path / "klink-agent.jar",
                     (tmp_path / "klink-workloads.jar", tmp_path / "klink-metrics.jar"))


def test_the_operator_gets_the_exact_agent_line_and_the_jars_for_lib(tmp_path):
    spec = remote_spec(tmp_path, host="10.0.0.5", control_port=47005, token="lab1")
    text = operator_instructions(spec, _jars(tmp_path))
    assert ("     env.java.opts.taskmanager: -javaagent:/opt/flink/klink/klink-agent.jar="
            "control=http://10.0.0.5:47005,stack=lab1") in text.splitlines()
    assert agent_java_option(spec) in text
    for jar in ("flink-sql-connector-kafka-5.0.jar", "klink-workloads.jar", "klink-metrics.jar"):
        assert f"     {tmp_path / jar}" in text.splitlines()
    assert any(line.strip().endswith(".jar") and "flink-python-" in line for line in text.splitlines())
    assert f"copy {tmp_path / 'klink-agent.jar'} to /opt/flink/klink/klink-agent.jar" in text


def test_with_the_agent_everywhere_only_its_options_are_asked_for(tmp_path):
    spec = remote_spec(tmp_path, control_port=47005, token="lab1")
    text = operator_instructions(spec, _jars(tmp_path), agent_loaded=True)
    assert "lib/" not in text and "control=http://127.0.0.1:47005,stack=lab1" in text


def test_netem_on_the_generator_is_refused_on_an_attached_cluster(tmp_path):
    (tmp_path / RECORD_FILE).write_text('{"backend": "remote", "spec": %s}' % remote_spec(tmp_path).model_dump_json())
    result = _cli("netem", "apply", "--state-dir", str(tmp_path), "--delay", "10ms")
    assert result.exit_code == 2
    assert result.output.strip().startswith("error: --target generator relays a Kafka broker on this machine")


def test_an_attached_cluster_that_does_not_answer_is_one_line_never_replaced_by_a_local_stack(tmp_path):
    closed = _free_port()
    spec = StackSpec.build(state_dir=tmp_path, flink_rest=f"http://127.0.0.1:{closed}",
                           kafka_bootstrap=f"127.0.0.1:{closed}")
    (tmp_path / RECORD_FILE).write_text('{"backend": "remote", "spec": %s, "taskmanagers": ["tm-a"]}'
                                        % spec.model_dump_json())
    with pytest.raises(StackNotRunning, match=r"does not answer fully \(kafka, jobmanager, taskmanager tm-a down\)"):
        running.ensure_stack(tmp_path)
    assert backends.detect(tmp_path).name == "remote" and not (tmp_path / "stack.json").exists()


def test_down_purge_removes_what_up_wrote_and_nothing_else(tmp_path):
    state = tmp_path / "state"
    mark_state_dir(state)
    (state / "flink").mkdir()
    (state / "remote-agent-setup.txt").write_text("add the agent\n")
    (state / RECORD_FILE).write_text('{"backend": "remote", "spec": %s}' % remote_spec(tmp_path).model_dump_json())
    RemoteBackend(state).down(purge=True)
    assert not state.exists()


def test_a_cluster_file_gives_the_options_by_their_names_and_the_command_line_wins(tmp_path):
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text("flink-rest: http://flink.lab:8081\nkafka_bootstrap: kafka.lab:9092\nstack-token: lab1\n"
                       "control-port: 47005\n")
    assert read_cluster_file(cluster) == {"flink_rest": "http://flink.lab:8081", "kafka_bootstrap": "kafka.lab:9092",
                                          "token": "lab1", "control_port": 47005}
    result = _cli("up", "--state-dir", str(tmp_path / "state"), "--cluster", str(cluster), "--stack-token", "x")
    assert result.output.startswith("error: --flink-rest and --kafka-bootstrap attach to an existing cluster")


@pytest.mark.parametrize("text, message", [
    ("flink-rest: [", "is not valid YAML"),
    ("- http://flink:8081", "must be a mapping like `flink-rest: http://HOST:PORT`, got list"),
    ("flink-rst: http://flink:8081", "unknown setting 'flink-rst' in the cluster file .*did you mean 'flink-rest'"),
])
def test_a_bad_cluster_file_is_one_line(tmp_path, text, message):
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(text)
    with pytest.raises(KlinkError, match=message):
        read_cluster_file(cluster)
    result = _cli("up", "--state-dir", str(tmp_path / "state"), "--backend", "remote", "--cluster", str(cluster))
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1


def test_a_cluster_file_cannot_size_the_cluster_either(tmp_path):
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text("flink-rest: http://127.0.0.1:1\nkafka-bootstrap: 127.0.0.1:1\ntaskmanagers: 3\n")
    result = _cli("up", "--state-dir", str(tmp_path / "state"), "--backend", "remote", "--cluster", str(cluster))
    assert result.exit_code == 2
    assert result.output.strip() == ("error: --taskmanagers: the remote backend cannot honour it (it starts nothing; "
                                     "the existing cluster's operator sets its sizes, cores and ports); leave it out")
