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


def test_a_stack_that_lost_its_taskmanager_restarts_with_its_settings_and_runs_jobs_again(klinkctl_factory,
                                                                                          tmp_path):
    """What a sweep with on-lost-taskmanager: restart does after a run lost its TaskManager (e.g. out of heap):
    here the TaskManager is killed outright, the hardest case."""
    import os
    import signal
    import time

    from klinkctl.stack import flink
    from klinkctl.stack.local import LocalBackend

    cli = klinkctl_factory()
    assert cli.up("--tm-cpus", "1", "--tm-memory", "1024m", "--jm-memory", "768m").returncode == 0
    backend = LocalBackend(cli.state_dir)
    spec = backend.recorded_spec()
    old = next(c for c in backend.recorded_components() if c.name == "taskmanager-1")
    os.kill(old.pid, signal.SIGKILL)
    deadline = time.monotonic() + 120
    while flink.registered_taskmanagers(spec) != 0 and time.monotonic() < deadline:
        time.sleep(1)
    assert flink.registered_taskmanagers(spec) == 0, "the JobManager never noticed the TaskManager was gone"

    pids = backend.restart()
    new = next(c for c in backend.recorded_components() if c.name == "taskmanager-1")
    assert pids["taskmanager-1"] == new.pid != old.pid and alive(new.pid)
    assert backend.recorded_spec() == spec and flink.registered_taskmanagers(spec) == 1
    assert psutil.Process(new.pid).cpu_affinity() == [1]  # pinned as `up --tm-cpus 1` asked
    status = cli("status")
    assert status.returncode == 0 and "3/3 components running" in status.stdout, status.stdout + status.stderr
    bench = cli("bench", "ysb", "--queries", "1", "--rate", "1000", "--duration", "8s", "--warmup", "2s",
                "--window", "2s", "--results", str(tmp_path), timeout=240)
    assert bench.returncode == 0 and "status: completed" in bench.stdout, bench.stdout + bench.stderr
    (summary_file,) = tmp_path.glob("*/summary.json")
    throughput = json.loads(summary_file.read_text())["throughput"]
    assert throughput["flink_source_records_per_s"] > 500  # the JobManager's metrics are the new TaskManager's
