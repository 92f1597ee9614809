"""klinkctl.run.stack_checks: what a run needs of its stack, refused in one line before anything starts."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from klinkctl.errors import KlinkError
from klinkctl.run import stack_checks
from klinkctl.run.config import resolve


def test_split_placement_needs_two_taskmanagers_and_a_workload_that_has_windows(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(stack_checks.backends, "detect", lambda state_dir: SimpleNamespace(name="local"))
    split = resolve(None, {"placement": "split"})
    one = SimpleNamespace(state_dir=tmp_path, taskmanagers=1)
    with pytest.raises(KlinkError, match=r"^--placement split .* this stack has 1: klinkctl up --taskmanagers 2$"):
        stack_checks.check_stack(one, split, {})
    stack_checks.check_stack(SimpleNamespace(state_dir=tmp_path, taskmanagers=2), split, {})
    with pytest.raises(KlinkError, match="placement"):
        resolve(None, {"placement": "split", "workload": "exclamation"})


@pytest.mark.parametrize("backend", ["local", "compose", "remote"])
def test_a_combiner_runs_on_every_backend_since_it_talks_through_the_control_channel(monkeypatch, tmp_path,
                                                                                    backend: str) -> None:
    monkeypatch.setattr(stack_checks.backends, "detect", lambda state_dir: SimpleNamespace(name=backend))
    stack = SimpleNamespace(state_dir=tmp_path, taskmanagers=1)
    for combiner in ("adcom", "local-global"):
        stack_checks.check_stack(stack, resolve(None, {"workload": "rides", "combiner": combiner}), {})


@pytest.mark.parametrize("backend", ["local", "compose", "remote"])
def test_aion_runs_on_every_backend_since_its_p_buckets_are_on_the_taskmanagers_disk(monkeypatch, tmp_path,
                                                                                    backend: str) -> None:
    monkeypatch.setattr(stack_checks.backends, "detect", lambda state_dir: SimpleNamespace(name=backend))
    stack = SimpleNamespace(state_dir=tmp_path, taskmanagers=1)
    stack_checks.check_stack(stack, resolve(None, {"workload": "average", "late_state": "aion"}), {})


@pytest.mark.parametrize("backend, taskmanagers, message", [
    ("local", 1, r"^--stage-speeds names taskmanager-2, but this stack has taskmanager-1..1: name one of those, "
                 r"or klinkctl up --taskmanagers 2$"),
    ("remote", 2, r"^--stage-speeds finds TaskManagers by the resource ids klinkctl's own stacks give them"),
    ("local", 2, None), ("compose", 2, None)])
def test_stage_speeds_name_taskmanagers_of_a_klinkctl_stack(monkeypatch, tmp_path, backend: str,
                                                            taskmanagers: int, message: str | None) -> None:
    monkeypatch.setattr(stack_checks.backends, "detect", lambda state_dir: SimpleNamespace(name=backend))
    stack = SimpleNamespace(state_dir=tmp_path, taskmanagers=taskmanagers)
    slow = resolve(None, {"workload": "exclamation", "stage_cost_model": "wall-exp", "stage_speeds": "2=0.5"})
    if message is None:
        stack_checks.check_stack(stack, slow, {})
    else:
        with pytest.raises(KlinkError, match=message):
            stack_checks.check_stack(stack, slow, {})
