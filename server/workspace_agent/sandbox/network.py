"""One sandboxed command's network: the proxy in its jail, set up while bwrap waits.

bwrap is started with `--info-fd` (it writes the jail's first pid there once the
namespaces exist) and `--block-fd` (it waits for a byte there before it runs the
command). In between, `open` makes the proxy's listening socket in the jail's network
(netns.py) and serves it (proxy.py); then the command runs. Whatever fails on the way, the
command still runs, without network, and its result says why.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from dataclasses import dataclass, field

from . import netns
from .proxy import PROXY_PORT, Decide, NetworkProxy

log = logging.getLogger(__name__)


def proxy_env() -> dict[str, str]:
    """What points a command's programs at the proxy. Nothing bypasses it: the jail's
    own loopback is tried first by the proxy itself."""
    http = f"http://127.0.0.1:{PROXY_PORT}"
    socks = f"socks5h://127.0.0.1:{PROXY_PORT}"
    env = {name: http for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")}
    env.update({name: socks for name in ("ALL_PROXY", "all_proxy")})
    env.update({"npm_config_proxy": http, "npm_config_https_proxy": http})
    env.update({"NO_PROXY": "", "no_proxy": ""})
    return env


@dataclass
class CommandNetwork:
    allowed: tuple[str, ...]
    decide: Decide
    info_read: int = -1
    info_write: int = -1
    block_read: int = -1
    block_write: int = -1
    proxy: NetworkProxy | None = None
    problem: str | None = None
    jail_pid: int | None = None
    """The jail's first process (its network is the jail's): where its ports are read."""
    _netns: int = -1
    _notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.info_read, self.info_write = os.pipe()
        self.block_read, self.block_write = os.pipe()
        for fd in (self.info_read, self.block_write):
            os.set_inheritable(fd, False)

    def bwrap_args(self) -> list[str]:
        return ["--info-fd", str(self.info_write), "--block-fd", str(self.block_read)]

    def child_fds(self) -> tuple[int, ...]:
        """bwrap's ends, passed to it (until it started)."""
        return tuple(fd for fd in (self.info_write, self.block_read) if fd >= 0)

    def started(self) -> None:
        """bwrap has its copies of its ends: ours can go."""
        for name in ("info_write", "block_read"):
            fd = getattr(self, name)
            if fd >= 0:
                os.close(fd)
                setattr(self, name, -1)

    async def open(self) -> None:
        """Between bwrap's start and the command's: the proxy, then the go-ahead."""
        try:
            pid = await asyncio.to_thread(netns.child_pid, self.info_read)
            self.info_read = -1
            self._netns = netns.open_netns(pid)
            self.jail_pid = pid
            listener = await self._socket(socket.AF_INET, PROXY_PORT)
            self.proxy = NetworkProxy(listener, self.allowed, self.decide, self._socket)
            await self.proxy.start()
        except OSError as exc:
            self.problem = f"no network for this command: the sandbox's proxy did not start ({exc})"
            log.warning("%s", self.problem)
        finally:
            self._go()

    async def _socket(self, family: int, port: int | None = None) -> socket.socket:
        return await asyncio.to_thread(netns.socket_in, self._netns, family, port)

    async def connect_inside(self, port: int, address: str = "127.0.0.1") -> socket.socket:
        """A socket connected to `address`:`port` on the jail's own loopback (a server the
        command started there), for a host port forward (forward.py); OSError when
        nothing listens there or the jail's network is gone."""
        if self._netns < 0:
            raise OSError("the sandbox's network is closed")
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        sock = await self._socket(family)
        try:
            await asyncio.get_running_loop().sock_connect(sock, (address, port))
        except BaseException:
            sock.close()
            raise
        return sock

    def _go(self) -> None:
        if self.block_write >= 0:
            with contextlib.suppress(OSError):  # bwrap may be gone already
                os.write(self.block_write, b"1")
            os.close(self.block_write)
            self.block_write = -1

    async def close(self) -> None:
        self._go()
        if self.proxy is not None:
            await self.proxy.close()
        for name in ("info_read", "info_write", "block_read", "_netns"):
            fd = getattr(self, name)
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
                setattr(self, name, -1)

    def paused(self) -> float:
        """Seconds its commands waited on the user's answers about hosts."""
        return self.proxy.paused() if self.proxy is not None else 0.0

    def notes(self) -> list[str]:
        if self.problem:
            return [self.problem]
        return self.proxy.notes() if self.proxy is not None else []

    def facts(self) -> list[dict[str, object]]:
        return self.proxy.facts() if self.proxy is not None else []
