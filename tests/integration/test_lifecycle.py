"""Starting and stopping: a failed component is rolled back; down leaves no process behind."""

from __future__ import annotations

import json

import psutil
import pytest

from klinkctl.errors import ExitCode

pytestmark = pytest.mark.integration


def alive(pid: int) -> bool:
    return psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE


def test_down_stops_every_process_and_keeps_data(klinkctl_factory):
    cli = klinkctl_factory()
    assert cli.up().returncode == 0
    pids = [c["pid"] for c in json.loads((cli.state_dir / "stack.json").read_text())["components"]]
    down = cli("down")
    assert down.returncode == 0
    assert "stopped taskmanager-1, jobmanager, kafka" in down.stdout
    assert [pid for pid in pids if alive(pid)] == []
    assert (cli.state_dir / "kafka" / "data" / "meta.properties").is_file()  # kept without --purge
    assert cli("status").returncode == ExitCode.STACK_NOT_RUNNING

    again = cli.up()  # reuses the formatted KRaft storage
    assert again.returncode == 0, again.stderr
    assert cli("down", "--purge").returncode == 0
    assert not cli.state_dir.exists()


def test_a_component_that_fails_to_start_is_named_and_the_rest_stopped(klinkctl_factory):
    cli = klinkctl_factory()
    # 300m cannot hold the TaskManager's metaspace + JVM overhead: Flink refuses to start it.
    result = cli.up("--tm-memory", "300m")
    assert result.returncode != 0
    message = result.stderr.strip().splitlines()[-1]
    assert message.startswith("error: taskmanager-1 failed to start")
    assert "(see " in message and "taskmanager-1" in message
    assert not (cli.state_dir / "stack.json").exists()
    leftovers = [p for p in psutil.process_iter(["cmdline"])
                 if str(cli.state_dir) in " ".join(p.info["cmdline"] or [])]
    assert leftovers == []
