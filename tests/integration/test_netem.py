"""tc netem and the generator's network namespace, for real: root, iproute2, this kernel (which has no netem)."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading

import pytest

from klinkctl.netem import control
from klinkctl.netem.links import on_host, probe_netem_on_this_host
from klinkctl.netem.namespace import GeneratorNamespace
from klinkctl.errors import KlinkError

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="network namespaces and tc need root")

#: A qdisc every kernel has: stands in for netem where the kernel lacks it.
PFIFO = ["pfifo", "limit", "10000"]


def netem_available() -> bool:
    try:
        probe_netem_on_this_host()
        return True
    except KlinkError:
        return False


def host_links() -> set[str]:
    return {link["ifname"] for link in json.loads(on_host(["ip", "-j", "link", "show"])[1])}


def namespaces() -> set[str]:
    return {line.split()[0] for line in on_host(["ip", "netns", "list"])[1].splitlines() if line.strip()}


def klinkctl(state_dir, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "klinkctl", "netem", *args, "--state-dir", str(state_dir)],
                          capture_output=True, text=True, timeout=60, check=False)


@pytest.fixture
def echo_server():
    """A TCP echo server on the host's loopback, standing in for the Kafka broker."""
    server = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        with contextlib.suppress(OSError):
            while True:
                connection, _ = server.accept()
                with connection:
                    connection.sendall(connection.recv(1024).upper())

    threading.Thread(target=serve, daemon=True).start()
    yield server.getsockname()[1]
    server.close()


#: Run inside the namespace: what its 127.0.0.1:<port> answers (the relays need a moment to listen).
CLIENT = """
import socket, sys, time
for _ in range(50):
    try:
        with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5) as s:
            s.sendall(b"through the veth"); print(s.recv(1024).decode()); break
    except OSError:
        time.sleep(0.1)
"""


def test_the_namespace_and_veth_are_set_up_used_and_torn_down_leaving_nothing(tmp_path, echo_server):
    links_before, namespaces_before = host_links(), namespaces()
    space = GeneratorNamespace.for_state_dir(tmp_path)
    entry = control.apply_local(tmp_path, control.GENERATOR, PFIFO, kafka_port=echo_server, probe=False)
    try:
        assert space.namespace in namespaces() and space.host_device in host_links()
        assert "pfifo" in space.run(["tc", "qdisc", "show", "dev", space.namespace_device])[1]
        assert [r["name"] for r in entry.relays] == ["relay-host", "relay-namespace"]
        # the namespace's 127.0.0.1:<kafka port> reaches the host's, across the veth (and its qdisc)
        assert space.run([sys.executable, "-c", CLIENT, str(echo_server)]) == (0, "THROUGH THE VETH")
        sent = json.loads(on_host(["ip", "-n", space.namespace, "-j", "-s", "link", "show", space.namespace_device])[1])
        assert sent[0]["stats64"]["tx"]["packets"] > 0
        shown = klinkctl(tmp_path, "show")
        assert "generator (" + space.namespace_device + "): pfifo limit 10000" in shown.stdout
    finally:
        cleared = klinkctl(tmp_path, "clear")
    assert cleared.returncode == 0 and "removed netem from generator" in cleared.stdout
    assert host_links() == links_before and namespaces() == namespaces_before
    assert not (tmp_path / control.STATE_FILE).exists()
    assert klinkctl(tmp_path, "clear").stdout.startswith("nothing to clear")


@pytest.mark.skipif(netem_available(), reason="this kernel has netem; the no-netem path cannot happen here")
def test_without_netem_apply_says_so_in_one_line_and_leaves_nothing_behind(tmp_path):
    links_before, namespaces_before = host_links(), namespaces()
    result = klinkctl(tmp_path, "apply", "--delay", "100ms")
    assert result.returncode != 0
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "no netem qdisc" in result.stderr and "generator-side delay models" in result.stderr
    assert host_links() == links_before and namespaces() == namespaces_before
    assert not (tmp_path / control.STATE_FILE).exists()


@pytest.mark.skipif(not netem_available(), reason="this kernel has no netem qdisc")
def test_with_netem_apply_and_clear_the_generator_link(tmp_path):
    entry = control.apply_local(tmp_path, control.GENERATOR, ["netem", "delay", "50ms"], kafka_port=1)
    try:
        assert "netem" in GeneratorNamespace.for_state_dir(tmp_path).run(["tc", "qdisc", "show", "dev", entry.device])[1]
    finally:
        control.clear(tmp_path)
