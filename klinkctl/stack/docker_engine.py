"""The Docker engine as the compose backend uses it: a client, or one line saying there is none."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

from klinkctl.errors import KlinkError

if TYPE_CHECKING:
    import docker

DEFAULT_DOCKER_HOST = "unix:///var/run/docker.sock"
USE_LOCAL = "use the default local backend: klinkctl up (without --backend compose)"


def docker_client() -> docker.DockerClient:
    """A client for a reachable engine, or a one-line KlinkError saying there is none."""
    import docker
    import requests
    from docker.errors import DockerException

    host = os.environ.get("DOCKER_HOST") or DEFAULT_DOCKER_HOST
    try:
        client = docker.from_env(timeout=10)
        client.ping()
        return client
    except (DockerException, requests.exceptions.RequestException, OSError) as exc:
        raise KlinkError(
            f"no Docker engine reachable at {host} ({_reason(exc)}); start Docker or {USE_LOCAL}"
        ) from None


def _reason(exc: BaseException) -> str:
    """The most telling part of a connection error, on one line (e.g. 'No such file or directory')."""
    for err in _exception_tree(exc):
        if isinstance(err, OSError) and err.strerror:
            return err.strerror
    text = " ".join(str(exc).split()).removeprefix("Error while fetching server API version: ")
    return text[:160] or type(exc).__name__


def _exception_tree(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    todo: list[BaseException] = [exc]
    while todo:
        err = todo.pop(0)
        if id(err) in seen:
            continue
        seen.add(id(err))
        yield err
        nested = [err.__cause__, err.__context__, *err.args]
        todo.extend(e for e in nested if isinstance(e, BaseException))
