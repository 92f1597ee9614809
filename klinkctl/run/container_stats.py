"""CPU and memory of the compose backend's containers from the Docker engine's stats (docs/backends.md), for
resources.csv (`source` = `docker`): the engine's own account of each container's cgroup, as `docker stats` shows it.

Each container's stats stream (one sample a second) is read by a thread of its own; the resource sampler writes the
latest sample of every container once a second, as it samples processes. cpu_percent is the change of the cgroup's
CPU time over the change of the samples' read times (% of one core, as procfs gives it); rss_bytes is the cgroup's
memory use less its inactive file cache (what `docker stats` calls usage)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pandas as pd

from klinkctl.stack import backends

if TYPE_CHECKING:
    from klinkctl.stack.spec import StackSpec

DOCKER = "docker"


def cpu_and_memory(previous: dict[str, Any], current: dict[str, Any]) -> tuple[float, int] | None:
    """(% of one core, bytes) between two samples of a container's stats stream; None if they cannot tell."""
    try:
        used_ns = current["cpu_stats"]["cpu_usage"]["total_usage"] - previous["cpu_stats"]["cpu_usage"]["total_usage"]
        wall_ns = (pd.Timestamp(current["read"]) - pd.Timestamp(previous["read"])).total_seconds() * 1e9
        memory = current["memory_stats"]
        resident = memory["usage"] - memory.get("stats", {}).get("inactive_file", 0)
    except (KeyError, TypeError, ValueError, OverflowError):
        return None
    return (used_ns / wall_ns * 100, int(resident)) if wall_ns > 0 else None


class ContainerStats:
    """The latest CPU and memory sample of every container of a compose stack, kept by one thread per container."""

    def __init__(self, client: Any, containers: dict[str, str]) -> None:
        self.components = set(containers)
        self._client = client
        self._latest: dict[str, tuple[int, float, int]] = {}  # component -> (pid, % CPU, bytes)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._threads = [threading.Thread(target=self._follow, args=(name, container_id), daemon=True,
                                          name=f"stats-{name}") for name, container_id in containers.items()]
        for thread in self._threads:
            thread.start()

    def _follow(self, name: str, container_id: str) -> None:
        previous = None
        try:
            container = self._client.containers.get(container_id)
            pid = container.attrs["State"].get("Pid") or ""
            for sample in self._stream(container):
                if self._stopping.is_set():
                    return
                if previous is not None and (values := cpu_and_memory(previous, sample)) is not None:
                    with self._lock:
                        self._latest[name] = (pid, *values)
                previous = sample
        except Exception:  # noqa: BLE001 - a container gone or an engine closed ends its samples, not the run
            return

    @staticmethod
    def _stream(container: Any) -> Iterator[dict[str, Any]]:
        return container.stats(stream=True, decode=True)

    def rows(self, now: int) -> list[dict[str, Any]]:
        with self._lock:
            latest = dict(self._latest)
        return [{"time": now, "component": name, "pid": pid, "cpu_percent": cpu, "rss_bytes": memory,
                 "source": DOCKER} for name, (pid, cpu, memory) in sorted(latest.items())]

    def stop(self) -> None:
        self._stopping.set()  # each stream ends at its next sample, within a second
        self._client.close()


def start(spec: StackSpec) -> ContainerStats | None:
    """Stats of the stack's containers when it is a compose stack; None for any other backend."""
    backend = backends.detect(spec.state_dir)
    if backend is None or backend.name != "compose":
        return None
    containers = {c.name: c.container for c in backend.recorded_components() if c.container}
    return ContainerStats(backend.client, containers) if containers else None
