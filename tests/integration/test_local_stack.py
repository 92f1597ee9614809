"""The local stack for real: up, status, idempotence, loopback only, the smoke job, port clashes, down."""

from __future__ import annotations

import json

import psutil
import pytest

pytestmark = pytest.mark.integration


def recorded_components(cli) -> list[dict]:
    return json.loads((cli.state_dir / "stack.json").read_text())["components"]


def test_up_prints_endpoints_and_a_healthy_summary(running_stack):
    status = running_stack("status")
    assert status.returncode == 0, status.stdout + status.stderr
    for component in ("kafka", "jobmanager", "taskmanager-1", "taskmanager-2"):
        assert component in status.stdout
    assert "healthy: 4/4 components running" in status.stdout


def test_every_taskmanager_carries_the_agent(running_stack):
    status = running_stack("status")
    assert status.stdout.count("klink-agent 0.1.0") == 2


def test_every_listening_socket_is_on_loopback(running_stack):
    listening = []
    for component in recorded_components(running_stack):
        for conn in psutil.Process(component["pid"]).net_connections(kind="inet"):
            if conn.status == psutil.CONN_LISTEN:
                listening.append((component["name"], conn.laddr.ip, conn.laddr.port))
    assert listening, "the stack listens on nothing?"
    exposed = [entry for entry in listening if entry[1] not in ("127.0.0.1", "::ffff:127.0.0.1")]
    assert exposed == []


def test_up_on_a_running_stack_changes_nothing(running_stack):
    before = recorded_components(running_stack)
    again = running_stack.up()
    assert again.returncode == 0
    assert "already running; nothing changed" in again.stdout
    assert recorded_components(running_stack) == before


def test_smoke_job_windows_match_the_exact_counts(running_stack, tmp_path):
    result = running_stack("smoke", "--results", str(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "smoke: PASSED" in result.stdout
    (run_dir,) = tmp_path.iterdir()
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["status"] == "passed"
    assert summary["windows_expected"] == summary["windows_received"] > 0


def test_a_taken_port_is_refused_before_anything_starts(running_stack, klinkctl_factory):
    other = klinkctl_factory()
    clash = other("up", "--kafka-port", str(running_stack.ports[0]), "--kafka-controller-port",
                  str(other.ports[1]), "--rpc-port", str(other.ports[2]), "--rest-port", str(other.ports[3]),
                  "--control-port", str(other.ports[4]))
    assert clash.returncode != 0
    assert f"port {running_stack.ports[0]}" in clash.stderr and "--kafka-port" in clash.stderr
    assert len(clash.stderr.strip().splitlines()) == 1
    assert not (other.state_dir / "stack.json").exists()
