"""The network of sandboxed commands: one proxy per command, asking about each host.

Inside the sandbox there is no route out. Every sandboxed command gets `HTTP(S)_PROXY`
(`http://127.0.0.1:PROXY_PORT`) and `ALL_PROXY` (`socks5h://` on the same port); the
port is a socket this proxy listens on inside the jail's own network (netns.py), served
here, in the agent. The first bytes say which protocol: SOCKS5 (`\\x05`) or HTTP (CONNECT,
or a plain `http://` request).

A host on `sandbox.allowedDomains` (user settings only) is connected at once. Any other is
held while the user is asked about *that host* (`decide`); the command stays in the
sandbox whatever the answer. One question at a time per command: a second connection to
the same host waits for the first answer. A denied host gets a 403 (or a SOCKS refusal)
that says the user blocked it, and the command's result says so too.

The host's own services count as hosts: `localhost:3000`, `127.0.0.1:8000` (a loopback
host is named with its port). A server the command started inside the jail answers
first: a loopback connection tries the jail's own loopback, and only when nothing listens
there is it the host's, asked about.

Patterns: `example.com` (that host), `*.example.com` (its subdomains, not itself),
`localhost:3000` (one port of the host). `*` and a bare top-level `*.com` are refused as
settings: they would be no wall at all.

Instance-metadata and link-local addresses are never a question (addresses.py): refused by
rule unless listed exactly. The name is resolved once the host is allowed, and the
connection goes to the address that was checked.

In a run no person watches (`--yes`), `decide` answers "unattended" at once: the host is
refused, and the result says how to allow it for such runs (`--allow-host`, the setting).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import re
import socket
import struct
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from ..config import HOST_NAME
from ..shared.verdicts import HostVerdict
from .addresses import REFUSAL, Resolver, is_metadata_address, listed_exactly, metadata_by_rule

log = logging.getLogger(__name__)

PROXY_PORT = 3128
"""Where the proxy listens inside the jail."""
HEADER_LIMIT = 64 * 1024
CONNECT_TIMEOUT_SECONDS = 10.0
LOOPBACK_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost")
LOCAL_GRACE_SECONDS = 1.0
"""How long a loopback connection keeps trying the jail's own loopback before the host's
is asked about: a command that starts a server and polls it meets no question."""

Verdict = HostVerdict
"""The user allowed the host; denied it; no one could be asked; a run no person watches
refused it; or it is a metadata address (refused by rule)."""
Decide = Callable[[str], Awaitable[Verdict]]
"""Ask about HOST (a host name, or `localhost:PORT` for the host's own services)."""
SocketIn = Callable[[int], Awaitable[socket.socket]]
"""An unconnected TCP socket of the given family inside the jail's network."""


def matches(host: str, patterns: tuple[str, ...]) -> bool:
    """Whether `host` (as `shown` names it) is on the list; `localhost` there is every
    port of it, `localhost:3000` one."""
    name = host.lower().rstrip(".")
    bare, colon, port = name.rpartition(":")
    names = (name, bare) if colon and port.isdigit() and ":" not in bare else (name,)
    for pattern in patterns:
        pattern = pattern.lower()
        for candidate in names:
            if pattern.startswith("*.") and candidate.endswith(pattern[1:]):
                return True
            if candidate == pattern:
                return True
    return False


def is_loopback(host: str) -> bool:
    name = host.strip("[]").lower().rstrip(".")
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def shown(host: str, port: int) -> str:
    """The name a host is asked about and allowed by: a loopback host with its port."""
    return f"{host}:{port}" if is_loopback(host) else host.lower().rstrip(".")


@dataclass(frozen=True)
class Refusal:
    """Why a connection gets no upstream, and how the client is told."""

    message: str
    status: int | None
    """The HTTP status (403 blocked, 502 unreachable); None: closed without an answer, as a
    closed port is (a loopback host: a command polling its own server keeps polling)."""
    socks: int
    """The SOCKS5 reply code: 2 not allowed, 5 refused."""


@dataclass
class NetworkProxy:
    listener: socket.socket
    """Listening, inside the jail's network namespace."""
    allowed: tuple[str, ...]
    decide: Decide
    socket_in: SocketIn | None = None
    """Makes sockets in the jail's network, for its own loopback servers (None: none)."""
    resolver: Resolver = field(default_factory=Resolver)
    hosts: dict[str, Verdict] = field(default_factory=dict)
    """Every host this command reached for, in order, and what became of it."""
    asked_seconds: float = 0.0
    """Time spent waiting for the user's answers (the command's timeout stops meanwhile)."""
    asking_since: float | None = None
    """When the open question was asked (loop time), while one is open."""
    _server: asyncio.AbstractServer | None = None
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)
    _asking: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._client, sock=self.listener)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        else:
            self.listener.close()
        for task in list(self._tasks):
            task.cancel()

    def paused(self) -> float:
        """Seconds the command waited on the user so far, an open question included."""
        open_for = asyncio.get_running_loop().time() - self.asking_since if self.asking_since else 0
        return self.asked_seconds + open_for

    def notes(self) -> list[str]:
        """What the command's result says of its network."""
        said = []
        denied = [host for host, verdict in self.hosts.items() if verdict == "denied"]
        unasked = [host for host, verdict in self.hosts.items() if verdict == "unasked"]
        allowed = [host for host, verdict in self.hosts.items() if verdict == "allowed"]
        if allowed:
            said.append(f"network: {', '.join(allowed)} allowed")
        if denied:
            said.append(f"network access to {', '.join(denied)} was blocked by the user")
        if unasked:
            said.append(
                f"network access to {', '.join(unasked)} was blocked by the sandbox (there was "
                "no one to ask, or approvals.bash is deny; sandbox.allowedDomains allows hosts)"
            )
        for host, verdict in self.hosts.items():
            if verdict == "unattended":
                said.append(unattended_refusal(host))
            elif verdict == "metadata":
                said.append(metadata_refusal(host))
        return said

    def facts(self) -> list[dict[str, object]]:
        """The hosts for the command's card: `{host, allowed}` each, and `refused` (why)
        for a host no one was asked about: a metadata address, a run no person watches."""
        facts: list[dict[str, object]] = []
        for host, verdict in self.hosts.items():
            fact: dict[str, object] = {"host": host, "allowed": verdict == "allowed"}
            if verdict in ("metadata", "unattended"):
                fact["refused"] = verdict
            facts.append(fact)
        return facts

    async def _permitted(self, name: str) -> bool:
        if matches(name, self.allowed):
            self.hosts.setdefault(name, "allowed")
            return True
        async with self._asking:  # one question at a time; the same host once
            verdict = self.hosts.get(name)
            if verdict is None:
                loop = asyncio.get_running_loop()
                self.asking_since = loop.time()
                try:
                    verdict = self.hosts[name] = await self.decide(name)
                finally:
                    self.asked_seconds += loop.time() - self.asking_since
                    self.asking_since = None
        return verdict == "allowed"

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            first = await reader.readexactly(1)
            if first == b"\x05":
                await self._socks(reader, writer)
            else:
                await self._http(first, reader, writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            pass
        except asyncio.CancelledError:  # close(): the command ended, or its run was cancelled
            pass  # (asyncio's stream server would log a cancelled connection as an error)
        finally:
            if task is not None:
                self._tasks.discard(task)
            writer.close()

    async def _http(
        self, first: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        head = first + await reader.readuntil(b"\r\n\r\n")
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
        if not HOST_NAME.match(host) and not is_loopback(host):
            await _answer(writer, 400, "bad host")
            return
        upstream = await self._open(host, port)
        if isinstance(upstream, Refusal):
            if upstream.status is not None:
                await _answer(writer, upstream.status, upstream.message)
            return
        up_reader, up_writer = upstream
        if forward:
            up_writer.write(forward)
        else:
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))

    async def _socks(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """SOCKS5 (RFC 1928), CONNECT without authentication."""
        methods = await reader.readexactly((await reader.readexactly(1))[0])
        if 0 not in methods:
            writer.write(b"\x05\xff")
            return
        writer.write(b"\x05\x00")
        version, command, _, kind = await reader.readexactly(4)
        if kind == 1:
            host = socket.inet_ntop(socket.AF_INET, await reader.readexactly(4))
        elif kind == 4:
            host = socket.inet_ntop(socket.AF_INET6, await reader.readexactly(16))
        elif kind == 3:
            host = (await reader.readexactly((await reader.readexactly(1))[0])).decode("idna")
        else:
            writer.write(_socks_reply(8))
            return
        (port,) = struct.unpack("!H", await reader.readexactly(2))
        if version != 5 or command != 1:  # only CONNECT
            writer.write(_socks_reply(7))
            return
        upstream = await self._open(host, port)
        if isinstance(upstream, Refusal):
            writer.write(_socks_reply(upstream.socks))
            return
        writer.write(_socks_reply(0))
        up_reader, up_writer = upstream
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))

    async def _open(
        self, host: str, port: int
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | Refusal:
        """The connection to host:port, or why there is none."""
        bare = host.strip("[]")
        name = shown(bare, port)
        loopback = is_loopback(bare)
        if loopback:
            if port == PROXY_PORT:
                return Refusal("blocked: that is the sandbox's proxy itself", 403, 2)
            local = await self._jail_loopback(bare, port, undecided=self._undecided(name))
            if local is not None:
                return local
        elif metadata_by_rule(bare, self.resolver) and not listed_exactly(
            bare, self.resolver.local(bare), self.allowed
        ):
            return self._metadata(name)
        if not await self._permitted(name):
            verdict = self.hosts.get(name)
            if verdict == "unattended":
                return Refusal(unattended_refusal(name), None if loopback else 403, 2)
            who = "the user" if verdict == "denied" else "the sandbox"
            message = f"network access to {name} was blocked by {who}"
            return Refusal(message, None if loopback else 403, 5 if loopback else 2)
        try:
            addresses = await self.resolver.resolve(bare, port)
        except OSError as exc:
            return Refusal(f"could not resolve {name}: {exc}", None if loopback else 502, 4)
        if not loopback and any(map(is_metadata_address, addresses)):
            if not listed_exactly(bare, addresses, self.allowed):
                return self._metadata(name)
        return await self._connect(name, [str(address) for address in addresses], port, loopback)

    def _metadata(self, name: str) -> Refusal:
        self.hosts[name] = "metadata"
        return Refusal(metadata_refusal(name), 403, 2)

    async def _connect(
        self, name: str, addresses: list[str], port: int, loopback: bool
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | Refusal:
        """A connection to the first of the checked addresses that answers."""
        failure: BaseException | None = None
        for address in addresses:
            try:
                return await asyncio.wait_for(
                    asyncio.open_connection(address, port), CONNECT_TIMEOUT_SECONDS
                )
            except (OSError, asyncio.TimeoutError) as exc:
                failure = exc
        message = f"could not connect to {name}: {failure or type(failure).__name__}"
        return Refusal(message, None if loopback else 502, 5)

    def _undecided(self, name: str) -> bool:
        return name not in self.hosts and not matches(name, self.allowed)

    async def _jail_loopback(
        self, host: str, port: int, undecided: bool
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        """A server listening on the jail's own loopback, if there is one. Before a first
        question about the host's `host:port`, it is given LOCAL_GRACE_SECONDS to appear."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (LOCAL_GRACE_SECONDS if undecided else 0.0)
        while True:
            found = await self._jail_connect(host, port)
            if found is not None or loop.time() >= deadline:
                return found
            await asyncio.sleep(0.1)

    async def _jail_connect(
        self, host: str, port: int
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        if self.socket_in is None:
            return None
        six = ":" in host
        try:
            sock = await self.socket_in(socket.AF_INET6 if six else socket.AF_INET)
        except OSError as exc:
            log.debug("no socket in the jail for its loopback: %s", exc)
            return None
        try:
            loop = asyncio.get_running_loop()
            await loop.sock_connect(sock, ("::1" if six else "127.0.0.1", port))
        except OSError:
            sock.close()
            return None
        return await asyncio.open_connection(sock=sock)


def unattended_refusal(host: str) -> str:
    """What a run no person watches says of a host it did not reach (every front end)."""
    return (
        f"network access to {host} was refused: --yes does not open the network; allow this "
        f"host with --allow-host {host} or sandbox.allowedDomains in your settings file"
    )


def metadata_refusal(host: str) -> str:
    return (
        f"network access to {host} was refused: {REFUSAL} (it hands out the machine's cloud "
        "credentials); only listing it exactly in your user settings' sandbox.allowedDomains "
        "(or --allow-host) lets a command reach it"
    )


def _socks_reply(code: int) -> bytes:
    return bytes([5, code, 0, 1, 0, 0, 0, 0, 0, 0])


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
