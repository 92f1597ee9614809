"""The registry of stack backends: pick one by name, or find the one that owns a state dir."""

from __future__ import annotations

import json
from pathlib import Path

from klinkctl.errors import KlinkError
from klinkctl.stack.base import StackBackend
from klinkctl.stack.local import RECORD_FILE, LocalBackend

NAMES = ("local", "compose")


def create(name: str, state_dir: Path) -> StackBackend:
    if name == "local":
        return LocalBackend(state_dir)
    if name == "compose":
        from klinkctl.stack.compose import ComposeBackend  # the Docker SDK is only needed here

        return ComposeBackend(state_dir)
    raise KlinkError(f"unknown backend {name!r}; choose one of: {', '.join(NAMES)}")


def detect(state_dir: Path) -> StackBackend | None:
    """The backend whose record is in state_dir, if any."""
    record = state_dir / RECORD_FILE
    if not record.is_file():
        return None
    try:
        name = json.loads(record.read_text()).get("backend", "local")
    except (OSError, ValueError) as error:
        raise KlinkError(f"cannot read {record} ({error}); remove it and run klinkctl down again") from None
    return create(name, state_dir)
