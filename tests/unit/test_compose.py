"""The compose backend's logic, without a Docker engine (tests/integration/test_compose_backend.py runs it on one)."""

from __future__ import annotations

from pathlib import Path

import pytest

from klinkctl.artifacts import Artifacts
from klinkctl.errors import KlinkError
from klinkctl.stack import backends
from klinkctl.stack.compose import ComposeBackend, _mounts, container_env, placement
from klinkctl.stack.container_image import built_tag
from klinkctl.stack.local import LocalBackend
from klinkctl.stack.spec import StackSpec


def spec(tmp_path: Path, **options) -> StackSpec:
    return StackSpec(state_dir=tmp_path / "state", **options)


def test_only_taskmanagers_are_placed(tmp_path: Path) -> None:
    pinned = spec(tmp_path, taskmanager_cpus="1", taskmanager_cpu_quota=0.5)
    assert placement(pinned, "kafka") == {} and placement(pinned, "jobmanager") == {}
    assert placement(pinned, "taskmanager-1") == {"cpuset_cpus": "1", "cpu_period": 10_000, "cpu_quota": 5_000}


def test_each_taskmanager_gets_its_own_quota(tmp_path: Path) -> None:
    two = spec(tmp_path, taskmanagers=2, taskmanager_quotas="1=0.25,2=0.5")
    assert placement(two, "taskmanager-1") == {"cpu_period": 10_000, "cpu_quota": 2_500}
    assert placement(two, "taskmanager-2") == {"cpu_period": 10_000, "cpu_quota": 5_000}
    assert placement(spec(tmp_path, taskmanagers=2), "taskmanager-2") == {}


def test_a_shared_quota_over_several_taskmanagers_is_a_parent_group(tmp_path: Path, monkeypatch) -> None:
    made: list[tuple] = []
    monkeypatch.setattr("klinkctl.stack.compose.cpu_quota_group", lambda *args: made.append(args))
    shared = spec(tmp_path, taskmanagers=2, taskmanager_cpu_quota=0.5)
    settings = placement(shared, "taskmanager-2")
    assert settings == {"cgroup_parent": "/" + shared.taskmanager_cgroup}  # no quota of its own: the group's
    assert made == [(shared.taskmanager_cgroup, 0.5, "--tm-cpu-quota")]


def test_the_container_gets_flinks_variables_and_nothing_else_of_the_callers_environment(tmp_path: Path) -> None:
    env = {"FLINK_CONF_DIR": "/s/conf", "FLINK_LOG_DIR": "/s/logs", "AWS_SECRET": "x", "PATH": "/host/bin"}
    got = container_env(env, tmp_path)
    assert got["FLINK_CONF_DIR"] == "/s/conf" and got["FLINK_LOG_DIR"] == "/s/logs"
    assert "AWS_SECRET" not in got and got["PATH"].startswith("/usr/local/sbin") and got["HOME"] == str(tmp_path)


def test_mounts_are_the_state_dir_writable_and_flink_and_the_jars_read_only(tmp_path: Path, monkeypatch) -> None:
    home, cache = tmp_path / "pyflink", tmp_path / "cache" / "connector"
    cache.mkdir(parents=True)
    (cache / "connector.jar").touch()
    monkeypatch.setattr("klinkctl.stack.flink.flink_home", lambda: home)
    stack = spec(tmp_path)
    lib = stack.state_dir / "flink" / "lib"
    lib.mkdir(parents=True)
    (lib / "connector.jar").symlink_to(cache / "connector.jar")
    (lib / "ours.jar").touch()  # copied, not linked: inside the state dir
    jars = Artifacts(tmp_path / "kafka-libs", cache / "connector.jar", tmp_path / "agent.jar", ())
    mounts = _mounts(stack, jars)
    assert mounts[str(stack.state_dir.resolve())]["mode"] == "rw"
    read_only = {path for path, bind in mounts.items() if bind["mode"] == "ro"}
    assert read_only == {str(home), str(tmp_path / "kafka-libs"), str(cache)}
    assert all(bind["bind"] == path for path, bind in mounts.items())  # the same paths inside


