"""The TCP relay (klinkctl.netem.relay) and its rate limit: the token bucket's arithmetic on a fake clock, then real
relays on 127.0.0.1 between a test client and a test server on ephemeral ports."""

import asyncio
import json
import os
import socket
import threading
import time
from contextlib import asynccontextmanager

import pytest

from klinkctl.netem.relay import PIECE, Link, serve
from klinkctl.netem.relay_process import relay_argv, start_relay, wait_listening
from klinkctl.netem.token_bucket import TokenBucket
from klinkctl.stack.processes import stop


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_full_bucket_sends_its_depth_at_once_then_bytes_wait_their_turn():
    clock = FakeClock()
    bucket = TokenBucket(rate=1000, depth=500, clock=clock)
    assert bucket.reserve(500) == 0
    assert bucket.reserve(250) == pytest.approx(0.25)
    assert bucket.reserve(250) == pytest.approx(0.5)  # queued behind the first: senders share the rate


def test_a_pause_refills_the_bucket_up_to_its_depth_only():
    clock = FakeClock()
    bucket = TokenBucket(rate=1000, depth=500, clock=clock)
    bucket.reserve(500)
    clock.now += 0.2
    assert bucket.reserve(200) == 0
    clock.now += 3600
    assert bucket.reserve(500) == 0
    assert bucket.reserve(100) == pytest.approx(0.1)


def test_senders_that_wait_as_told_get_the_rate_and_no_more():
    clock = FakeClock()
    bucket = TokenBucket(rate=10_000, depth=1000, clock=clock)
    start = clock.now
    for _ in range(100):
        clock.now += bucket.reserve(1000)
    assert clock.now - start == pytest.approx((100 * 1000 - 1000) / 10_000)  # all but the first depth at the rate


def test_a_bucket_needs_a_rate():
    with pytest.raises(ValueError):
        TokenBucket(rate=0, depth=1000)


# --- real relays on 127.0.0.1 ---------------------------------------------------------------------------------

@asynccontextmanager
async def relaying(link: Link, counters=None):
    """`link` relaying to its target until the block ends."""
    stop = asyncio.Event()
    task = asyncio.create_task(serve(link, stop, counters))
    while link.listen[1] == 0:
        await asyncio.sleep(0.005)
    try:
        yield link
    finally:
        for _ in range(200):  # the test's connections wind down through the relay before it stops
            if not link.connections_open:
                break
            await asyncio.sleep(0.005)
        stop.set()
        await task


async def listening(handler) -> tuple[asyncio.Server, tuple[str, int]]:
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[:2]


async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    while data := await reader.read(65536):
        writer.write(data)
        await writer.drain()
    writer.close()


def test_without_a_limit_bytes_cross_both_ways_unchanged_and_are_counted(tmp_path):
    payload = os.urandom(1_000_000)

    async def scenario() -> bytes:
        server, target = await listening(echo)
        async with server, relaying(Link(("127.0.0.1", 0), target), tmp_path / "counters.json") as link:
            reader, writer = await asyncio.open_connection(*link.listen)
            writer.write(payload)
            await writer.drain()
            echoed = await reader.readexactly(len(payload))
            writer.close()
            await writer.wait_closed()
            return echoed

    assert asyncio.run(scenario()) == payload
    counters = json.loads((tmp_path / "counters.json").read_text())
    assert (counters["bytes_to_target"], counters["bytes_to_clients"]) == (len(payload), len(payload))
    assert counters["rate_bytes_per_s"] is None and counters["connections_total"] == 1


def test_a_limited_relay_passes_about_its_rate_each_way_at_once():
    rate, size = 200_000, 240_000  # about 1.1 s each way; both ways together take as long, not twice

    async def upload_and_download(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(bytes(size))
        await asyncio.gather(reader.readexactly(size), writer.drain())
        writer.close()

    async def scenario() -> tuple[float, Link]:
        server, target = await listening(upload_and_download)
        async with server, relaying(Link(("127.0.0.1", 0), target, rate)) as link:
            started = time.monotonic()
            reader, writer = await asyncio.open_connection(*link.listen)
            writer.write(bytes(size))
            downloaded, _ = await asyncio.gather(reader.readexactly(size), writer.drain())
            elapsed = time.monotonic() - started
            writer.close()
            await writer.wait_closed()
            assert len(downloaded) == size
            return elapsed, link

    elapsed, link = asyncio.run(scenario())
    assert (link.to_clients.carried, link.to_target.carried) == (size, size)
    ideal = (size - PIECE) / rate  # the bucket's depth goes at once
    assert 0.85 * ideal <= elapsed <= 2 * size / rate + 0.5


def test_the_relay_process_counts_until_sigterm_and_then_writes_its_last_counts(tmp_path):
    with socket.create_server(("127.0.0.1", 0)) as target, socket.create_server(("127.0.0.1", 0)) as probe:
        listen = probe.getsockname()[1]
        probe.close()  # a free port for the relay (the stack picks its ports the same way)
        threading.Thread(target=lambda: _echo_once(target), daemon=True).start()
        argv = relay_argv(f"127.0.0.1:{listen}", f"127.0.0.1:{target.getsockname()[1]}", "--rate", "1e7",
                          "--counters", str(tmp_path / "counters.json"))
        relay = start_relay("tm-link-9", argv, tmp_path / "relay.log", listen)
        try:
            wait_listening(relay)
            with socket.create_connection(("127.0.0.1", listen)) as client:
                client.sendall(b"x" * 50_000)
                echoed = _receive(client, 50_000)  # the relay closes both ways at once: no half-close
        finally:
            forced = stop(relay, grace_s=5)
    assert echoed == b"x" * 50_000 and not forced
    counters = json.loads((tmp_path / "counters.json").read_text())
    assert counters["bytes_to_clients"] == counters["bytes_to_target"] == 50_000
    assert counters["rate_bytes_per_s"] == 1e7


def _echo_once(server: socket.socket) -> None:
    connection, _ = server.accept()
    with connection:
        while data := connection.recv(65536):
            connection.sendall(data)


def _receive(client: socket.socket, size: int) -> bytes:
    received = b""
    while len(received) < size and (data := client.recv(65536)):
        received += data
    return received
