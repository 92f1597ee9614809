"""The compose backend on a real Docker engine: `up` builds its image from Debian packages (cached per engine), then
`smoke` and a Klink `bench` run on containers, a second state dir attaches to them as to an existing cluster
(`--backend remote`), and `down` leaves no container behind.

Without a reachable engine the test starts one where it can (root, Debian's docker.io installed): a private
dockerd with its own socket, no bridge and no iptables rules (the stack uses the host's network), whose images are
kept under klinkctl's cache dir, so the image is built once per machine. Elsewhere it is skipped, saying why.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest

from klinkctl.paths import cache_dir
from klinkctl.stack.compose import STACK_LABEL, ComposeBackend
from tests.integration.conftest import Klinkctl

ENGINE_START_S = 60


def _engine_groups() -> set[Path]:
    """The cgroups a dockerd makes for its containers (one per cgroup v1 hierarchy)."""
    return set(Path("/sys/fs/cgroup").glob("*/docker"))


def _reachable() -> bool:
    from klinkctl.errors import KlinkError
    from klinkctl.stack.docker_engine import docker_client

    try:
        docker_client().close()
        return True
    except KlinkError:
        return False


@pytest.fixture(scope="module")
def docker_engine(tmp_path_factory):
    """A reachable engine's client: the caller's, or a private dockerd this fixture starts and stops."""
    import docker

    if _reachable():
        yield docker.from_env()
        return
    if os.geteuid() != 0 or shutil.which("dockerd") is None:
        pytest.skip("no Docker engine reachable, and none can be started here (needs root and dockerd: "
                    "apt-get install docker.io)")
    run = tmp_path_factory.mktemp("dockerd")
    socket = f"unix://{run / 'docker.sock'}"
    groups_before = _engine_groups()
    with (run / "dockerd.log").open("w") as log:
        engine = subprocess.Popen(
            ["dockerd", "--host", socket, "--data-root", str(cache_dir() / "dockerd"), "--exec-root", str(run / "exec"),
             "--pidfile", str(run / "docker.pid"), "--bridge", "none", "--iptables=false", "--ip6tables=false"],
            stdout=log, stderr=subprocess.STDOUT)
    os.environ["DOCKER_HOST"] = socket
    try:
        deadline = time.monotonic() + ENGINE_START_S
        while not _reachable():
            assert engine.poll() is None and time.monotonic() < deadline, (run / "dockerd.log").read_text()[-2000:]
            time.sleep(0.5)
        yield docker.from_env()
    finally:
        del os.environ["DOCKER_HOST"]
        engine.terminate()
        engine.wait(timeout=60)
        _unmount_under(run)  # dockerd leaves its network namespace's mount in the exec root
        for group in _engine_groups() - groups_before:  # the private engine's, empty now: not left behind
            try:
                group.rmdir()
            except OSError:
                pass  # one hierarchy seen twice (cpu and cpuacct), or still in use


def _unmount_under(directory: Path) -> None:
    mounts = [line.split()[1] for line in Path("/proc/mounts").read_text().splitlines()]
    for mount in sorted((m for m in mounts if m.startswith(f"{directory}/")), reverse=True):
        subprocess.run(["umount", mount], check=False)


def _containers(client, cli) -> list:
    from klinkctl.stack.spec import StackSpec

    token = StackSpec(state_dir=cli.state_dir).stack_token
    return client.containers.list(all=True, filters={"label": f"{STACK_LABEL}={token}"})


def test_smoke_and_a_klink_bench_run_on_containers(docker_engine, klinkctl_factory, tmp_path: Path) -> None:
    cli = klinkctl_factory()
    up = cli.up("--backend", "compose", "--taskmanagers", "2", "--tm-cpus", "1", "--tm-quota", "1=0.5,2=0.5",
                "--tm-memory", "1024m", "--jm-memory", "768m")
    assert up.returncode == 0, up.stdout + up.stderr
    containers = {c.labels["io.klink.component"]: c for c in _containers(docker_engine, cli)}
    assert sorted(containers) == ["jobmanager", "kafka", "taskmanager-1", "taskmanager-2"]
    for name in ("taskmanager-1", "taskmanager-2"):  # the engine pins and caps each TaskManager
        host = containers[name].attrs["HostConfig"]
        assert (host["CpusetCpus"], host["CpuQuota"], host["CpuPeriod"]) == ("1", 5000, 10000)
        assert host["NetworkMode"] == "host" and host["PidMode"] == "host"
    status = cli("status")
    assert status.returncode == 0 and "4/4 components running" in status.stdout, status.stdout
    assert status.stdout.count("klink-agent") == 2  # each agent's status file, keyed by its host pid

    smoke = cli("smoke", timeout=240)
    assert smoke.returncode == 0 and "smoke: PASSED" in smoke.stdout, smoke.stdout + smoke.stderr

    bench = cli("bench", "ysb", "--policy", "klink", "--queries", "2", "--rate", "1000", "--duration", "10s",
                "--warmup", "3s", "--results", str(tmp_path / "results"), timeout=240)
    assert bench.returncode == 0, bench.stdout + bench.stderr
    run_dir = next((tmp_path / "results").glob("ysb-klink-*"))
    agents = json.loads((run_dir / "agents.json").read_text())
    assert len(agents) == 2 and all(a["took_run"] and a["done"] for a in agents.values()), agents  # over the channel
    assert len((run_dir / "scheduler.csv").read_text().splitlines()) > 10
    resources = pd.read_csv(run_dir / "resources.csv")  # containers from the engine's stats, the generator from procfs
    sources = resources.groupby("component")["source"].agg(set).to_dict()
    assert sources == {**{name: {"docker"} for name in containers}, "generator": {"procfs"}}, sources
    taskmanagers = resources[resources["component"].str.startswith("taskmanager")]
    assert (taskmanagers.groupby("component")["cpu_percent"].max() > 1).all()  # each ran its tasks
    assert (taskmanagers.groupby("component")["cpu_percent"].median() <= 50 * 1.2).all()  # within its quota of 0.5
    assert (taskmanagers["rss_bytes"] > 100 * 2**20).all()

    # the containers as a cluster someone else started: a second state dir attaches and finds both agents
    kafka, _, _, rest, control = cli.ports
    attached = Klinkctl(tmp_path / "attached", [])
    attach = attached("up", "--backend", "remote", "--flink-rest", f"http://127.0.0.1:{rest}", "--kafka-bootstrap",
                      f"127.0.0.1:{kafka}", "--control-port", str(control), "--stack-token",
                      ComposeBackend(cli.state_dir).recorded_spec().stack_token, timeout=300)
    assert attach.returncode == 0, attach.stdout + attach.stderr
    assert "2 of 2 TaskManager(s) answered" in attach.stdout
    assert attached("down").returncode == 0

    down = cli("down")
    assert down.returncode == 0, down.stderr
    assert _containers(docker_engine, cli) == []


def test_an_image_build_that_fails_half_way_leaves_nothing(docker_engine, klinkctl_factory) -> None:
    cli = klinkctl_factory()
    up = cli.up("--backend", "compose", "--debian-mirror", "http://127.0.0.1:9/debian")
    assert up.returncode != 0
    lines = up.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: debootstrap failed") and "nothing was imported" in lines[0]
    assert not (cli.state_dir / "stack.json").exists() and _containers(docker_engine, cli) == []
    from docker.errors import ImageNotFound

    from klinkctl.stack.container_image import built_tag
    from klinkctl.stack.spec import StackSpec

    with pytest.raises(ImageNotFound):  # the import is the last step: no half-built image
        docker_engine.images.get(built_tag(StackSpec(state_dir=cli.state_dir, debian_mirror="http://127.0.0.1:9/debian")))


def test_a_base_image_that_is_not_there_is_one_line(docker_engine, klinkctl_factory) -> None:
    cli = klinkctl_factory()
    up = cli.up("--backend", "compose", "--base-image", "klinkctl-no-such-image:1")
    assert up.returncode != 0
    lines = up.stderr.strip().splitlines()
    assert len(lines) == 1 and "--base-image klinkctl-no-such-image:1: not on the engine and not pullable" in lines[0]
    assert _containers(docker_engine, cli) == []