def test_the_built_image_is_tagged_by_its_recipe(tmp_path: Path) -> None:
    default = built_tag(spec(tmp_path))
    assert default.startswith("klinkctl-base:bookworm-") and default == built_tag(spec(tmp_path))
    assert built_tag(spec(tmp_path, debian_mirror="http://mirror.example/debian")) != default


@pytest.mark.parametrize("option, value, named", [("base_image", "debian:12", "--base-image"),
                                                  ("debian_mirror", "http://m/debian", "--debian-mirror")])
def test_the_local_backend_refuses_the_image_options(tmp_path: Path, option: str, value: str, named: str) -> None:
    with pytest.raises(KlinkError, match=f"^{named}: the local backend cannot honour it") as raised:
        LocalBackend(tmp_path / "state").check(spec(tmp_path, **{option: value}))
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize("options, named", [({"taskmanager_interference": "1=0.5"}, "--tm-interference"),
                                             ({"taskmanager_cgroup_parent": "/sys/fs/cgroup/lab"}, "--tm-cgroup"),
                                             ({"taskmanagers": 2, "taskmanager_link_rates": "2=20mbit"},
                                              "--tm-link-rate")])
def test_compose_refuses_what_it_cannot_honour_before_anything(tmp_path: Path, options, named, monkeypatch) -> None:
    monkeypatch.setattr("klinkctl.stack.spec.check_delegated", lambda *args: None)
    state = tmp_path / "state"
    with pytest.raises(KlinkError, match=f"^{named}: the compose backend cannot honour it"):
        ComposeBackend(state).up(spec(tmp_path, taskmanager_cpu_quota=0.5, **options))
    assert not state.exists()


@pytest.fixture
def no_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    host = f"unix://{tmp_path / 'no-such-dir' / 'docker.sock'}"
    monkeypatch.setenv("DOCKER_HOST", host)
    for name in ("DOCKER_TLS_VERIFY", "DOCKER_CERT_PATH", "DOCKER_CONTEXT"):
        monkeypatch.delenv(name, raising=False)
    return host


def test_up_without_an_engine_fails_fast_and_creates_nothing(tmp_path: Path, no_engine: str) -> None:
    state_dir = tmp_path / "state"
    lines: list[str] = []
    with pytest.raises(KlinkError) as raised:
        ComposeBackend(state_dir).up(StackSpec(state_dir=state_dir), progress=lines.append)
    message = str(raised.value)
    assert "\n" not in message and "Docker engine" in message
    assert no_engine in message and "klinkctl up (without --backend compose)" in message
    assert not state_dir.exists() and lines == []


def test_status_down_and_endpoints_without_a_started_stack_need_no_engine(tmp_path: Path, no_engine: str) -> None:
    backend = ComposeBackend(tmp_path / "state")
    assert backend.recorded_spec() is None
    assert backend.status() == [] and backend.down() == []
    assert backend.endpoints().rest_url == "http://127.0.0.1:8081"


def test_the_record_names_its_backend_and_the_other_one_refuses_it(tmp_path: Path) -> None:
    state_dir = tmp_path / "state"
    ComposeBackend(state_dir)._save(StackSpec(state_dir=state_dir, rest_port=18081), [])
    found = backends.detect(state_dir)
    assert isinstance(found, ComposeBackend) and found.recorded_spec().rest_port == 18081
    with pytest.raises(KlinkError, match="was started with --backend compose; run `klinkctl down` first"):
        LocalBackend(state_dir).recorded_spec()


def test_down_without_the_engine_stops_what_still_runs_and_forgets_the_stack(tmp_path: Path, no_engine: str) -> None:
    from klinkctl.stack.processes import is_running, launch

    state_dir = tmp_path / "state"
    proc, record = launch("taskmanager-1", ["sleep", "60"], {}, tmp_path / "tm.log")
    component = type(record)(**{**record.to_dict(), "container": "0123abcd"})  # its container's engine is gone
    backend = ComposeBackend(state_dir)
    backend._save(StackSpec(state_dir=state_dir), [component])
    assert backend.down() == ["taskmanager-1"]
    proc.wait(timeout=10)
    assert proc.returncode == -9 and not is_running(component) and backend.recorded_spec() is None
