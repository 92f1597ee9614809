"""The Docker engine as the compose backend uses it: a client (or one line saying there is no engine), the
`docker compose` plugin check, and a compose container as a ComponentStatus."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from klinkctl.errors import KlinkError
from klinkctl.stack.base import ComponentStatus
from klinkctl.stack.spec import StackSpec

if TYPE_CHECKING:
    import docker

DEFAULT_DOCKER_HOST = "unix:///var/run/docker.sock"
SERVICE_LABEL = "com.docker.compose.service"
NUMBER_LABEL = "com.docker.compose.container-number"
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


def require_compose_cli() -> None:
    """`docker compose` (the Compose v2 plugin) must be installed next to the engine."""
    if shutil.which("docker") is None:
        raise KlinkError(f"the docker CLI is not on PATH; install Docker with the compose plugin or {USE_LOCAL}")
    result = subprocess.run(["docker", "compose", "version"], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise KlinkError(f"`docker compose` (the Compose v2 plugin) is not installed; install it or {USE_LOCAL}")


def container_status(container: Any, spec: StackSpec, stats: bool = True) -> ComponentStatus:
    """One compose container (docker SDK Container) as a ComponentStatus."""
    state = container.attrs.get("State", {})
    service = container.labels.get(SERVICE_LABEL, container.name)
    name = f"taskmanager-{container.labels.get(NUMBER_LABEL, '?')}" if service == "taskmanager" else service
    running = bool(state.get("Running"))
    health = (state.get("Health") or {}).get("Status")
    detail = health or state.get("Status", "")
    if not running:
        detail = f"{state.get('Status', 'stopped')} (exit code {state.get('ExitCode')})"
    return ComponentStatus(
        name=name,
        running=running,
        pid=state.get("Pid") or None,
        port={"kafka": spec.kafka_port, "jobmanager": spec.rest_port}.get(service),
        rss_bytes=_memory_usage(container) if running and stats else None,
        uptime_s=_uptime(state.get("StartedAt")) if running else None,
        detail=detail,
    )


def _uptime(started_at: str | None) -> float | None:
    if not started_at or started_at.startswith("0001-"):
        return None
    try:
        started = datetime.fromisoformat(started_at)
    except ValueError:
        return None
    return max(0.0, (datetime.now(timezone.utc) - started).total_seconds())


def _memory_usage(container: Any) -> int | None:
    try:
        usage = container.stats(stream=False, one_shot=True).get("memory_stats", {}).get("usage")
    except Exception:  # stats are best effort: a container may stop between list and stats
        return None
    return int(usage) if usage else None


def status_order(status: ComponentStatus) -> tuple[int, int, str]:
    rank = {"kafka": 0, "jobmanager": 1}.get(status.name, 2)
    suffix = status.name.rpartition("-")[2]
    return rank, int(suffix) if suffix.isdigit() else 0, status.name
