"""Whether the stack lost a TaskManager (klinkctl.stack.health): from its processes first, then the JobManager;
whether a run's job ran out of heap."""

from __future__ import annotations

import pytest

from klinkctl.stack import backends, flink, health
from klinkctl.stack.base import ComponentStatus
from klinkctl.stack.spec import StackSpec


class FakeStack:
    def __init__(self, running: dict[str, bool]):
        self.running = running

    def status(self) -> list[ComponentStatus]:
        return [ComponentStatus(name, up) for name, up in self.running.items()]


@pytest.mark.parametrize("taskmanager_running, registered, lost", [
    (False, 1, True),  # the process died; the JobManager has not noticed yet (heartbeat timeout)
    (True, 0, True),  # the JobManager dropped it
    (True, 1, False),
    (True, None, False),  # the JobManager does not answer: another problem (stack_problem says which)
])
def test_a_taskmanager_is_lost_when_its_process_is_gone_or_the_jobmanager_dropped_it(
        monkeypatch, tmp_path, taskmanager_running, registered, lost):
    stack = FakeStack({"kafka": True, "jobmanager": True, "taskmanager-1": taskmanager_running})
    monkeypatch.setattr(backends, "detect", lambda state_dir: stack)
    monkeypatch.setattr(flink, "registered_taskmanagers", lambda spec: registered)
    assert health.lost_taskmanagers(StackSpec(state_dir=tmp_path)) is lost


@pytest.mark.parametrize("status, reason, out_of_memory", [
    ("failed", "job 9 ended as FAILED: java.lang.OutOfMemoryError: Java heap space", True),
    ("failed", "job 9 ended as FAILED: java.io.IOException: disk full", False),
    ("failed", None, False),
    ("completed", "", False),
])
def test_a_run_out_of_memory_failed_with_outofmemoryerror_in_its_reason(status, reason, out_of_memory):
    assert health.out_of_memory({"status": status, "reason": reason}) is out_of_memory
