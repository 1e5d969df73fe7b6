"""Sockets in a sandboxed command's network namespace, made from outside the jail.

The jail has a network of its own: a loopback and nothing else. The network proxy
(proxy.py) runs in the agent, outside; for a program inside to reach it at
127.0.0.1:PROXY_PORT, the proxy's listening socket is made *in the jail's namespace*
before the command starts (bwrap waits on `--block-fd` until it is there), and the agent
accepts on it. No process of ours runs inside the jail, and a command pays only for one
socket until it opens a connection. A socket stays in the namespace it was made in,
whoever holds it; so does an outgoing one (the proxy tries the jail's own loopback first).

Entering a namespace needs CAP_SYS_ADMIN over it. Root enters it from a thread of its
own (namespaces are per thread), which goes back to the agent's namespace at once. Anyone
else forks a child that first enters the namespace's user namespace, which the user owns
(bwrap made it), and hands the socket back over a socket pair (SCM_RIGHTS).
"""

from __future__ import annotations

import ctypes
import fcntl
import json
import os
import socket
import threading

CLONE_NEWNET = 0x40000000
CLONE_NEWUSER = 0x10000000
NS_GET_USERNS = 0xB701
"""ioctl on a namespace fd: an fd of the user namespace that owns it."""
INFO_LIMIT = 64 * 1024

_libc = ctypes.CDLL(None, use_errno=True)


class NamespaceError(OSError):
    """No socket could be made in the jail's network namespace."""


def child_pid(info_fd: int) -> int:
    """The jail's first process, from bwrap's `--info-fd` (one JSON object); blocks until
    bwrap has made its namespaces."""
    data = b""
    try:
        while len(data) < INFO_LIMIT:
            chunk = os.read(info_fd, 4096)
            if not chunk:
                break
            data += chunk
            if data.rstrip().endswith(b"}"):
                break
    finally:
        os.close(info_fd)
    try:
        return int(json.loads(data)["child-pid"])
    except (ValueError, KeyError, TypeError) as exc:
        raise NamespaceError(f"bwrap gave no child pid ({data[:80]!r})") from exc


def open_netns(pid: int) -> int:
    """An fd of process `pid`'s network namespace (it keeps the namespace alive)."""
    try:
        return os.open(f"/proc/{pid}/ns/net", os.O_RDONLY | os.O_CLOEXEC)
    except OSError as exc:
        raise NamespaceError(f"the sandbox's network namespace is not there: {exc}") from exc


def socket_in(
    netns_fd: int, family: int = socket.AF_INET, port: int | None = None
) -> socket.socket:
    """A TCP socket made in the namespace of `netns_fd`: listening on `port` (all of the
    jail's addresses: its loopback is all it has), or unconnected when `port` is None."""
    if os.geteuid() == 0:
        try:
            return _from_thread(netns_fd, family, port)
        except PermissionError:
            pass  # root without CAP_SYS_ADMIN (in a container): as anyone else
    return _from_child(netns_fd, family, port)


def _make(family: int, port: int | None) -> socket.socket:
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        if port is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(("0.0.0.0" if family == socket.AF_INET else "::", port))
            sock.listen(64)
        sock.setblocking(False)
    except BaseException:
        sock.close()
        raise
    return sock


def _setns(fd: int, kind: int) -> None:
    if _libc.setns(fd, kind) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))


def _from_thread(netns_fd: int, family: int, port: int | None) -> socket.socket:
    """In a thread of its own, so that a thread that could not go back is simply gone."""
    result: list[socket.socket | BaseException] = []

    def enter() -> None:
        home = os.open("/proc/thread-self/ns/net", os.O_RDONLY | os.O_CLOEXEC)
        try:
            _setns(netns_fd, CLONE_NEWNET)
            try:
                result.append(_make(family, port))
            finally:
                _setns(home, CLONE_NEWNET)
        except BaseException as exc:
            result.append(exc)
        finally:
            os.close(home)

    thread = threading.Thread(target=enter, name="sandbox-netns", daemon=True)
    thread.start()
    thread.join()
    found = result[0] if result else NamespaceError("the namespace thread failed")
    if isinstance(found, BaseException):
        for extra in result[1:]:
            if isinstance(extra, socket.socket):
                extra.close()
        raise found
    return found


def _from_child(netns_fd: int, family: int, port: int | None) -> socket.socket:
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    with ours, theirs:
        pid = os.fork()
        if pid == 0:  # the child: system calls only, then _exit
            status = 1
            try:
                ours.close()
                try:
                    _setns(netns_fd, CLONE_NEWNET)
                except PermissionError:
                    owner = fcntl.ioctl(netns_fd, NS_GET_USERNS)
                    _setns(owner, CLONE_NEWUSER)
                    _setns(netns_fd, CLONE_NEWNET)
                made = _make(family, port)
                socket.send_fds(theirs, [b"s"], [made.fileno()])
                status = 0
            except BaseException as exc:
                with_reason = f"e{exc}".encode(errors="replace")[:500]
                try:
                    theirs.sendall(with_reason)
                except OSError:
                    pass
            finally:
                os._exit(status)
        theirs.close()
        try:
            message, fds, _, _ = socket.recv_fds(ours, 512, 1)
        finally:
            os.waitpid(pid, 0)
    if not fds:
        reason = message[1:].decode(errors="replace") or "the child ended"
        raise NamespaceError(f"no socket in the sandbox's network namespace: {reason}")
    made = socket.socket(fileno=fds[0])
    made.setblocking(False)
    return made
