"""Is the stack able to run a job right now? Asked before every run of a sweep, so a dead broker or
TaskManager stops the sweep with one line instead of failing every later run after its timeout. Also: did the
last run leave it untrustworthy (a TaskManager lost, or a job out of heap)."""

from __future__ import annotations

from klinkctl.stack import backends, flink, kafka
from klinkctl.stack.spec import StackSpec


def stack_problem(spec: StackSpec) -> str | None:
    """What keeps the stack from running a job (one line), or None when Kafka and every TaskManager answer."""
    registered = flink.registered_taskmanagers(spec)
    if registered is None:
        return f"Flink's JobManager does not answer at {spec.rest_url}"
    if registered < spec.taskmanagers:
        return f"only {registered} of {spec.taskmanagers} TaskManagers are registered with the JobManager"
    if not kafka.is_ready(spec):
        return f"the Kafka broker does not answer at {spec.bootstrap_servers}"
    return None


def lost_taskmanagers(spec: StackSpec) -> bool:
    """Whether a TaskManager the stack started is gone: its process (or container) no longer runs — right after
    it died the JobManager still counts it until its heartbeat times out — or the JobManager answers with fewer
    TaskManagers registered than the stack started."""
    stack = backends.detect(spec.state_dir)
    if stack is not None and any(c.name.startswith("taskmanager") and not c.running for c in stack.status()):
        return True
    registered = flink.registered_taskmanagers(spec)
    return registered is not None and registered < spec.taskmanagers


def out_of_memory(summary: dict) -> bool:
    """Whether a run's job failed because a TaskManager ran out of heap (java.lang.OutOfMemoryError as Flink's root
    cause in the summary's reason). Such a JVM is not trusted with the next run even when its process stayed up:
    the sweep and the capacity search treat it like a lost TaskManager (on-lost-taskmanager)."""
    return summary.get("status") != "completed" and "OutOfMemoryError" in (summary.get("reason") or "")
