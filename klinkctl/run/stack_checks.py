"""What a run needs of its stack, checked before anything starts (one line each, naming what to change)."""

from __future__ import annotations

from klinkctl.errors import KlinkError
from klinkctl.run import os_priority
from klinkctl.run.config import RunSpec
from klinkctl.workloads.options import LATE
from klinkctl.stack import backends, flink
from klinkctl.stack.spec import StackSpec


def check_stack(spec: StackSpec, config: RunSpec, stack_processes: dict[str, int]) -> None:
    if config.policy == os_priority.POLICY:
        os_priority.check_usable(backend_name(spec), stack_processes)
    if config.late_state == "aion" and config.workload in LATE and backend_name(spec) == "local":
        from klinkctl import late_backends

        late_backends.check_p_bucket_disk(config, flink.flink_dir(spec) / "tmp")
    _check_stage_speeds(spec, config)
    if config.placement == "split" and spec.taskmanagers < 2:
        raise KlinkError(f"--placement split puts the sources on one TaskManager and the windows on another, and "
                         f"this stack has {spec.taskmanagers}: klinkctl up --taskmanagers 2")


def _check_stage_speeds(spec: StackSpec, config: RunSpec) -> None:
    """--stage-speeds names TaskManagers by klinkctl's numbers, which its own stacks give them (resource ids)."""
    beyond = sorted(index for index in config.stage_speed_of if index > spec.taskmanagers)
    if beyond:
        raise KlinkError(f"--stage-speeds names taskmanager-{beyond[0]}, but this stack has taskmanager-1.."
                         f"{spec.taskmanagers}: name one of those, or klinkctl up --taskmanagers {beyond[0]}")
    if config.stage_speed_of and backend_name(spec) == "remote":
        raise KlinkError("--stage-speeds finds TaskManagers by the resource ids klinkctl's own stacks give them "
                         "(taskmanager-N); an existing cluster's are its own: drop --stage-speeds there")


def backend_name(spec: StackSpec) -> str:
    backend = backends.detect(spec.state_dir)
    return backend.name if backend is not None else "none"
