"""`klinkctl up --backend remote` against a real cluster: the shared local stack (its own ports and state dir, its
agents started with control=http://127.0.0.1:<its control port>,stack=<its token>) stands for the existing
cluster, and a second state dir attaches to it with the cluster's token and control port; then the faults."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from klinkctl.stack import flink
from klinkctl.stack.local import LocalBackend
from klinkctl.stack.ports import port_is_free
from klinkctl.stack.remote import RECORD_FILE
from tests.integration.conftest import Klinkctl, free_ports
from tests.integration.test_late_state_bench import SHORT_RUN


@pytest.fixture
def cluster(running_stack: Klinkctl) -> dict[str, str]:
    """How the cluster's operator describes the shared stack: endpoints, the agents' control port and token."""
    kafka, _, _, rest, control = running_stack.ports
    token = LocalBackend(running_stack.state_dir).recorded_spec().stack_token
    return {"--flink-rest": f"http://127.0.0.1:{rest}", "--kafka-bootstrap": f"127.0.0.1:{kafka}",
            "--control-port": str(control), "--stack-token": token}


@pytest.fixture
def attached(tmp_path: Path):
    cli = Klinkctl(tmp_path / "attached", [])
    yield cli
    cli("down")


def _up(cli: Klinkctl, options: dict[str, str]) -> object:
    return cli("up", "--backend", "remote", *[part for pair in options.items() for part in pair], timeout=300)


def _error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error:")]


def test_attaches_runs_smoke_and_a_scheduled_bench_through_it_and_forgets_it(running_stack, cluster, attached,
                                                                            tmp_path):
    result = _up(attached, cluster)
    assert result.returncode == 0, result.stderr
    assert f"flink rest:      {cluster['--flink-rest']}" in result.stdout
    assert f"2 of 2 TaskManager(s) answered on http://127.0.0.1:{cluster['--control-port']} with stack token " \
           f"{cluster['--stack-token']}" in result.stdout

    status = attached("status", "--format", "json")
    assert status.returncode == 0, status.stderr
    components = json.loads(status.stdout)["components"]
    taskmanagers = [c for c in components if c["name"].startswith("taskmanager")]
    assert [c["detail"] for c in taskmanagers] == ["klink-agent loaded"] * 2
    assert {c["name"]: c["pid"] for c in components if c["pid"]} == {}  # no process of its own

    smoke = attached("smoke", "--results", str(tmp_path / "results"), timeout=300)
    assert smoke.returncode == 0, smoke.stdout + smoke.stderr
    assert "smoke: PASSED" in smoke.stdout

    # a scheduled run through the attached cluster: its agents take it over the control channel, and its
    # TaskManagers' CPU and memory come from Flink's REST metrics, as this machine has no process of theirs
    bench = attached("bench", "ysb", "--results", str(tmp_path / "results"), "--queries", "2", "--rate", "500",
                     "--duration", "10s", "--warmup", "3s", "--window", "2s", "--policy", "rr", "--cores", "1",
                     timeout=300)
    assert bench.returncode == 0, bench.stdout + bench.stderr
    (run_dir,) = (p for p in (tmp_path / "results").iterdir() if p.name.startswith("ysb-"))
    assert json.loads((run_dir / "summary.json").read_text())["status"] == "completed"
    assert (pd.read_csv(run_dir / "scheduler.csv")["paused"] > 0).any()
    resources = pd.read_csv(run_dir / "resources.csv")
    from_rest = resources[resources["source"] == "flink-rest"]
    assert from_rest["component"].nunique() == 2 and (from_rest["cpu_percent"] > 0).any()
    assert (from_rest["rss_bytes"] > 0).all()
    assert set(resources.loc[resources["source"] == "procfs", "component"]) == {"generator"}
    # AdCom's controller and instances meet on klinkctl's control channel, not in this machine's run directory
    rides = attached("bench", "rides", "--results", str(tmp_path / "rides"), "--rate", "3000", "--duration", "4s",
                     "--warmup", "1s", "--window", "1s", "--combiner", "adcom", "--combiner-parallelism", "2",
                     timeout=300)
    assert rides.returncode == 0, rides.stdout + rides.stderr
    (rides_dir,) = (tmp_path / "rides").iterdir()
    decisions = pd.read_csv(rides_dir / "combiner.csv")
    assert len(decisions) >= 3 and (decisions["mode"] == "adcom").all()
    assert (decisions["rho"].str.split(";").str.len() == 2).all()  # both instances' buffer use, wherever they ran

    # AION keeps its p-buckets on the TaskManagers' own disks (their io.tmp.dirs) and reports their size as a metric
    aion = attached("bench", "average", "--results", str(tmp_path / "aion"), *SHORT_RUN, "--late-state", "aion",
                    timeout=300)
    assert aion.returncode == 0, aion.stdout + aion.stderr
    (aion_dir,) = (tmp_path / "aion").iterdir()
    late = json.loads((aion_dir / "late-state.json").read_text())
    assert late["windows_checked"] >= 3 and late["windows_equal"] == late["windows_checked"], late["mismatches"]
    assert late["aion"]["destaged"] > 0 and late["max_p_bucket_bytes"] > 0
    assert not (running_stack.state_dir / "flink" / "tmp" / "klink-p-buckets" / aion_dir.name).exists()

    described = tmp_path / "cluster.yaml"  # attaching again is fine; here as the operator describes the cluster
    described.write_text("".join(f"{option.lstrip('-')}: {value}\n" for option, value in cluster.items()))
    again = attached("up", "--backend", "remote", "--cluster", str(described))
    assert again.returncode == 0, again.stderr
    assert f"with stack token {cluster['--stack-token']}" in again.stdout
    down = attached("down")
    assert down.returncode == 0
    assert down.stdout.startswith(f"detached from the cluster at {cluster['--flink-rest']} (klinkctl started nothing")
    assert not (attached.state_dir / RECORD_FILE).exists()
    assert running_stack("status").returncode == 0  # the cluster itself was never touched


def test_agents_of_another_stack_token_are_one_line_after_what_the_operator_must_set(cluster, attached):
    result = _up(attached, {**cluster, "--stack-token": "not-this-cluster"})
    assert result.returncode == 5
    assert _error_lines(result.stderr) == [result.stderr.strip().splitlines()[-1]]
    assert (f"error: the cluster's agents name stack token {cluster['--stack-token']}, not 'not-this-cluster': "
            f"attach with --stack-token {cluster['--stack-token']}") in result.stderr
    assert (f"env.java.opts.taskmanager: -javaagent:/opt/flink/klink/klink-agent.jar=control=http://127.0.0.1:"
            f"{cluster['--control-port']},stack=not-this-cluster") in result.stderr
    assert not (attached.state_dir / RECORD_FILE).exists()
    assert port_is_free("127.0.0.1", int(cluster["--control-port"]))  # the probe stopped listening


def test_agents_that_cannot_reach_klinkctl_are_one_line(cluster, attached):
    elsewhere = str(free_ports(1)[0])  # the agents call the cluster's control port, not this one
    result = _up(attached, {**cluster, "--control-port": elsewhere})
    assert result.returncode == 5
    assert _error_lines(result.stderr) == [
        f"error: 0 of 2 TaskManagers' agents reached klinkctl at http://127.0.0.1:{elsewhere} within 5 s: their "
        "-javaagent option control= must name this address and they must be able to reach it (--host, "
        "--control-port), as printed above"]
    assert "put these jars into lib/" not in result.stderr  # the agent is there: only its options are asked for


@pytest.mark.parametrize("endpoint", ["--flink-rest", "--kafka-bootstrap"])
def test_an_unreachable_endpoint_is_one_line_exit_5_and_nothing_recorded(cluster, attached, endpoint):
    closed = free_ports(1)[0]
    address = f"http://127.0.0.1:{closed}" if endpoint == "--flink-rest" else f"127.0.0.1:{closed}"
    result = _up(attached, {**cluster, endpoint: address})
    assert result.returncode == 5
    assert result.stderr.strip().splitlines() == _error_lines(result.stderr)  # one line, nothing else
    what = "Flink's REST API" if endpoint == "--flink-rest" else "Kafka"
    assert _error_lines(result.stderr)[0].startswith(f"error: {what} does not answer at {address} (")
    assert not (attached.state_dir / RECORD_FILE).exists()


@pytest.fixture
def taskmanager_without_agent(running_stack: Klinkctl, tmp_path: Path):
    """A third TaskManager joined to the shared stack's JobManager as a cluster operator who forgot the agent
    would start it: the stack's own Flink config, but no -javaagent. Stopped (and gone from the JobManager's
    list) before the next test uses the stack."""
    spec = LocalBackend(running_stack.state_dir).recorded_spec()
    conf = tmp_path / "conf-without-agent"
    shutil.copytree(flink.conf_dir(spec), conf)
    config = yaml.safe_load((conf / "config.yaml").read_text())
    config.pop("env.java.opts.taskmanager")
    config["taskmanager.numberOfTaskSlots"] = 1
    (conf / "config.yaml").write_text(yaml.safe_dump(config))
    (tmp_path / "log").mkdir()
    env = {**flink.script_env(spec, tmp_path / "log"), "FLINK_CONF_DIR": str(conf)}
    bare = subprocess.Popen(["bash", str(flink.flink_home() / "bin" / "taskmanager.sh"), "start-foreground",
                             "-D", "taskmanager.resource-id=taskmanager-without-agent"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        _wait_for_taskmanagers(spec, 3)
        yield "taskmanager-without-agent"
    finally:
        bare.terminate()  # a TaskManager that shuts down deregisters from the JobManager
        bare.wait(60)
        _wait_for_taskmanagers(spec, 2)


def _wait_for_taskmanagers(spec, count: int, timeout_s: float = 90) -> None:
    deadline = time.monotonic() + timeout_s
    while flink.registered_taskmanagers(spec) != count:
        assert time.monotonic() < deadline, f"the JobManager does not list {count} TaskManagers"
        time.sleep(0.5)


def test_a_taskmanager_without_the_agent_is_one_line_naming_it_and_nothing_is_recorded(cluster, attached,
                                                                                        taskmanager_without_agent):
    result = _up(attached, cluster)
    assert result.returncode == 5
    assert _error_lines(result.stderr) == [result.stderr.strip().splitlines()[-1]]
    assert (f"error: klink-agent is not loaded on 1 of 3 TaskManager(s) ({taskmanager_without_agent}): the "
            "cluster operator must add it") in result.stderr
    assert "put these jars into lib/" in result.stderr  # what the operator must add, printed above the error
    assert not (attached.state_dir / RECORD_FILE).exists()
    assert port_is_free("127.0.0.1", int(cluster["--control-port"]))
