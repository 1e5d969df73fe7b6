"""The TCP ports a command listens on, read from /proc (never by connecting to them).

A sandboxed command has a network of its own: `/proc/<pid>/net/tcp` of any process in
its jail lists that network's sockets, and every socket listening there is the
command's (but the proxy's, PROXY_PORT, which the agent made there). An unsandboxed
command shares the host's network: its ports are the listening sockets of the host
whose inode one of its processes holds (found through `/proc/<pid>/fd`).

Reading a TCP table costs milliseconds however few sockets a network has (the kernel
walks its whole connection hash), so a look starts with a mark that costs microseconds
(`jail_mark`: the jail's TCP sockets in use, /proc/PID/net/sockstat; `process_mark`: the
sockets the command's processes hold) and reads the tables only when the mark moved.
Nothing is asked of the command.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from dataclasses import dataclass

LISTEN = "0A"
"""The socket state of a listening TCP socket in /proc/net/tcp."""
LOOPBACK_V4 = "127.0.0.1"
LOOPBACK_V6 = "::1"


@dataclass(frozen=True, order=True)
class Listening:
    """One listening port, and the loopback address that reaches it (a server bound to
    `::` or `::1` only is reached over IPv6)."""

    port: int
    address: str = LOOPBACK_V4


def jail_ports(pid: int, leave_out: Iterable[int] = ()) -> list[Listening]:
    """The ports listening in the network of process `pid` (a process of a jail: its own
    network), `leave_out` aside; [] when /proc cannot be read (the jail is gone)."""
    skip = set(leave_out)
    found: dict[int, Listening] = {}
    for six, rows in ((False, _table(pid, "tcp")), (True, _table(pid, "tcp6"))):
        for address, port, _inode in rows:
            if port in skip or port in found:
                continue
            if six and not _v4_mapped(address):
                found[port] = Listening(port, LOOPBACK_V6)
            else:
                found[port] = Listening(port, LOOPBACK_V4)
    return sorted(found.values())


def jail_mark(pid: int) -> str | None:
    """What changes when a socket opens or closes in process `pid`'s network: its TCP
    sockets in use, v4 and v6 (None: /proc cannot be read)."""
    found = []
    for name in ("sockstat", "sockstat6"):
        try:
            with open(f"/proc/{pid}/net/{name}", encoding="ascii", errors="replace") as file:
                lines = file.read().splitlines()
        except OSError:
            return None
        for line in lines:  # "TCP: inuse 3 orphan 0 tw 0 alloc 5 mem 1": only `inuse`
            fields = line.split()  # is the network's own, the rest the whole system's
            if fields[:2] in (["TCP:", "inuse"], ["TCP6:", "inuse"]) and len(fields) > 2:
                found.append(f"{fields[0]}{fields[2]}")
    return " ".join(found)


def process_mark(pids: Iterable[int]) -> frozenset[str]:
    """The sockets processes `pids` hold (their inodes): a new listener is a new one."""
    inodes: set[str] = set()
    for pid in pids:
        inodes |= _socket_inodes(pid)
    return frozenset(inodes)


def process_ports(pids: Iterable[int]) -> list[Listening]:
    """The host ports the processes `pids` listen on (an unsandboxed command's)."""
    inodes: set[str] = set()
    for pid in pids:
        inodes |= _socket_inodes(pid)
    if not inodes:
        return []
    found: dict[int, Listening] = {}
    for six, rows in ((False, _table("self", "tcp")), (True, _table("self", "tcp6"))):
        for address, port, inode in rows:
            if inode in inodes and port not in found:
                v6 = six and not _v4_mapped(address)
                found[port] = Listening(port, LOOPBACK_V6 if v6 else LOOPBACK_V4)
    return sorted(found.values())


def _table(pid: int | str, name: str) -> list[tuple[str, int, str]]:
    """(local address in hex, port, inode) of each listening socket in /proc/PID/net/NAME."""
    try:
        with open(f"/proc/{pid}/net/{name}", encoding="ascii", errors="replace") as file:
            lines = file.read().splitlines()[1:]
    except OSError:
        return []
    rows = []
    for line in lines:
        fields = line.split()
        if len(fields) < 10 or fields[3] != LISTEN:
            continue
        address, _, port = fields[1].rpartition(":")
        with contextlib.suppress(ValueError):
            rows.append((address, int(port, 16), fields[9]))
    return rows


def _v4_mapped(address: str) -> bool:
    """An IPv6 table row bound to an IPv4-mapped address (::ffff:a.b.c.d)."""
    return len(address) == 32 and address[:24] == "0000000000000000FFFF0000"


def _socket_inodes(pid: int) -> set[str]:
    folder = f"/proc/{pid}/fd"
    found: set[str] = set()
    try:
        names = os.listdir(folder)
    except OSError:
        return found
    for name in names:
        try:
            target = os.readlink(f"{folder}/{name}")
        except OSError:
            continue
        if target.startswith("socket:["):
            found.add(target[8:-1])
    return found
