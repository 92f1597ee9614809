"""`klinkctl sweep`'s on-lost-taskmanager: a run that lost TaskManagers, or whose job ran out of heap while its
TaskManager stayed up, is followed by a restart of the stack (restart, recorded in restarts.csv) or ends the sweep
(stop). run_bench is the fake of test_sweep.py; the stack's health and its restart are stubbed."""

from __future__ import annotations

import pandas as pd
import pytest
from click.testing import CliRunner

from klinkctl.cli import main
from klinkctl.errors import ExitCode, KlinkError
from klinkctl.run import sweep as sweeps
from klinkctl.run import sweep_plan
from tests.unit.test_sweep import GRID_2X3, STACK, fake_bench, new_sweep, read_index, sweep_file  # noqa: F401

OUT_OF_HEAP = "job 9 ended as FAILED: java.lang.OutOfMemoryError: Java heap space"
HEAP_PROBLEM = "run 2's job ran out of heap (java.lang.OutOfMemoryError)"


def test_lost_taskmanagers_are_restarted_before_the_next_run_and_recorded(tmp_path, fake_bench, monkeypatch):
    fake_bench()
    sweep = new_sweep(tmp_path)
    lost = iter([False, False, True] + [False] * 20)  # the second run lost them
    monkeypatch.setattr(sweeps, "lost_taskmanagers", lambda spec: next(lost))
    problems = iter([None, None, "only 0 of 1 TaskManagers are registered with the JobManager"] + [None] * 20)
    monkeypatch.setattr(sweeps, "stack_problem", lambda spec: next(problems))
    processes = {"kafka": 1, "taskmanager-1": 2}
    outcome = sweeps.run_sweep(sweep, STACK, processes, restart=lambda: {"kafka": 1, "taskmanager-1": 9})
    assert outcome.restarts == 1 and outcome.stack_down is None
    assert processes["taskmanager-1"] == 9  # the resource sampler follows the new TaskManager
    assert {row["status"] for row in read_index(sweep.directory)} == {"completed"}
    restarts = pd.read_csv(sweep.directory / sweeps.RESTARTS_FILE)
    assert restarts[["before_run", "problem"]].to_dict("records") == [
        {"before_run": 3, "problem": "only 0 of 1 TaskManagers are registered with the JobManager"}]


def test_without_restart_lost_taskmanagers_stop_the_sweep(tmp_path, fake_bench, monkeypatch):
    fake_bench()
    sweep = new_sweep(tmp_path)
    monkeypatch.setattr(sweeps, "lost_taskmanagers", lambda spec: pytest.fail("not asked without a restart"))
    monkeypatch.setattr(sweeps, "stack_problem", lambda spec: "only 0 of 1 TaskManagers are registered")
    assert sweeps.run_sweep(sweep, STACK, {}).stack_down == "only 0 of 1 TaskManagers are registered"
    assert not (sweep.directory / sweeps.RESTARTS_FILE).exists()


def test_on_lost_taskmanager_is_stop_or_restart_and_kept_in_sweep_yaml(tmp_path):
    spec, _ = sweep_plan.read_sweep_file(sweep_file(tmp_path, "workload: ysb\non-lost-taskmanager: restart\n"
                                                              "grid: {rate: [10]}"))
    assert spec.on_lost_taskmanager == "restart" and spec.to_dict()["on-lost-taskmanager"] == "restart"
    assert sweep_plan.read_sweep_file(sweep_file(tmp_path, "workload: ysb\ngrid: {rate: [10]}"))[0] \
        .on_lost_taskmanager == "stop"
    with pytest.raises(KlinkError, match="on-lost-taskmanager 'sometimes'; valid: stop, restart"):
        sweep_plan.read_sweep_file(sweep_file(tmp_path, "workload: ysb\non-lost-taskmanager: sometimes\n"
                                                        "grid: {rate: [10]}"))


def test_only_the_local_stack_has_its_taskmanagers_restarted(monkeypatch, tmp_path):
    from klinkctl.stack import backends, running
    from klinkctl.stack.spec import StackSpec

    class Remote:
        name = "remote"
    monkeypatch.setattr(backends, "detect", lambda state_dir: Remote())
    with pytest.raises(KlinkError, match="^on-lost-taskmanager: restart needs the local stack"):
        running.taskmanager_restarter(StackSpec(state_dir=tmp_path))
    with pytest.raises(KlinkError, match="^--on-lost-taskmanager restart needs .* use --on-lost-taskmanager stop$"):
        running.taskmanager_restarter(StackSpec(state_dir=tmp_path), asked_by="--on-lost-taskmanager restart")


# --- a job out of heap, its TaskManager still up -----------------------------------------------------------


