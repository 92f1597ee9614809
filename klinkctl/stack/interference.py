"""--tm-interference: a CPU hog (hog.py) beside a TaskManager of the local stack, a stack process like the others.

It runs where that TaskManager runs: in its cgroup and on its --tm-cpus cores. That models a noisy neighbour on
that worker: a worker is its cores and, with --tm-quota, its CPU budget (the size of its machine); a neighbour
takes from both, and from no other worker's budget. Without --tm-quota TaskManagers share the --tm-cpu-quota
group, if any, and the cores, so the hog takes from all of them: give each TaskManager a quota to aim it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from klinkctl.stack import flink
from klinkctl.stack.processes import ManagedProcess, spawn
from klinkctl.stack.spec import StackSpec, taskmanager_name

HOG_SCRIPT = Path(__file__).with_name("hog.py")
PREFIX = "interference-"


def hog_name(index: int) -> str:
    return f"{PREFIX}{index}"


def start_hogs(spec: StackSpec) -> list[ManagedProcess]:
    return [start_hog(spec, index) for index in sorted(spec.hog_of)]


def start_hog(spec: StackSpec, index: int) -> ManagedProcess:
    name = hog_name(index)
    argv = [sys.executable, str(HOG_SCRIPT), "--fraction", str(spec.hog_of[index]), "--beside",
            taskmanager_name(index)]
    log_file = flink.component_log_dir(spec, name) / "hog.log"
    return spawn(name, flink.as_taskmanager(spec, index, argv), dict(os.environ), log_file)


def describe(spec: StackSpec, component: str) -> str | None:
    """`status`'s detail for a hog, None for any other component."""
    if not component.startswith(PREFIX):
        return None
    index = int(component.removeprefix(PREFIX))
    return f"CPU hog: {spec.hog_of.get(index, '?')} of a core beside {taskmanager_name(index)}"
