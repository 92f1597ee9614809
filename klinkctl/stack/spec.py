"""What a stack should look like: ports, sizes, where its state lives. Shared by every backend.

Its user options are declared once, here (`option(...)`); `klinkctl up`'s Click options and the stack table of
docs/options.md are made from them (STACK_OPTIONS). A StackSpec is checked when it is made: any problem is one
KlinkError line naming the option to fix."""

from __future__ import annotations

import hashlib
import ipaddress
import os
import re
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, ValidationInfo, field_validator, model_validator

from klinkctl.cpus import QUOTA_PERIOD_US, check_delegated, check_threads_movable, parse_cpu_list
from klinkctl.errors import KlinkError
from klinkctl.options import Section, declared, one_line, option
from klinkctl.stack.link_rate import LinkRate, parse_link_rates
from klinkctl.stack.per_taskmanager import per_taskmanager

MEMORY_SIZE = re.compile(r"^[1-9][0-9]*[mMgG]$")
#: A stack token travels in the agent's -javaagent options (comma and = separated) and in URLs: kept plain.
TOKEN = re.compile(r"^[A-Za-z0-9_.-]{0,64}$")
HTTP_ADDRESS = re.compile(r"^http://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):([0-9]{1,5})/?$")
BOOTSTRAP_SERVER = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):([0-9]{1,5})$")
PORT = {"ge": 1, "le": 65535}
#: from_dict's validation context: a recorded spec's machine was checked when the spec was made.
RECORDED = {"recorded": True}
#: Flink 2.3's switch for load-based channel selection in RebalancePartitioner/RescalePartitioner (FLIP-339);
#: its companion taskmanager.network.adaptive-partitioner.max-traverse-size (default 4) is left at Flink's default.
ADAPTIVE_PARTITIONER_KEY = "taskmanager.network.adaptive-partitioner.enabled"
ADAPTIVE_PARTITIONER_SINCE = (2, 3)
#: The smallest CPU quota the kernel sets (1 ms of CPU time per period), in cores for klinkctl's 10 ms period.
MIN_QUOTA = 1000 / QUOTA_PERIOD_US
#: --tm-gc: the HotSpot flag of each collector.
GC_FLAGS = {"g1": "-XX:+UseG1GC", "serial": "-XX:+UseSerialGC", "parallel": "-XX:+UseParallelGC",
            "z": "-XX:+UseZGC"}
#: --tm-jit: HotSpot's flags of each compilation mode (tiered: the JVM's own, C1 then C2 for hot code).
JIT_FLAGS = {"tiered": (), "c1": ("-XX:TieredStopAtLevel=1",)}
#: --tm-jit-cpu: where the TaskManagers' JIT compiler threads take their CPU time from.
JIT_CPU = ("in-quota", "outside-quota")


@dataclass(frozen=True)
class PortSpec:
    name: str
    port: int
    option: str  # the CLI option that changes it, named in error messages


