"""--tm-link-rate: a slower shuffle link for single TaskManagers of the local stack, in user space (no tc, no
network namespace, no interface touched).

Flink 2.x lets a TaskManager's Netty shuffle server listen on one port (taskmanager.data.bind-port) while it is
advertised to the other TaskManagers under another (taskmanager.data.port: TaskManagerServices advertises it
whenever it is set). A relay of klinkctl's (klinkctl.netem.relay) listens on the advertised port and forwards to
the bound one, passing at most the link's rate each way. A consumer TaskManager connects to the producer's data
port and the records come back over that connection: what TaskManager N's producers send to other TaskManagers
crosses its relay towards the clients, their partition requests and credits towards it. Exchanges inside one
TaskManager are local channels and are not shaped.

Each relay is a stack process (`tm-link-N`): recorded in stack.json, shown by `status`, stopped by `down`; it
rewrites the bytes it carried to counters.json beside its log (logs/tm-link-N/) every second."""

from __future__ import annotations

import json
import socket
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from klinkctl.netem.relay_process import relay_argv, start_relay
from klinkctl.stack import flink
from klinkctl.stack.processes import ManagedProcess
from klinkctl.stack.spec import StackSpec, taskmanager_name

PREFIX = "tm-link-"
DATA_BIND_PORT_KEY = "taskmanager.data.bind-port"
DATA_PORT_KEY = "taskmanager.data.port"


@dataclass(frozen=True)
class LinkPorts:
    advertised: int  # the relay listens here; the other TaskManagers connect here
    bound: int  # the TaskManager's shuffle server listens here


def relay_name(index: int) -> str:
    return f"{PREFIX}{index}"


def counters_file(spec: StackSpec, index: int) -> Path:
    return flink.component_log_dir(spec, relay_name(index)) / "counters.json"


def pick_ports(spec: StackSpec) -> dict[int, LinkPorts]:
    """Two free ports on --host for each shaped TaskManager, all different (the system's choice)."""
    shaped = sorted(spec.link_rate_of)
    with ExitStack() as held:
        sockets = [held.enter_context(socket.socket()) for _ in range(2 * len(shaped))]
        for sock in sockets:
            sock.bind((spec.host, 0))
        ports = [sock.getsockname()[1] for sock in sockets]
    return {index: LinkPorts(*ports[2 * n:2 * n + 2]) for n, index in enumerate(shaped)}


def flink_properties(ports: LinkPorts | None) -> dict[str, object]:
    """The Flink settings of a TaskManager whose link is shaped (none for one whose link is not)."""
    return {DATA_BIND_PORT_KEY: ports.bound, DATA_PORT_KEY: ports.advertised} if ports else {}


def start_relays(spec: StackSpec, ports: dict[int, LinkPorts]) -> list[ManagedProcess]:
    return [start_link_relay(spec, index, link) for index, link in sorted(ports.items())]


def start_link_relay(spec: StackSpec, index: int, ports: LinkPorts) -> ManagedProcess:
    """The relay of TaskManager `index`: unpinned and outside every quota, like Kafka and the JobManager."""
    name = relay_name(index)
    argv = relay_argv(f"{spec.host}:{ports.advertised}", f"{spec.host}:{ports.bound}",
                      "--rate", repr(spec.link_rate_of[index].bytes_per_s), "--counters", str(counters_file(spec, index)))
    return start_relay(name, argv, flink.component_log_dir(spec, name) / "relay.log", ports.advertised)


def read_counters(spec: StackSpec, index: int) -> dict | None:
    """The relay's latest counters (klinkctl.netem.relay.Link.counters), None before its first write."""
    try:
        return json.loads(counters_file(spec, index).read_text())
    except (OSError, ValueError):
        return None


def describe(spec: StackSpec, component: str) -> str | None:
    """`status`'s detail for a link relay, None for any other component."""
    if not component.startswith(PREFIX):
        return None
    index = int(component.removeprefix(PREFIX))
    rate = spec.link_rate_of.get(index)
    counters = read_counters(spec, index) or {}
    carried = (f"; {counters['bytes_to_clients'] / 1e6:.1f} MB sent to other TaskManagers"
               if "bytes_to_clients" in counters else "")
    return f"shuffle link of {taskmanager_name(index)}: {rate or '?'} each way{carried}"


def link_rows(spec: StackSpec) -> list[dict]:
    """Each shaped link's latest counters, one row a TaskManager (links.csv of a run, klinkctl.run.collectors)."""
    rows = []
    for index in sorted(spec.link_rate_of):
        counters = read_counters(spec, index)
        if counters is not None:
            rows.append({"taskmanager": taskmanager_name(index), "counted_at": counters.get("time_ms"), **counters})
    return rows
