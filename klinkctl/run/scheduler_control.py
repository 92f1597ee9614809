"""Per-run control of the runtime scheduler inside every TaskManager (java-udfs/klink-agent).

The agent's scheduler thread polls ``<agent status dir>/control.json`` every second: a policy other than
``default`` makes it pause and resume tasks every r ms and append one row per cycle to
``<run_dir>/scheduler.csv``; ``default`` or no file means plain Flink (every paused task is resumed at once).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from klinkctl.stack.flink import agent_status_dir
from klinkctl.stack.spec import StackSpec

CONTROL_FILE = "control.json"
#: The agent polls the control file once a second; a switch takes effect within this long.
POLL_S = 1.0


def control_path(spec: StackSpec) -> Path:
    return agent_status_dir(spec) / CONTROL_FILE


def activate(spec: StackSpec, policy: str, params: dict[str, object] | None, run_dir: Path) -> Path:
    """Tell the TaskManagers' schedulers to run `policy` for this run; written atomically (tmp + rename)."""
    path = control_path(spec)
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {"policy": policy, "params": {str(k): str(v) for k, v in (params or {}).items()},
            "run_dir": str(Path(run_dir).resolve())}
    tmp = path.with_name(CONTROL_FILE + ".tmp")
    tmp.write_text(json.dumps(body) + "\n")
    os.replace(tmp, path)
    return path


def deactivate(spec: StackSpec) -> None:
    """Back to plain Flink: the schedulers resume every paused task within about a second."""
    try:
        control_path(spec).unlink()
    except FileNotFoundError:
        pass