class StackSpec(Section):
    """`klinkctl up`'s options, plus where the stack's state lives and the Flink settings code adds."""

    taskmanagers: int = option(1, "Number of TaskManagers.", ge=1)
    slots: int = option(4, "Task slots per TaskManager.", ge=1)
    jobmanager_memory: str = option("1024m", "JobManager process memory.", cli="jm-memory")
    taskmanager_memory: str = option("1536m", "TaskManager process memory.", cli="tm-memory")
    kafka_heap: str = option("512m", "Kafka broker JVM heap.")
    taskmanager_cpus: str = option("", "Pin the TaskManagers to these cores, e.g. 1 or 2-3 (taskset); keeps Flink "
                                   "off the cores Kafka and the generator use. [not pinned]", cli="tm-cpus")
    taskmanager_cpu_quota: float = option(0.0, "Cap the CPU time of all TaskManagers together at this many cores, "
                                          "e.g. 0.4 (cgroup CPU bandwidth; root, or --tm-cgroup): overloads Flink at "
                                          "rates the generator and Kafka keep easily on a small machine. [0 = no cap]",
                                          cli="tm-cpu-quota", ge=0)
    taskmanager_quotas: str = option("", "Cap single TaskManagers' CPU time, each in a cgroup of its own: "
                                     "NUMBER=CORES,... e.g. 2=0.5 caps taskmanager-2 at half a core (at least 0.1; "
                                     "cgroup CPU bandwidth, 10 ms period; root, or --tm-cgroup). Inside the "
                                     "--tm-cpu-quota group, which still caps them all together. [no cap]",
                                     cli="tm-quota")
    taskmanager_interference: str = option("", "Start a CPU hog beside single TaskManagers: NUMBER=FRACTION,... "
                                           "e.g. 2=0.5 busy-loops half of every 10 ms on one core, in "
                                           "taskmanager-2's cgroup and on its --tm-cpus cores: a noisy neighbour "
                                           "on that worker. Fraction in (0, 1]. [none]", cli="tm-interference")
    taskmanager_link_rates: str = option("", "Slow single TaskManagers' shuffle links: NUMBER=RATE,... e.g. 2=20mbit "
                                         "or 2=2.5MB/s (unit required): the others fetch taskmanager-2's records "
                                         "through a relay passing at most RATE each way (docs/backends.md, \"Slow "
                                         "shuffle links\"). Local backend, 2+ TaskManagers. [not shaped]",
                                         cli="tm-link-rate")
    taskmanager_cgroup_parent: str = option("", "Make the --tm-cpu-quota/--tm-quota groups inside this cgroup "
                                            "directory, "
                                            "delegated to you (e.g. `sudo mkdir /sys/fs/cgroup/cpu/lab && sudo chown "
                                            "-R $USER /sys/fs/cgroup/cpu/lab`), so no root is needed; `down` removes "
                                            "only that group. [the hierarchy's root]", cli="tm-cgroup")
    taskmanager_gc: str = option("g1", "The TaskManagers' garbage collector. g1 is Flink's own choice "
                                 "(bin/taskmanager.sh), which any JVM option of ours would otherwise switch off: "
                                 "on one core HotSpot then picks serial, whose pauses stop every task and the "
                                 "scheduler (docs/scheduler.md, \"Garbage collector\").", choices=tuple(GC_FLAGS),
                                 cli="tm-gc")
    taskmanager_jit: str = option("tiered", "The TaskManagers' JIT compilers. tiered is the JVM's own (C1, then C2 "
                                  "for hot code); c1 stops at C1: cheaper to compile, slower code. On a TaskManager "
                                  "held to a fraction of a core, tiered compilation takes a large share of it for "
                                  "many minutes after the stack starts (docs/capacity.md, \"Why a fresh stack is "
                                  "slow\").", choices=tuple(JIT_FLAGS), cli="tm-jit")
    taskmanager_jit_cpu: str = option("in-quota", "Where the TaskManagers' JIT compiler threads take their CPU "
                                      "from. in-quota: the --tm-cpu-quota/--tm-quota share, like every other "
                                      "thread; outside-quota: a cgroup of their own without a cap, on the same "
                                      "--tm-cpus cores, so that compiling after the start does not eat the tasks' "
                                      "share and a capped stack reaches its steady speed in minutes instead of "
                                      "tens of minutes (docs/capacity.md, \"Why a fresh stack is slow\"). Needs "
                                      "a quota and cgroup v1 (v2 keeps a process's threads in one group).",
                                      choices=JIT_CPU, cli="tm-jit-cpu")
    adaptive_partitioner: bool = option(False, "Flink 2.3's adaptive partitioner: rebalance and rescale exchanges "
                                        "send each record to the least backlogged of the next 4 downstream "
                                        "channels instead of round robin "
                                        "(taskmanager.network.adaptive-partitioner.enabled; Flink 2.3+).", flag=True)
    base_image: str = option("", "compose backend: the image its containers run; it needs java 17 and bash (Flink, "
                             "Kafka and the jars are mounted from this machine). [one built from Debian packages "
                             "with debootstrap, once per engine]")
    debian_mirror: str = option("http://deb.debian.org/debian", "compose backend: the Debian mirror its image is "
                                "built from.")
    host: str = option("127.0.0.1", "Address every service binds to. Anything but loopback exposes Flink's "
                       "job-running REST API. With --backend remote only klinkctl's control channel binds here: an "
                       "address of this machine the cluster's TaskManagers reach.")
    kafka_port: int = option(9092, "Kafka broker port.", **PORT)
    kafka_controller_port: int = option(9093, "Kafka KRaft controller port.", **PORT)
    jobmanager_rpc_port: int = option(6123, "Flink JobManager RPC port.", cli="rpc-port", **PORT)
    rest_port: int = option(8081, "Flink REST/web port.", **PORT)
    control_port: int = option(8090, "Port klinkctl listens on while a run is on, for the TaskManagers' agents: they "
                               "fetch the run's scheduling policy and send their rows (docs/scheduler.md, \"Control\").",
                               **PORT)
    flink_rest: str = option("", "--backend remote: the existing Flink session cluster's REST address, "
                             "http://HOST:PORT. [none]")
    kafka_bootstrap: str = option("", "--backend remote: the existing Kafka's bootstrap servers, "
                                  "HOST:PORT[,HOST:PORT...]. [none]")
    token: str = option("", "The token the TaskManagers' agents name this stack with (their stack= option): with "
                        "--backend remote, the one the cluster's env.java.opts.taskmanager gives. Letters, digits, "
                        "_ . - only. [made from --state-dir]", cli="stack-token")
    state_dir: Path
    extra_flink_config: dict[str, str] = Field(default_factory=dict)

    @classmethod
    def build(cls, **values: Any) -> StackSpec:
        """A StackSpec from field values (users'), any problem one KlinkError line naming the option to fix."""
        with _one_line_errors():
            return cls(**values)

    @field_validator("taskmanager_quotas", "taskmanager_interference", "taskmanager_link_rates")
    @classmethod
    def _per_taskmanager(cls, text: str, info: ValidationInfo) -> str:
        """Checked and written one way (`2=0.5,3=0.25`, by TaskManager), as the record and config.yaml show it."""
        read = parse_link_rates if info.field_name == "taskmanager_link_rates" else per_taskmanager
        values = read(text, option_name(info.field_name))
        return ",".join(f"{index}={value}" for index, value in sorted(values.items()))

    @field_validator("taskmanager_cgroup_parent")
    @classmethod
    def _absolute(cls, parent: str) -> str:
        """`down` removes the quota group by this path, from whichever directory it runs in."""
        return os.path.realpath(parent) if parent else ""

    @model_validator(mode="after")
    def _valid(self, info: ValidationInfo) -> StackSpec:
        """Types and ranges are each option's declaration; these are the checks that span options, and this
        machine's (skipped for a recorded spec: `down` must stop a stack whose cores or cgroup changed since)."""
        self._check_values()
        if not (info.context or {}).get("recorded"):
            self._check_machine()
        return self

    def _check_values(self) -> None:
        for name in ("jobmanager_memory", "taskmanager_memory", "kafka_heap"):
            if not MEMORY_SIZE.match(getattr(self, name)):
                raise KlinkError(f"{option_name(name)} must look like 1024m or 2g, got {getattr(self, name)!r}")
        if self.taskmanager_cgroup_parent and not self.capped:
            raise KlinkError("--tm-cgroup names where the --tm-cpu-quota and --tm-quota groups go; "
                             "give one of them too")
        if self.jit_outside_quota and not self.capped:
            raise KlinkError("--tm-jit-cpu outside-quota takes the JIT compiler out of the TaskManagers' CPU quota; "
                             "give --tm-cpu-quota or --tm-quota too")
        self._check_per_taskmanager()
        self._check_remote_endpoints()
        if self.adaptive_partitioner and (release := flink_release()) < ADAPTIVE_PARTITIONER_SINCE:
            raise KlinkError(f"--adaptive-partitioner needs Flink 2.3 or newer, and this klinkctl runs Flink "
                             f"{'.'.join(map(str, release))}: leave it out (docs/tail-latency.md says what "
                             "moving to 2.3 takes)")
        seen: dict[int, PortSpec] = {}
        for port in self.ports():
            if port.port in seen:
                raise KlinkError(
                    f"{port.option} and {seen[port.port].option} are both {port.port}; give them different ports"
                )
            seen[port.port] = port

    def _check_remote_endpoints(self) -> None:
        """--flink-rest and --kafka-bootstrap name an existing cluster: both, well-formed, or neither."""
        if not TOKEN.match(self.token):
            raise KlinkError(f"--stack-token must be at most 64 letters, digits, _ . or -, got {self.token!r}")
        if bool(self.flink_rest) != bool(self.kafka_bootstrap):
            raise KlinkError("--flink-rest and --kafka-bootstrap name an existing cluster together: give both")
        rest = HTTP_ADDRESS.match(self.flink_rest)
        if self.flink_rest and not (rest and 1 <= int(rest.group(2)) <= 65535):
            raise KlinkError(f"--flink-rest must be http://HOST:PORT (no path; the JobManager's REST address), "
                             f"got {self.flink_rest!r}")
        for server in self.kafka_bootstrap.split(",") if self.kafka_bootstrap else ():
            found = BOOTSTRAP_SERVER.match(server.strip())
            if not (found and 1 <= int(found.group(2)) <= 65535):
                raise KlinkError(f"--kafka-bootstrap must be HOST:PORT[,HOST:PORT...], got {self.kafka_bootstrap!r}")

    def _check_per_taskmanager(self) -> None:
        for name, values in (("taskmanager_quotas", self.quota_of), ("taskmanager_interference", self.hog_of),
                             ("taskmanager_link_rates", self.link_rate_of)):
            for index in values:
                if not 1 <= index <= self.taskmanagers:
                    raise KlinkError(f"{option_name(name)} names taskmanager-{index}, but there are taskmanager-1.."
                                     f"{self.taskmanagers} (--taskmanagers {self.taskmanagers})")
        if self.link_rate_of and self.taskmanagers == 1:
            raise KlinkError("--tm-link-rate shapes what other TaskManagers fetch from a TaskManager, and with "
                             "--taskmanagers 1 there are none: give --taskmanagers 2 or more")
        for index, cores in self.quota_of.items():
            if cores < MIN_QUOTA:
                raise KlinkError(_quota_range(index, cores))
            if self.taskmanager_cpu_quota and cores > self.taskmanager_cpu_quota:
                raise KlinkError(f"--tm-quota {index}={cores:g} is more than --tm-cpu-quota "
                                 f"{self.taskmanager_cpu_quota:g}, which caps all TaskManagers together and "
                                 f"holds their own groups; give at most {self.taskmanager_cpu_quota:g}")
        for index, fraction in self.hog_of.items():
            if not 0 < fraction <= 1:
                raise KlinkError(f"--tm-interference {index}={fraction:g}: the hog's share of one core must be "
                                 f"more than 0 and at most 1")

    def _check_machine(self) -> None:
        if self.taskmanager_cpus:
            parse_cpu_list(self.taskmanager_cpus, "--tm-cpus")
        if self.taskmanager_cpu_quota > (os.cpu_count() or 1):
            raise KlinkError(f"--tm-cpu-quota must be between 0 (no cap) and this machine's {os.cpu_count()} "
                             f"cores, got {self.taskmanager_cpu_quota}")
        for index, cores in self.quota_of.items():
            if cores > (os.cpu_count() or 1):
                raise KlinkError(_quota_range(index, cores))
        if self.delegated_cgroup:
            check_delegated(self.delegated_cgroup, self.taskmanager_cgroup)
        if self.jit_outside_quota:
            check_threads_movable(self.delegated_cgroup, "--tm-jit-cpu outside-quota")
        self.exposure()  # an address that does not resolve is refused here, before anything starts

    @property
    def taskmanager_cgroup(self) -> str:
        """The cgroup that caps the TaskManagers' CPU time (--tm-cpu-quota), one per state dir."""
        return "klink-" + hashlib.sha1(str(self.state_dir).encode()).hexdigest()[:10] + "-taskmanagers"

    @property
    def capped(self) -> bool:  # some TaskManager runs under a CPU quota (--tm-cpu-quota or --tm-quota)
        return bool(self.taskmanager_cpu_quota or self.taskmanager_quotas)

    @property
    def jit_outside_quota(self) -> bool:  # the compiler threads run in jit_cgroup, uncapped
        return self.taskmanager_jit_cpu == "outside-quota"

    @property
    def jit_cgroup(self) -> str:
        """The uncapped group of the TaskManagers' JIT compiler threads (--tm-jit-cpu outside-quota)."""
        return self.taskmanager_cgroup + "-jit"

    @property
    def quota_of(self) -> dict[int, float]:
        """--tm-quota: cores by TaskManager number, for those that have a cap of their own."""
        return per_taskmanager(self.taskmanager_quotas, "--tm-quota")

    @property
    def least_taskmanager_cores(self) -> float | None:
        """The smallest CPU share any TaskManager starts with (--tm-cpu-quota split evenly, --tm-quota), None if
        none is capped."""
        shares = [*self.quota_of.values()]
        if self.taskmanager_cpu_quota:
            shares.append(self.taskmanager_cpu_quota / self.taskmanagers)
        return min(shares) if shares else None

    @property
    def hog_of(self) -> dict[int, float]:
        """--tm-interference: the hog's fraction of one core by TaskManager number."""
        return per_taskmanager(self.taskmanager_interference, "--tm-interference")

    @property
    def link_rate_of(self) -> dict[int, LinkRate]:
        """--tm-link-rate: the rate of each shaped TaskManager's shuffle link, by TaskManager number."""
        return parse_link_rates(self.taskmanager_link_rates, "--tm-link-rate")

    @property
    def taskmanager_subgroups(self) -> list[str]:
        """With --tm-quota every TaskManager runs in a group of its own, named after it, inside
        taskmanager_cgroup (empty without: then they share that group, if --tm-cpu-quota makes it)."""
        return [taskmanager_name(i) for i in range(1, self.taskmanagers + 1)] if self.taskmanager_quotas else []

    @property
    def delegated_cgroup(self) -> Path | None:
        """Where the quota group is made: the cgroup named by --tm-cgroup, None for the hierarchy's root."""
        return Path(self.taskmanager_cgroup_parent) if self.taskmanager_cgroup_parent else None

    @property
    def flink_config(self) -> dict[str, object]:
        """The Flink config keys this spec's options set, then those code adds (extra_flink_config), for every
        backend's Flink config."""
        own: dict[str, object] = {ADAPTIVE_PARTITIONER_KEY: True} if self.adaptive_partitioner else {}
        return {**own, **self.extra_flink_config}

    @property
    def remote(self) -> bool:
        """Kafka and Flink are an existing cluster's (--flink-rest, --kafka-bootstrap), not started here."""
        return bool(self.flink_rest)

    @property
    def bootstrap_servers(self) -> str:
        return self.kafka_bootstrap or f"{self.host}:{self.kafka_port}"

    @property
    def rest_url(self) -> str:
        return self.flink_rest.rstrip("/") or f"http://{self.host}:{self.rest_port}"

    @property
    def control_url(self) -> str:
        """Where the agents find klinkctl's end of the control channel (klinkctl.run.control_channel)."""
        return f"http://{self.host}:{self.control_port}"

    @property
    def stack_token(self) -> str:
        """Names this stack to its agents: they obey no other stack's runs that use the same control port."""
        return self.token or hashlib.sha1(str(self.state_dir.resolve()).encode()).hexdigest()[:12]

    def ports(self) -> list[PortSpec]:
        """The ports this machine listens on: only the control channel's for an existing cluster's stack."""
        fields = _PORT_FIELDS[-1:] if self.remote else _PORT_FIELDS
        return [PortSpec(label, getattr(self, name), option_name(name)) for label, name in fields]

    def exposure(self) -> str | None:
        """None for a loopback --host; otherwise a warning naming what binding to it exposes."""
        try:
            addresses = {info[4][0] for info in socket.getaddrinfo(self.host, None)}
        except (socket.gaierror, UnicodeError) as error:
            raise KlinkError(f"--host {self.host!r} is not an address of this machine ({error}); "
                             "use 127.0.0.1 (the default) or one of its interface addresses") from None
        if all(ipaddress.ip_address(address.split("%")[0]).is_loopback for address in addresses):
            return None
        if self.remote:
            return (f"--host {self.host} exposes klinkctl's control channel (port {self.control_port}, while a run "
                    "is on) to every machine that can reach this one there; the cluster's TaskManagers need it")
        return (f"--host {self.host} exposes Flink's REST API (port {self.rest_port}: it runs any job it is sent) "
                f"and Kafka (port {self.kafka_port}) to every machine that can reach this one there")

    def to_dict(self) -> dict:
        """The record a backend keeps in the state dir (and a run's config.yaml): field names, JSON values."""
        return self.model_dump(mode="json")

    @classmethod
    def from_dict(cls, data: dict) -> StackSpec:
        """A recorded spec (to_dict's, of this or an older klinkctl: options it lacks get their defaults)."""
        with _one_line_errors():
            return cls.model_validate(data, context=RECORDED)


