"""A TCP relay: `python -m klinkctl.netem.relay LISTEN_HOST:PORT TARGET_HOST:PORT`.

Carries the generator's Kafka connections across the veth of its network namespace (see namespace.py).
Each accepted connection gets its own connection to the target; bytes are copied both ways until either
side closes. Runs until SIGTERM.
"""

from __future__ import annotations

import asyncio
import sys

CHUNK = 256 * 1024


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(CHUNK):
            writer.write(data)
            await writer.drain()
    except ConnectionError:
        pass
    finally:
        writer.close()


async def _serve(listen: tuple[str, int], target: tuple[str, int]) -> None:
    async def relay(client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(*target)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(_pipe(client_reader, upstream_writer), _pipe(upstream_reader, client_writer))

    server = await asyncio.start_server(relay, *listen, reuse_address=True)
    print(f"relaying {listen[0]}:{listen[1]} -> {target[0]}:{target[1]}", flush=True)
    async with server:
        await server.serve_forever()


def _address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host, int(port)


def main(argv: list[str]) -> None:
    if len(argv) != 2:
        sys.exit("usage: python -m klinkctl.netem.relay LISTEN_HOST:PORT TARGET_HOST:PORT")
    asyncio.run(_serve(_address(argv[0]), _address(argv[1])))


if __name__ == "__main__":
    main(sys.argv[1:])
