"""The network proxy of sandboxed commands: HTTP CONNECT and plain HTTP, by host name.

Inside the sandbox there is no route out. With `sandbox.allowedDomains` set (user
settings only), a command's proxy traffic (`HTTP(S)_PROXY`, see bridge.py) reaches this
server, which runs outside, in the agent, on a Unix socket in a folder bound read-only
into the jail (policy.PROXY_INSIDE): the bridge connects to a path no command can swap
for another socket. A
host on the list is connected at once; any other is asked about like a command (allow
once, for this session, deny); a denied host gets a 403 whose body says so, and the
command's result says `network access to HOST was blocked by the sandbox`.

Patterns: `example.com` (that host), `*.example.com` (its subdomains, not itself). `*`
and a bare top-level `*.com` are refused as settings: they would be no wall at all.
Programs that ignore proxy variables (ssh, raw sockets) simply have no network.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..config import HOST_NAME

log = logging.getLogger(__name__)

PROXY_PORT = 3128
"""Where the bridge listens inside the jail."""
SOCKET_NAME = "proxy.sock"
HEADER_LIMIT = 64 * 1024
CONNECT_TIMEOUT_SECONDS = 10.0

Ask = Callable[[str], Awaitable[bool]]
"""Ask the user whether a command may reach HOST (True: yes)."""

_session_hosts: dict[str, set[str]] = {}
"""Hosts a user allowed "for this session", per session."""


def matches(host: str, patterns: tuple[str, ...]) -> bool:
    name = host.lower().rstrip(".")
    for pattern in patterns:
        pattern = pattern.lower()
        if pattern.startswith("*.") and name.endswith(pattern[1:]):
            return True
        if name == pattern:
            return True
    return False


def allow_for_session(session_id: str, host: str) -> None:
    _session_hosts.setdefault(session_id, set()).add(host.lower())


@dataclass
class NetworkProxy:
    socket_path: Path
    allowed: tuple[str, ...]
    session_id: str
    ask: Ask
    blocked: list[str] = field(default_factory=list)
    """Hosts refused during this command, in order (for its result)."""
    _server: asyncio.AbstractServer | None = None
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    async def start(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()
        self._server = await asyncio.start_unix_server(self._client, str(self.socket_path))

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()

    def describe_blocked(self) -> str | None:
        if not self.blocked:
            return None
        hosts = ", ".join(dict.fromkeys(self.blocked))
        return f"network access to {hosts} was blocked by the sandbox"

    async def _permitted(self, host: str) -> bool:
        if matches(host, self.allowed) or host.lower() in _session_hosts.get(self.session_id, ()):
            return True
        if host in self.blocked:
            return False
        return await self.ask(host)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await self._serve(reader, writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            pass
        finally:
            if task is not None:
                self._tasks.discard(task)
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        if len(head) > HEADER_LIMIT:
            return
        request_line, _, rest = head.partition(b"\r\n")
        method, target, version = request_line.decode("latin-1").split(" ", 2)
        if method.upper() == "CONNECT":
            host, port = _host_port(target, 443)
            forward = b""
        else:
            match = re.match(r"^http://([^/]+)(/.*)?$", target, re.IGNORECASE)
            if not match:
                await _answer(writer, 400, "only http:// URLs and CONNECT go through this proxy")
                return
            host, port = _host_port(match.group(1), 80)
            origin = f"{method} {match.group(2) or '/'} {version}\r\n".encode("latin-1")
            forward = origin + rest
        if not HOST_NAME.match(host):
            await _answer(writer, 400, "bad host")
            return
        if not await self._permitted(host):
            self.blocked.append(host)
            await _answer(writer, 403, f"network access to {host} was blocked by the sandbox")
            return
        try:
            up_reader, up_writer = await asyncio.wait_for(
                asyncio.open_connection(host.strip("[]"), port), CONNECT_TIMEOUT_SECONDS
            )
        except (OSError, asyncio.TimeoutError) as exc:
            await _answer(writer, 502, f"could not connect to {host}:{port}: {exc}")
            return
        if forward:
            up_writer.write(forward)
        else:
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))


def _host_port(text: str, default: int) -> tuple[str, int]:
    if text.startswith("["):
        host, _, port = text[1:].partition("]")
        return f"[{host}]", int(port.lstrip(":") or default)
    host, _, port = text.rpartition(":") if text.count(":") == 1 else (text, "", "")
    return (host, int(port)) if port else (text, default)


async def _answer(writer: asyncio.StreamWriter, status: int, message: str) -> None:
    reason = {400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway"}[status]
    body = (message + "\n").encode()
    writer.write(
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
        + body
    )
    await writer.drain()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            writer.close()
