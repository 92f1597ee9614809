"""Relays (klinkctl.netem.relay) as processes klinkctl starts, waits for and stops: the generator namespace's
(klinkctl.netem.namespace) and the slowed TaskManagers' links (klinkctl.stack.tm_links)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from klinkctl.errors import KlinkError
from klinkctl.stack.processes import ManagedProcess, is_running, spawn, stop

#: What a relay prints once its socket listens.
LISTENING = "relaying"


def relay_argv(listen: str, target: str, *options: str) -> list[str]:
    """The command of a relay from `listen` (HOST:PORT) to `target`; its command line names klinkctl, so that
    ../shared/tools/leftovers finds it."""
    return [sys.executable, "-m", "klinkctl.netem.relay", listen, target, *options]


def start_relay(name: str, argv: list[str], log_file: Path, port: int) -> ManagedProcess:
    log_file.unlink(missing_ok=True)  # is_listening reads this run's words, not an earlier one's
    return spawn(name, argv, dict(os.environ), log_file, port)


def is_listening(relay: ManagedProcess) -> bool:
    log = Path(relay.log_file)
    return LISTENING in (log.read_text(errors="replace") if log.is_file() else "")


def wait_listening(relay: ManagedProcess, timeout_s: float = 15) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if is_listening(relay):
            return
        if not is_running(relay):
            break
        time.sleep(0.05)
    raise KlinkError(f"the {relay.name} did not start listening (see {relay.log_file})")


def stop_relays(relays: list[ManagedProcess]) -> None:
    for relay in relays:
        stop(relay, grace_s=2)
