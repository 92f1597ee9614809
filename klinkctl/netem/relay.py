"""A TCP relay: `python -m klinkctl.netem.relay LISTEN_HOST:PORT TARGET_HOST:PORT [--rate B/s] [--counters FILE]`.

Carries the generator's Kafka connections across the veth of its network namespace (see namespace.py), and the
shuffle connections other TaskManagers open to a TaskManager whose link `up --tm-link-rate` slows
(klinkctl.stack.tm_links). Each accepted connection gets its own connection to the target; bytes are copied both
ways until either side closes. With --rate, each direction passes at most that many bytes per second, all
connections together (one token bucket per direction). With --counters, the bytes carried each way are rewritten
to that JSON file every second. Runs until SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

from klinkctl.files import write_json
from klinkctl.netem.token_bucket import TokenBucket

CHUNK = 256 * 1024
#: With a rate, bytes go out in pieces of at most this, which is also the bucket's depth: after a pause a burst
#: is at most 16 KiB, as from a link with a short queue, instead of a whole read at once.
PIECE = 16 * 1024
COUNTERS_PERIOD_S = 1.0


@dataclass
class Direction:
    """One direction of the relayed link, shared by all its connections: the bytes carried, the rate limit."""

    bucket: TokenBucket | None = None
    carried: int = 0

    async def carry(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Copies until the reader ends, then closes the writer."""
        size = PIECE if self.bucket else CHUNK
        try:
            while data := await reader.read(size):
                if self.bucket:
                    await asyncio.sleep(self.bucket.reserve(len(data)))
                writer.write(data)
                self.carried += len(data)
                await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()


@dataclass
class Link:
    """Everything one relay carries: to its target (the clients' requests) and back to its clients."""

    listen: tuple[str, int]
    target: tuple[str, int]
    rate: float | None = None
    to_target: Direction = field(default_factory=Direction)
    to_clients: Direction = field(default_factory=Direction)
    connections_open: int = 0
    connections_total: int = 0

    def __post_init__(self) -> None:
        for direction in (self.to_target, self.to_clients) if self.rate else ():
            direction.bucket = TokenBucket(self.rate, PIECE)

    async def relay(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        try:
            target_reader, target_writer = await asyncio.open_connection(*self.target)
        except OSError:
            client_writer.close()
            return
        self.connections_open += 1
        self.connections_total += 1
        try:
            await asyncio.gather(self.to_target.carry(client_reader, target_writer),
                                 self.to_clients.carry(target_reader, client_writer))
        finally:
            self.connections_open -= 1

    def counters(self) -> dict:
        return {"time_ms": int(time.time() * 1000), "listen": _text(self.listen), "target": _text(self.target),
                "rate_bytes_per_s": self.rate, "bytes_to_clients": self.to_clients.carried,
                "bytes_to_target": self.to_target.carried, "connections_open": self.connections_open,
                "connections_total": self.connections_total}


async def start(link: Link) -> asyncio.Server:
    """Listens (on a port of the system's choice if link.listen's is 0: link.listen then says which)."""
    server = await asyncio.start_server(link.relay, *link.listen, reuse_address=True)
    link.listen = server.sockets[0].getsockname()[:2]
    limit = f" at most {link.rate:.0f} B/s each way" if link.rate else ""
    print(f"relaying {_text(link.listen)} -> {_text(link.target)}{limit}", flush=True)
    return server


async def serve(link: Link, stop: asyncio.Event, counters: Path | None = None) -> None:
    """Relays until `stop` is set; keeps `counters` current meanwhile and writes it once more at the end. Open
    connections are left to the caller's end (asyncio.run cancels them): Python 3.12's Server.wait_closed would
    wait for the TaskManagers to close theirs."""
    server = await start(link)
    try:
        while not stop.is_set():
            if counters:
                write_json(counters, link.counters())
            try:
                await asyncio.wait_for(stop.wait(), COUNTERS_PERIOD_S)
            except TimeoutError:
                pass
    finally:
        server.close()
        if counters:
            write_json(counters, link.counters())


async def _until_sigterm(link: Link, counters: Path | None) -> None:
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await serve(link, stop, counters)


def _address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host, int(port)


def _text(address: tuple[str, int]) -> str:
    return f"{address[0]}:{address[1]}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m klinkctl.netem.relay", description="A TCP relay.")
    parser.add_argument("listen", type=_address, help="HOST:PORT to listen on")
    parser.add_argument("target", type=_address, help="HOST:PORT to connect each client to")
    parser.add_argument("--rate", type=float, help="at most this many bytes per second each way [no limit]")
    parser.add_argument("--counters", type=Path, help="JSON file of the bytes carried, rewritten every second")
    args = parser.parse_args(argv)
    if args.rate is not None and not args.rate > 0:
        parser.error(f"--rate must be more than 0 bytes per second, got {args.rate}")
    asyncio.run(_until_sigterm(Link(args.listen, args.target, args.rate), args.counters))


if __name__ == "__main__":
    main()
