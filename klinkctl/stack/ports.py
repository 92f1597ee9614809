"""Detect ports already taken before anything starts."""

from __future__ import annotations

import errno
import socket

from klinkctl.errors import KlinkError
from klinkctl.stack.spec import PortSpec


def port_is_free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        # SO_REUSEADDR: connections lingering in TIME_WAIT after a `down` must not count as taken.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as error:
            if error.errno in (errno.EADDRINUSE, errno.EACCES):
                return False
            raise
    return True


def ensure_free(host: str, ports: list[PortSpec]) -> None:
    for port in ports:
        if not port_is_free(host, port.port):
            raise KlinkError(
                f"port {port.port} on {host} ({port.name}) is already in use; "
                f"stop whatever holds it or choose another with {port.option} PORT"
            )
