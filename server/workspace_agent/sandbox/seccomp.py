"""The seccomp filter of sandboxed commands: `socket(AF_UNIX, ...)` fails with EPERM.

A read-only mount does not stop `connect()` to a host Unix socket (docker.sock, the
ssh-agent, D-Bus), so the sandbox refuses to create Unix sockets at all. `socketpair` stays
allowed: asyncio's event loop needs it (its self-pipe), and a pair cannot reach anything
outside the process tree. Built once with libseccomp (PyPI pyseccomp, ctypes over the
system's libseccomp2) as a BPF program; each command gets it in a fresh memfd, which bwrap
reads (`--seccomp FD`) and applies to the command after its own setup.
"""

from __future__ import annotations

import errno
import os
import socket
import tempfile
from functools import cache


class SeccompUnavailable(Exception):
    pass


@cache
def filter_program() -> bytes:
    """The BPF program; SeccompUnavailable when libseccomp is missing."""
    try:
        import pyseccomp as seccomp
    except (ImportError, OSError) as exc:  # OSError: the library itself is missing
        raise SeccompUnavailable(f"pyseccomp/libseccomp: {exc}") from exc
    try:
        rules = seccomp.SyscallFilter(seccomp.ALLOW)
        rules.add_rule(
            seccomp.ERRNO(errno.EPERM), "socket", seccomp.Arg(0, seccomp.EQ, socket.AF_UNIX)
        )
        with tempfile.TemporaryFile() as out:  # libseccomp writes to a file descriptor
            rules.export_bpf(out)
            out.seek(0)
            return out.read()
    except Exception as exc:  # a libseccomp too old or an architecture it does not know
        raise SeccompUnavailable(str(exc)) from exc


def filter_fd() -> int:
    """A readable fd holding the program, at offset 0, inheritable (the caller closes it
    once bwrap has started)."""
    program = filter_program()
    fd = os.memfd_create("workspace-agent-seccomp", 0)
    try:
        os.write(fd, program)
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd
