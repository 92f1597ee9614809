"""What a stack should look like: ports, sizes, where its state lives. Shared by every backend."""

from __future__ import annotations

import hashlib
import ipaddress
import os
import re
import socket
from dataclasses import asdict, dataclass, field
from pathlib import Path

from klinkctl.cpus import check_delegated, parse_cpu_list
from klinkctl.errors import KlinkError

MEMORY_SIZE = re.compile(r"^[1-9][0-9]*[mMgG]$")


@dataclass(frozen=True)
class PortSpec:
    name: str
    port: int
    option: str  # the CLI option that changes it, named in error messages


@dataclass(frozen=True)
class StackSpec:
    state_dir: Path
    host: str = "127.0.0.1"
    kafka_port: int = 9092
    kafka_controller_port: int = 9093
    jobmanager_rpc_port: int = 6123
    rest_port: int = 8081
    taskmanagers: int = 1
    slots: int = 4
    jobmanager_memory: str = "1024m"
    taskmanager_memory: str = "1536m"
    kafka_heap: str = "512m"
    taskmanager_cpus: str = ""  # cores the TaskManagers are pinned to ("" = not pinned)
    taskmanager_cpu_quota: float = 0.0  # cores' worth of CPU time all TaskManagers together get (0 = no cap)
    taskmanager_cgroup_parent: str = ""  # a cgroup delegated to the user, holding the quota group ("" = root's)
    extra_flink_config: dict[str, str] = field(default_factory=dict)

    @property
    def taskmanager_cgroup(self) -> str:
        """The cgroup that caps the TaskManagers' CPU time (--tm-cpu-quota), one per state dir."""
        return "klink-" + hashlib.sha1(str(self.state_dir).encode()).hexdigest()[:10] + "-taskmanagers"

    @property
    def delegated_cgroup(self) -> Path | None:
        """Where the quota group is made: the cgroup named by --tm-cgroup, None for the hierarchy's root."""
        return Path(self.taskmanager_cgroup_parent) if self.taskmanager_cgroup_parent else None

    @property
    def bootstrap_servers(self) -> str:
        return f"{self.host}:{self.kafka_port}"

    @property
    def rest_url(self) -> str:
        return f"http://{self.host}:{self.rest_port}"

    def ports(self) -> list[PortSpec]:
        return [
            PortSpec("Kafka broker", self.kafka_port, "--kafka-port"),
            PortSpec("Kafka controller", self.kafka_controller_port, "--kafka-controller-port"),
            PortSpec("Flink JobManager RPC", self.jobmanager_rpc_port, "--rpc-port"),
            PortSpec("Flink REST", self.rest_port, "--rest-port"),
        ]

    def validate(self) -> StackSpec:
        if self.taskmanagers < 1:
            raise KlinkError(f"--taskmanagers must be at least 1, got {self.taskmanagers}")
        if self.slots < 1:
            raise KlinkError(f"--slots must be at least 1, got {self.slots}")
        for name, size in [
            ("--jm-memory", self.jobmanager_memory),
            ("--tm-memory", self.taskmanager_memory),
            ("--kafka-heap", self.kafka_heap),
        ]:
            if not MEMORY_SIZE.match(size):
                raise KlinkError(f"{name} must look like 1024m or 2g, got {size!r}")
        if self.taskmanager_cpus:
            parse_cpu_list(self.taskmanager_cpus, "--tm-cpus")
        if not 0 <= self.taskmanager_cpu_quota <= (os.cpu_count() or 1):
            raise KlinkError(f"--tm-cpu-quota must be between 0 (no cap) and this machine's {os.cpu_count()} "
                             f"cores, got {self.taskmanager_cpu_quota}")
        if self.delegated_cgroup:
            if not self.taskmanager_cpu_quota:
                raise KlinkError("--tm-cgroup names where the --tm-cpu-quota group goes; give --tm-cpu-quota too")
            check_delegated(self.delegated_cgroup, self.taskmanager_cgroup)
        self.exposure()  # an address that does not resolve is refused here, before anything starts
        seen: dict[int, PortSpec] = {}
        for port in self.ports():
            if not 1 <= port.port <= 65535:
                raise KlinkError(f"{port.option} must be a port between 1 and 65535, got {port.port}")
            if port.port in seen:
                raise KlinkError(
                    f"{port.option} and {seen[port.port].option} are both {port.port}; give them different ports"
                )
            seen[port.port] = port
        return self

    def exposure(self) -> str | None:
        """None for a loopback --host; otherwise a warning naming what binding to it exposes."""
        try:
            addresses = {info[4][0] for info in socket.getaddrinfo(self.host, None)}
        except (socket.gaierror, UnicodeError) as error:
            raise KlinkError(f"--host {self.host!r} is not an address of this machine ({error}); "
                             "use 127.0.0.1 (the default) or one of its interface addresses") from None
        if all(ipaddress.ip_address(address.split("%")[0]).is_loopback for address in addresses):
            return None
        return (f"--host {self.host} exposes Flink's REST API (port {self.rest_port}: it runs any job it is sent) "
                f"and Kafka (port {self.kafka_port}) to every machine that can reach this one there")

    def to_dict(self) -> dict:
        data = asdict(self)
        data["state_dir"] = str(self.state_dir)
        return data

    @classmethod
    def from_dict(cls, data: dict) -> StackSpec:
        return cls(**{**data, "state_dir": Path(data["state_dir"])})
