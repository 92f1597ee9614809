"""The stack a command runs its jobs on: the one recorded in the state dir, or the default local stack,
started when none runs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from klinkctl import locks
from klinkctl.errors import KlinkError, StackNotRunning
from klinkctl.paths import resolve_state_dir
from klinkctl.progress import Progress, no_progress
from klinkctl.stack import backends, flink
from klinkctl.stack.spec import StackSpec

#: When a run leaves fewer TaskManagers registered than the stack has, or its job ran out of heap
#: (health.out_of_memory): stop (the sweep, the capacity search), or restart the local stack with its settings and
#: go on (each restart recorded).
ON_LOST_TASKMANAGER = ("stop", "restart")


def ensure_stack(state_dir: Path | None, progress: Progress = no_progress) -> tuple[StackSpec, dict[str, int]]:
    """The running stack's spec and component pids; brings up the default local stack when none runs.
    Holds the state dir's run lock for the rest of the process (one run on a stack at a time)."""
    resolved = resolve_state_dir(state_dir)
    locks.hold(resolved / locks.STACK_LOCK, f"the stack in {resolved}")
    stack = backends.detect(resolved)
    if stack is not None and stack.name == "remote":  # attached to, never started here: not replaced either
        _require_running(stack, resolved)
    elif stack is None or not all(s.running for s in stack.status()):
        stack = backends.create("local", resolved)
        progress("no stack running: starting the local stack")
        stack.up(StackSpec(state_dir=resolved), progress=progress)
    spec = stack.recorded_spec()
    if spec is None:
        raise StackNotRunning(f"no stack record in {resolved}; run `klinkctl up`")
    outdated = flink.outdated_copies(spec) if stack.name in ("local", "compose") else []  # their lib dir
    if outdated:
        raise KlinkError(f"the stack in {resolved} runs older copies of {', '.join(outdated)} than java-udfs has "
                         "built since it started: restart it (`klinkctl down`, then `klinkctl up` with its options) "
                         "so that runs use the code you built")
    return spec, {s.name: s.pid for s in stack.status() if s.pid}


def _require_running(stack: backends.StackBackend, state_dir: Path) -> None:
    down = [s.name for s in stack.status() if not s.running]
    if down:
        raise StackNotRunning(f"the cluster attached in {state_dir} does not answer fully ({', '.join(down)} down): "
                              "`klinkctl status` says more; `klinkctl up --backend remote ...` attaches again")


def taskmanager_restarter(spec: StackSpec, progress: Progress = no_progress,
                          asked_by: str = "on-lost-taskmanager: restart") -> Callable[[], dict[str, int]]:
    """What restarts the running stack after it lost TaskManagers (a sweep's on-lost-taskmanager: restart, the
    capacity search's --on-lost-taskmanager restart): the local stack only, whose processes klinkctl started;
    refused in one line on any other."""
    backend = backends.detect(spec.state_dir)
    if backend is None or backend.name != "local":
        name = backend.name if backend is not None else "no"
        stop = asked_by.replace("restart", "stop")
        raise KlinkError(f"{asked_by} needs the local stack (klinkctl up); the stack in {spec.state_dir} runs on the "
                         f"{name} backend, which klinkctl does not restart: use {stop}")
    return lambda: backend.restart(progress)