#: Every option of `klinkctl up`, in the order `--help` lists them.
STACK_OPTIONS = declared(StackSpec)
_PORT_FIELDS = (("Kafka broker", "kafka_port"), ("Kafka controller", "kafka_controller_port"),
                ("Flink JobManager RPC", "jobmanager_rpc_port"), ("Flink REST", "rest_port"),
                ("klinkctl control channel", "control_port"))


def flink_release() -> tuple[int, ...]:
    """The Flink release the stack runs (klinkctl.FLINK_VERSION) as numbers, e.g. (2, 2, 1). Imported here, not at
    the top: this module's checks also run alone, copied without the package (tests/integration/test_privileges)."""
    from klinkctl import FLINK_VERSION
    return tuple(int(part) for part in FLINK_VERSION.split("."))


def refuse_unhonoured(spec: StackSpec, backend: str, reasons: dict[str, str]) -> None:
    """One line for the first option given (not at its default) that `backend` cannot honour (reasons: field -> why)."""
    given = [name for name in reasons if getattr(spec, name) != StackSpec.model_fields[name].default]
    if given:
        raise KlinkError(f"{option_name(given[0])}: the {backend} backend cannot honour it "
                         f"({reasons[given[0]]}); leave it out or use another --backend")


def option_name(field: str) -> str:
    """The option users write for a StackSpec field, as messages name it: `--rpc-port` for jobmanager_rpc_port."""
    return next(f"--{o.cli}" for o in STACK_OPTIONS if o.name == field)


def taskmanager_name(index: int) -> str:
    """TaskManager `index`'s name: its component, Flink resource id, log dir and, with --tm-quota, cgroup."""
    return f"taskmanager-{index}"


def _quota_range(index: int, cores: float) -> str:
    return (f"--tm-quota {index}={cores:g}: a TaskManager's quota must be between {MIN_QUOTA:g} cores (the kernel's "
            f"smallest: 1 ms per 10 ms period) and this machine's {os.cpu_count()} cores")


@contextmanager
def _one_line_errors() -> Iterator[None]:
    try:
        yield
    except ValidationError as error:
        raise KlinkError(one_line(error, STACK_OPTIONS)) from None
