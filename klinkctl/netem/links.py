"""Where tc runs (this host or a network namespace) and the probe that netem exists there."""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import Callable

from klinkctl import privileges
from klinkctl.errors import KlinkError

#: Runs one command where the qdisc lives and returns (exit code, combined output).
Runner = Callable[[list[str]], tuple[int, str]]

NO_NETEM = ("has no netem qdisc (tc: \"Specified qdisc kind is unknown\"; the sch_netem kernel module is missing), "
            "so link-level delay cannot be injected here; use the generator-side delay models instead, e.g. "
            "`klinkctl bench ysb --delay exp:240ms` or `--delay preset:EG`")


def on_host(argv: list[str]) -> tuple[int, str]:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    except FileNotFoundError:
        return 127, f"{argv[0]}: command not found"
    return done.returncode, (done.stdout + done.stderr).strip()


def in_namespace(namespace: str) -> Runner:
    return lambda argv: on_host(["ip", "netns", "exec", namespace, *argv])


def require_local_tools(namespace: bool = True) -> None:
    """The capabilities and iproute2 (ip, tc) before anything is touched: CAP_NET_ADMIN for tc, and
    CAP_SYS_ADMIN too for a network namespace (`ip netns add` mounts it under /run/netns)."""
    if namespace:
        privileges.require(("CAP_NET_ADMIN", "CAP_SYS_ADMIN"), "netem on the generator (a network namespace)")
    else:
        privileges.require(("CAP_NET_ADMIN",), "netem on a host interface")
    for tool in ("ip", "tc"):
        if shutil.which(tool) is None:
            raise KlinkError(f"`{tool}` is not installed: install iproute2 (e.g. `apt-get install iproute2`)")


def check(result: tuple[int, str], where: str, action: str) -> str:
    """The command's output, or one KlinkError that says what failed, where and why."""
    code, output = result
    if code == 0:
        return output
    if "qdisc kind is unknown" in output or "Unknown qdisc" in output:
        raise KlinkError(f"{where} {NO_NETEM}")
    if "Operation not permitted" in output:
        raise KlinkError(f"{action} on {where} is not permitted: tc needs root (CAP_NET_ADMIN)")
    last = output.splitlines()[-1] if output else f"exit code {code}"
    raise KlinkError(f"{action} on {where} failed: {last}")


def probe_netem(run: Runner, where: str) -> None:
    """Adds and removes a netem qdisc on the loopback device `run` sees; raises if netem is missing."""
    check(run(["tc", "qdisc", "add", "dev", "lo", "root", "netem", "delay", "1ms"]), where, "probing netem")
    run(["tc", "qdisc", "del", "dev", "lo", "root"])


def probe_netem_on_this_host() -> None:
    """Probes in a throwaway network namespace, so no interface of the host is touched, even briefly."""
    namespace = f"klink-probe-{os.getpid()}"
    check(on_host(["ip", "netns", "add", namespace]), "this host", "creating a probe network namespace")
    try:
        probe_netem(in_namespace(namespace), "this kernel")
    finally:
        on_host(["ip", "netns", "del", namespace])