@pytest.mark.parametrize("stack_problem, recorded", [
    (None, HEAP_PROBLEM),  # the TaskManager stayed up: the JobManager sees nothing wrong
    ("only 0 of 1 TaskManagers are registered", f"{HEAP_PROBLEM}; only 0 of 1 TaskManagers are registered"),
])
def test_a_job_out_of_heap_restarts_the_stack_before_the_next_run_and_is_recorded(
        tmp_path, fake_bench, monkeypatch, stack_problem, recorded):
    fake = fake_bench({2: "failed"}, reasons={2: OUT_OF_HEAP})
    sweep = new_sweep(tmp_path)
    monkeypatch.setattr(sweeps, "lost_taskmanagers", lambda spec: False)
    problems = iter([None, None, stack_problem] + [None] * 20)
    monkeypatch.setattr(sweeps, "stack_problem", lambda spec: next(problems))
    processes = {"kafka": 1, "taskmanager-1": 2}
    restarted_before: list[int] = []

    def restart() -> dict[str, int]:
        restarted_before.append(len(fake.calls) + 1)
        return {"kafka": 1, "taskmanager-1": 9}

    outcome = sweeps.run_sweep(sweep, STACK, processes, restart=restart)
    assert outcome.restarts == 1 and outcome.stack_down is None and restarted_before == [3]
    assert processes["taskmanager-1"] == 9 and len(fake.calls) == 12
    statuses = [(row["status"], row["reason"]) for row in read_index(sweep.directory)]
    assert statuses[1] == ("failed", OUT_OF_HEAP) and {s for s, _ in statuses[2:]} == {"completed"}
    restarts = pd.read_csv(sweep.directory / sweeps.RESTARTS_FILE)
    assert restarts[["before_run", "problem"]].to_dict("records") == [{"before_run": 3, "problem": recorded}]


def test_without_restart_a_job_out_of_heap_stops_the_sweep_and_names_the_option(tmp_path, fake_bench, monkeypatch):
    fake = fake_bench({2: "failed"}, reasons={2: OUT_OF_HEAP})
    sweep = new_sweep(tmp_path)
    monkeypatch.setattr(sweeps, "lost_taskmanagers", lambda spec: pytest.fail("not asked without a restart"))
    outcome = sweeps.run_sweep(sweep, STACK, {})
    assert outcome.stack_down.startswith(f"{HEAP_PROBLEM}: its TaskManager is not trusted with the next run")
    assert "`on-lost-taskmanager: restart`" in outcome.stack_down and len(fake.calls) == 2
    assert [row["status"] for row in read_index(sweep.directory)][:3] == ["completed", "failed", "pending"]
    assert not (sweep.directory / sweeps.RESTARTS_FILE).exists()


def test_a_run_failed_for_another_reason_neither_restarts_nor_stops_the_sweep(tmp_path, fake_bench, monkeypatch):
    fake_bench({2: "failed"}, reasons={2: "job 9 ended as FAILED: java.io.IOException: disk full"})
    sweep = new_sweep(tmp_path)
    monkeypatch.setattr(sweeps, "lost_taskmanagers", lambda spec: False)
    outcome = sweeps.run_sweep(sweep, STACK, {}, restart=lambda: pytest.fail("nothing to restart"))
    assert outcome.restarts == 0 and outcome.stack_down is None and len(outcome.failed) == 1


def test_the_cli_stops_after_a_job_out_of_heap_and_says_how_to_go_on(tmp_path, fake_bench, monkeypatch):
    monkeypatch.setattr("klinkctl.stack.running.ensure_stack", lambda *_args, **_kwargs: (STACK, {}))
    fake_bench({2: "failed"}, reasons={2: OUT_OF_HEAP})
    result = CliRunner().invoke(main, ["sweep", str(sweep_file(tmp_path, GRID_2X3)), "--results",
                                       str(tmp_path / "results")])
    (directory,) = (tmp_path / "results").iterdir()
    assert result.exit_code == ExitCode.STACK_NOT_RUNNING
    assert f"sweep stopped: {HEAP_PROBLEM}: its TaskManager is not trusted" in result.output
    assert f"resume with klinkctl sweep --resume {directory}" in result.output


def test_the_cli_restarts_after_a_job_out_of_heap_with_on_lost_taskmanager_restart(tmp_path, fake_bench,
                                                                                   monkeypatch):
    monkeypatch.setattr("klinkctl.stack.running.ensure_stack", lambda *_args, **_kwargs: (STACK, {}))
    monkeypatch.setattr("klinkctl.cli.sweep.taskmanager_restarter", lambda stack: lambda: {})
    monkeypatch.setattr(sweeps, "lost_taskmanagers", lambda spec: False)
    fake_bench({2: "failed"}, reasons={2: OUT_OF_HEAP})
    path = sweep_file(tmp_path, GRID_2X3 + "on-lost-taskmanager: restart\n")
    result = CliRunner().invoke(main, ["sweep", str(path), "--results", str(tmp_path / "results")])
    assert result.exit_code == ExitCode.SWEEP_INCOMPLETE, result.output
    assert "restarted the stack 1 time(s) after a run lost TaskManagers or ran out of heap (restarts.csv)" \
        in result.output

