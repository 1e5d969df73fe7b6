"""Runs inside the sandbox, before the command, when the network proxy is in use.

    python -I -S bridge.py SECCOMP_FD PROXY_SOCKET PORT -- COMMAND...

Programs speak TCP to a proxy (`HTTP(S)_PROXY=http://127.0.0.1:PORT`), but the proxy runs
outside, on a Unix socket bind-mounted in, and the sandbox's own network has no route out.
So this listens on the jail's loopback, forks a forwarder that connects each client to the
proxy's socket, and only then applies the seccomp filter (which refuses new Unix sockets)
to itself and execs the command: the command cannot create a Unix socket, the forwarder,
started before the filter, can; it makes itself non-dumpable so that the command cannot
ptrace it into doing more. The forwarder dies with the jail when the command ends.

Standard library only, and no imports from the package: it runs under `-I -S`.
"""

from __future__ import annotations

import ctypes
import os
import socket
import sys
import threading

PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def apply_filter(fd: int) -> None:
    program = b""
    while chunk := os.read(fd, 65536):
        program += chunk
    os.close(fd)
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        sys.stderr.write(f"sandbox: seccomp filter refused: {os.strerror(ctypes.get_errno())}\n")
        os._exit(126)


def pump(source: socket.socket, target: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            target.sendall(data)
    except OSError:
        pass
    finally:
        for sock in (source, target):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def forward(client: socket.socket, proxy_path: str) -> None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(proxy_path)
    except OSError:
        client.close()
        return
    threading.Thread(target=pump, args=(upstream, client), daemon=True).start()
    pump(client, upstream)


def serve(listener: socket.socket, proxy_path: str) -> None:
    # Not dumpable: the command (its parent, same uid, no capabilities) cannot ptrace it or
    # write its /proc/PID/mem to make this unfiltered process open other sockets.
    ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # never hold the command's output open
        os.dup2(devnull, fd)
    while True:
        client, _ = listener.accept()
        threading.Thread(target=forward, args=(client, proxy_path), daemon=True).start()


def main() -> None:
    fd, proxy_path, port = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    command = sys.argv[sys.argv.index("--") + 1 :]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    if os.fork() == 0:
        os.close(fd)
        serve(listener, proxy_path)
        os._exit(0)
    listener.close()
    apply_filter(fd)
    os.execv(command[0], command)


if __name__ == "__main__":
    main()
