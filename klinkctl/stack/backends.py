"""The registry of stack backends: pick one by name, or find the one that owns a state dir."""

from __future__ import annotations

import json
from pathlib import Path

from klinkctl.errors import KlinkError
from klinkctl.stack.base import StackBackend
from klinkctl.stack.local import RECORD_FILE, LocalBackend
from klinkctl.stack.spec import StackSpec

NAMES = ("local", "compose", "remote")


def create(name: str, state_dir: Path) -> StackBackend:
    if name == "local":
        return LocalBackend(state_dir)
    if name == "compose":
        from klinkctl.stack.compose import ComposeBackend  # the Docker SDK is only needed here

        return ComposeBackend(state_dir)
    if name == "remote":
        from klinkctl.stack.remote import RemoteBackend

        return RemoteBackend(state_dir)
    raise KlinkError(f"unknown backend {name!r}; choose one of: {', '.join(NAMES)}")


def detect(state_dir: Path) -> StackBackend | None:
    """The backend whose record is in state_dir, if any."""
    record = state_dir / RECORD_FILE
    if record.is_file():
        try:
            name = json.loads(record.read_text()).get("backend", "local")
        except (OSError, ValueError) as error:
            raise KlinkError(f"cannot read {record} ({error}); remove it and run klinkctl down again") from None
        return create(name, state_dir)
    from klinkctl.stack.remote import RECORD_FILE as REMOTE_RECORD

    return create("remote", state_dir) if (state_dir / REMOTE_RECORD).is_file() else None


def refuse_mixed(name: str, spec: StackSpec) -> None:
    """Before `up`: a state dir holds one stack, of one backend; options naming an existing cluster are remote's."""
    from klinkctl.stack.remote import refuse_remote_options

    refuse_remote_options(name, spec)
    recorded = detect(spec.state_dir)
    if recorded is not None and recorded.name != name:
        raise KlinkError(f"{spec.state_dir} holds a {recorded.name} stack; run `klinkctl down` there first, "
                         "or use another --state-dir")
