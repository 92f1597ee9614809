"""Exit codes (klinkctl.errors.ExitCode, README.md "Exit codes") and the --format json output of status,
bench and sweep --dry-run; the stack and the runs are faked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from klinkctl.cli import main
from klinkctl.errors import ExitCode
from klinkctl.run.bench import RunOutcome
from klinkctl.stack.base import ComponentStatus

SWEEP = "workload: ysb\nrepetitions: 2\nfixed: {duration: 10s, warmup: 2s}\ngrid: {rate: [1000, 2000]}\n"


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def test_every_exit_code_means_one_thing():
    assert len({int(code) for code in ExitCode}) == len(ExitCode)


class FakeStack:
    def __init__(self, statuses: list[ComponentStatus]) -> None:
        self.statuses = statuses

    def status(self) -> list[ComponentStatus]:
        return self.statuses


def fake_stack(monkeypatch, *running: bool) -> None:
    statuses = [ComponentStatus(f"component-{n}", up, pid=100 + n) for n, up in enumerate(running)]
    monkeypatch.setattr("klinkctl.stack.backends.detect", lambda state_dir: FakeStack(statuses))


def test_status_without_a_stack_exits_stack_not_running_and_says_so_in_json(tmp_path):
    result = invoke("status", "--state-dir", str(tmp_path), "--format", "json")
    assert result.exit_code == ExitCode.STACK_NOT_RUNNING
    assert json.loads(result.stdout) == {"state_dir": str(tmp_path.resolve()), "healthy": False, "components": []}
    assert "no stack recorded" in result.stderr


def test_status_json_lists_every_component(tmp_path, monkeypatch):
    fake_stack(monkeypatch, True, True)
    result = invoke("status", "--state-dir", str(tmp_path), "--format", "json")
    assert result.exit_code == ExitCode.OK
    document = json.loads(result.stdout)
    assert document["healthy"] is True
    assert [(c["name"], c["running"], c["pid"]) for c in document["components"]] == [
        ("component-0", True, 100), ("component-1", True, 101)]


def test_a_degraded_stack_exits_stack_not_running(tmp_path, monkeypatch):
    fake_stack(monkeypatch, True, False)
    result = invoke("status", "--state-dir", str(tmp_path))
    assert result.exit_code == ExitCode.STACK_NOT_RUNNING
    assert "DEGRADED: 1/2 components running" in result.stdout
    assert "component-1 down" in result.stderr


@pytest.fixture
def fake_bench(tmp_path, monkeypatch):
    def install(status: str) -> dict:
        summary = {"run": "ysb-1", "status": status, "reason": "" if status == "completed" else "the job died"}
        monkeypatch.setattr("klinkctl.stack.running.ensure_stack", lambda *_args, **_kwargs: (object(), {}))
        monkeypatch.setattr("klinkctl.run.bench.run_bench", lambda *_args, **_kwargs: RunOutcome(tmp_path, summary))
        return summary
    return install


def test_bench_json_prints_the_summary(fake_bench):
    summary = fake_bench("completed")
    result = invoke("bench", "ysb", "--format", "json")
    assert result.exit_code == ExitCode.OK, result.output
    assert json.loads(result.stdout) == summary


def test_a_run_that_did_not_complete_exits_run_failed(fake_bench):
    summary = fake_bench("failed")
    result = invoke("bench", "ysb", "--format", "json")
    assert result.exit_code == ExitCode.RUN_FAILED
    assert json.loads(result.stdout) == summary
    assert "error: run failed: the job died" in result.stderr


def test_an_invalid_setting_exits_usage(fake_bench):
    fake_bench("completed")
    assert invoke("bench", "ysb", "--rate", "-5").exit_code == ExitCode.USAGE
    assert invoke("bench", "ysb", "--no-such-option").exit_code == ExitCode.USAGE


def test_capacity_does_not_take_benchs_format_option():
    assert "--format" in invoke("bench", "--help").output
    assert "--format" not in invoke("capacity", "--help").output


def test_sweep_dry_run_json_lists_the_planned_runs(tmp_path):
    path = tmp_path / "grid.yaml"
    path.write_text(SWEEP)
    result = invoke("sweep", str(path), "--dry-run", "--format", "json")
    assert result.exit_code == ExitCode.OK, result.output
    runs = json.loads(result.stdout)
    assert [(run["index"], run["repetition"], run["params"]["rate"]) for run in runs] == [
        (1, 1, 1000), (2, 1, 2000), (3, 2, 1000), (4, 2, 2000)]
    assert all(run["estimated_s"] > 0 and not run["warmup"] for run in runs)


def test_sweep_json_needs_dry_run(tmp_path):
    path = tmp_path / "grid.yaml"
    path.write_text(SWEEP)
    result = invoke("sweep", str(path), "--format", "json")
    assert result.exit_code == ExitCode.USAGE
    assert "needs --dry-run" in result.output


def test_an_os_error_exits_error(tmp_path, monkeypatch):
    def refuse(source: Path, destination_root: Path):
        raise PermissionError(13, "Permission denied", str(destination_root))

    monkeypatch.setattr("klinkctl.cli.archive.archive", refuse)
    result = invoke("archive", str(tmp_path), "--to", str(tmp_path / "out"))
    assert result.exit_code == ExitCode.ERROR
    assert result.stderr.strip() == f"error: Permission denied ({tmp_path / 'out'})"
