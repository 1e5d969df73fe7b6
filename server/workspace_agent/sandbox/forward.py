"""A host port that leads into a sandboxed command's network: how the user's browser opens
the dev server a command started in the sandbox.

A server in the jail listens on the jail's own loopback, which nothing on the host can
reach. The agent listens on the host's 127.0.0.1 (the same port number when it is free,
else one the system picks) and pipes each connection it accepts to a socket made in the
jail's network namespace (netns.py, as the proxy's) and connected to the server there.
Nothing listens on any address but the host's loopback.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

log = logging.getLogger(__name__)

Connect = Callable[[], Awaitable[socket.socket]]
"""A new socket connected to the server inside the jail (OSError when it is not there)."""
CHUNK = 65536


@dataclass
class PortForward:
    port: int
    """The port inside the jail."""
    host_port: int
    """The port on the host's 127.0.0.1."""
    _server: asyncio.AbstractServer | None = None
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    @classmethod
    async def open(cls, port: int, connect: Connect) -> PortForward:
        """Listen on 127.0.0.1:`port` (or any free port when that one is taken) and lead
        every connection to `connect`'s."""
        listener = _listener(port)
        forward = cls(port, listener.getsockname()[1])

        async def client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            task = asyncio.current_task()
            if task is not None:
                forward._tasks.add(task)
            try:
                await _lead(reader, writer, connect)
            finally:
                if task is not None:
                    forward._tasks.discard(task)

        forward._server = await asyncio.start_server(client, sock=listener)
        return forward

    @property
    def url(self) -> str:
        return f"http://localhost:{self.host_port}"

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for task in list(self._tasks):
            task.cancel()


def _listener(port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError as exc:
            if exc.errno not in (errno.EADDRINUSE, errno.EACCES):
                raise
            sock.bind(("127.0.0.1", 0))  # taken on the host: another number
        sock.listen(64)
        sock.setblocking(False)
    except BaseException:
        sock.close()
        raise
    return sock


async def _lead(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, connect: Connect
) -> None:
    try:
        inside = await connect()
    except OSError as exc:
        log.debug("port forward: nothing to connect to in the sandbox: %s", exc)
        writer.close()
        return
    in_reader, in_writer = await asyncio.open_connection(sock=inside)
    try:
        await asyncio.gather(_pipe(reader, in_writer), _pipe(in_reader, writer))
    finally:
        for end in (writer, in_writer):
            with contextlib.suppress(OSError):
                end.close()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(CHUNK):
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except OSError:
        with contextlib.suppress(OSError):
            writer.close()
