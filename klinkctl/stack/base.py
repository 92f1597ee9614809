"""The StackBackend extension point: something that brings Kafka + Flink up, reports on it, tears it down."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

from klinkctl.progress import Progress, no_progress
from klinkctl.stack.spec import StackSpec

__all__ = ["ComponentStatus", "Endpoints", "Progress", "StackBackend", "no_progress"]


@dataclass(frozen=True)
class ComponentStatus:
    name: str  # e.g. "kafka", "jobmanager", "taskmanager-1"
    running: bool
    pid: int | None = None
    port: int | None = None
    rss_bytes: int | None = None
    uptime_s: float | None = None
    detail: str = ""


@dataclass(frozen=True)
class Endpoints:
    bootstrap_servers: str
    rest_url: str


class StackBackend(ABC):
    """One way of running the stack (local processes, docker compose). Every method is idempotent."""

    name: str

    @abstractmethod
    def up(self, spec: StackSpec, progress: Progress = no_progress) -> bool:
        """Start everything and wait until ready. Returns False if it was already running (nothing changed).

        On failure, whatever was started is stopped again and a KlinkError names the component and log.
        """

    @abstractmethod
    def down(self, purge: bool = False, progress: Progress = no_progress) -> list[str]:
        """Stop everything this backend started; returns the names of the components stopped."""

    @abstractmethod
    def status(self) -> list[ComponentStatus]:
        """Each component's state; an empty list means nothing was started."""

    @abstractmethod
    def endpoints(self) -> Endpoints:
        """Where clients reach Kafka and Flink's REST API."""

    @abstractmethod
    def recorded_spec(self) -> StackSpec | None:
        """The spec the running stack was started with (from its record in the state dir), if any."""

    def notes(self) -> list[str]:
        """Lines `up` prints after the endpoints: what else users must know about this stack."""
        return []
