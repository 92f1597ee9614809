"""The local generator's own network namespace, joined to the host by a veth pair klinkctl creates.

netem then goes on the namespace's end of the veth, so the generator's traffic to Kafka is delayed and
nothing else on the host is touched. Kafka listens on the host's 127.0.0.1 and advertises that address,
so two relays carry the connection across the veth: one listens on the namespace's 127.0.0.1:<kafka port>
and connects to the host end of the veth; the other listens there and connects to the host's broker.

    generator ─▶ ns 127.0.0.1:P ─relay─▶ veth (netem) ─▶ 10.213.N.1:P ─relay─▶ host 127.0.0.1:P (Kafka)
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
from dataclasses import dataclass
from pathlib import Path

from klinkctl.errors import KlinkError
from klinkctl.netem.links import check, in_namespace, on_host
from klinkctl.netem.relay_process import relay_argv, start_relay, stop_relays, wait_listening
from klinkctl.stack.processes import ManagedProcess

SUBNET_BASE = ipaddress.ip_network("10.213.0.0/16")


@dataclass(frozen=True)
class GeneratorNamespace:
    """Names and addresses derived from the state dir: one namespace per stack, stable across commands."""

    namespace: str
    host_device: str
    namespace_device: str
    subnet: ipaddress.IPv4Network

    @classmethod
    def for_state_dir(cls, state_dir: Path) -> GeneratorNamespace:
        tag = hashlib.sha1(str(Path(state_dir).resolve()).encode()).hexdigest()[:6]
        index = int(tag, 16) % 16384  # one /30 of 10.213.0.0/16
        subnet = list(SUBNET_BASE.subnets(new_prefix=30))[index]
        return cls(f"klink-gen-{tag}", f"klh{tag}", f"klg{tag}", subnet)

    @property
    def host_address(self) -> str:
        return str(self.subnet[1])

    @property
    def namespace_address(self) -> str:
        return str(self.subnet[2])

    def exists(self) -> bool:
        code, output = on_host(["ip", "netns", "list"])
        return code == 0 and any(line.split()[0] == self.namespace for line in output.splitlines() if line.strip())

    def setup_commands(self) -> list[list[str]]:
        ns, host, inner, prefix = self.namespace, self.host_device, self.namespace_device, self.subnet.prefixlen
        return [
            ["ip", "netns", "add", ns],
            ["ip", "link", "add", host, "type", "veth", "peer", "name", inner, "netns", ns],
            ["ip", "addr", "add", f"{self.host_address}/{prefix}", "dev", host],
            ["ip", "link", "set", host, "up"],
            ["ip", "-n", ns, "addr", "add", f"{self.namespace_address}/{prefix}", "dev", inner],
            ["ip", "-n", ns, "link", "set", inner, "up"],
            ["ip", "-n", ns, "link", "set", "lo", "up"],
        ]

    def setup(self) -> None:
        """Creates namespace + veth; on any failure removes what it created and raises."""
        if self.exists():
            raise KlinkError(f"network namespace {self.namespace} already exists; run `klinkctl netem clear` first")
        self._refuse_overlapping_routes()
        try:
            for argv in self.setup_commands():
                check(on_host(argv), f"namespace {self.namespace}", " ".join(argv))
        except KlinkError:
            self.teardown()
            raise

    def teardown(self) -> None:
        """Deleting the namespace deletes its veth end, and with it the peer on the host."""
        on_host(["ip", "netns", "del", self.namespace])
        if on_host(["ip", "link", "show", self.host_device])[0] == 0:
            on_host(["ip", "link", "del", self.host_device])

    def run(self, argv: list[str]) -> tuple[int, str]:
        return in_namespace(self.namespace)(argv)

    def wrap(self, argv: list[str]) -> list[str]:
        """argv run inside the namespace."""
        return ["ip", "netns", "exec", self.namespace, *argv]

    def start_relays(self, kafka_port: int, log_dir: Path) -> list[ManagedProcess]:
        host, veth = f"127.0.0.1:{kafka_port}", f"{self.host_address}:{kafka_port}"
        into_host = start_relay("relay-host", relay_argv(veth, host), log_dir / "relay-host.log", kafka_port)
        into_veth = start_relay("relay-namespace", self.wrap(relay_argv(host, veth)), log_dir / "relay-namespace.log",
                                kafka_port)
        relays = [into_host, into_veth]
        try:
            for relay in relays:
                wait_listening(relay)
        except KlinkError:
            stop_relays(relays)
            raise
        return relays

    def to_dict(self) -> dict:
        return {"namespace": self.namespace, "host_device": self.host_device,
                "namespace_device": self.namespace_device, "subnet": str(self.subnet)}

    def _refuse_overlapping_routes(self) -> None:
        code, output = on_host(["ip", "-j", "route", "show"])
        routes = json.loads(output) if code == 0 and output else []
        for route in routes:
            destination = route.get("dst", "")
            if destination in ("default", "") or ":" in destination:
                continue
            if ipaddress.ip_network(destination, strict=False).overlaps(self.subnet):
                raise KlinkError(f"{self.subnet} (for the generator's veth) overlaps the host route {destination}; "
                                 "nothing was changed")
