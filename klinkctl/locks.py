"""One klinkctl at a time where two would corrupt each other: runs on one stack (they share its scheduler
control file and its TaskManagers), and one sweep directory (its index.csv). An OS file lock (flock), so a
crashed holder releases it; held until the process exits."""

from __future__ import annotations

import fcntl
import os
import sys
from pathlib import Path
from typing import TextIO

from klinkctl.errors import KlinkError

#: In the state dir: held by bench, sweep, capacity and smoke while they run jobs on the stack.
STACK_LOCK = "runs.lock"
#: In a sweep directory: held by the sweep running it.
SWEEP_LOCK = ".sweep.lock"

_held: dict[Path, TextIO] = {}


def hold(path: Path, what: str) -> None:
    """Take the lock at ``path`` for the rest of this process, or raise KlinkError naming its holder."""
    path = path.resolve()
    if path in _held:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = open(path, "a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "another klinkctl process"
        handle.close()
        raise KlinkError(f"{what} is in use by {holder}; wait for it to finish or stop it, then try again") from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"pid {os.getpid()} (klinkctl {' '.join(sys.argv[1:3])})")
    handle.flush()
    _held[path] = handle


def release(path: Path) -> None:
    handle = _held.pop(path.resolve(), None)
    if handle is not None:
        handle.close()
