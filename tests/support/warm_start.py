"""Agent processes started warm. The tests start hundreds of agent processes (the language
server, `workspace-agent acp`, `workspace-agent run`), and each one's imports (the agent,
and the anthropic SDK it preloads) cost more CPU than most tests' own work: about 2 s of a
test's 3 on a 2-core machine. A starter process imports them once per test worker and forks
each agent process from there; the process then runs `python -m workspace_agent ARGS` as an
exec'd one would (its own stdin, stdout, stderr, environment, working folder and signal
dispositions, the same `__main__`), without importing again.

What a test runs in place of `python -m workspace_agent` is a small launcher (`command`):
it hands its stdin, stdout and stderr to the starter, forwards the signals it gets to the
agent process, and exits as that process exits (its status, or the same signal); killed,
it takes the agent process with it (the starter sees its connection close). Tests about a
process's own life (its pid, its memory, its start-up imports, its process group) start
the real thing (`cold`: `server.SERVER_COLD`, `cli.CLI_COLD`). `WA_TEST_COLD=1` starts
every process cold, to check nothing depends on the warm start.

This file is also the launcher and the starter themselves (`python warm_start.py run|serve`),
with the standard library only, so the launcher starts in a few milliseconds.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
FORWARDED = (
    signal.SIGINT,
    signal.SIGTERM,
    signal.SIGHUP,
    signal.SIGQUIT,
    signal.SIGUSR1,
    signal.SIGUSR2,
)
MESSAGE_LIMIT = 1 << 20
STANDARD = (sys.__stdin__, sys.__stdout__, sys.__stderr__)
"""The streams a fresh interpreter made here: the agent's take their encoding and errors."""

SOCKET = os.path.join(tempfile.gettempdir(), f"wa-warm-{os.getpid()}", "starter.sock")
"""Where this test process's starter listens (`start`, by a session fixture)."""

_starter: subprocess.Popen[bytes] | None = None


def command(*args: str) -> list[str]:
    """The command that runs `python -m workspace_agent ARGS`: warm once the starter runs,
    else (and with WA_TEST_COLD=1) as a plain `python -m`."""
    if os.environ.get("WA_TEST_COLD"):
        return cold(*args)
    return [sys.executable, "-I", "-S", str(HERE), "run", SOCKET, *args]


def cold(*args: str) -> list[str]:
    """`python -m workspace_agent ARGS` itself: for tests about the process's own life."""
    return [sys.executable, "-m", "workspace_agent", *args]


def start() -> None:
    """Start this test process's starter (it imports for a few seconds before the first
    agent process can be forked; a launcher that comes before it starts cold)."""
    global _starter
    if (_starter is not None and _starter.poll() is None) or os.environ.get("WA_TEST_COLD"):
        return
    os.makedirs(os.path.dirname(SOCKET), exist_ok=True)
    log = open(SOCKET + ".log", "wb")
    _starter = subprocess.Popen(
        [sys.executable, str(HERE), "serve", SOCKET],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=log,
        start_new_session=True,
    )
    log.close()
    deadline = time.monotonic() + 120
    while not os.path.exists(SOCKET):
        if _starter.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the warm starter did not start: see {SOCKET}.log")
        time.sleep(0.02)
    atexit.register(stop)


def stop() -> None:
    """Stop the starter; the agent processes it forked go with it."""
    global _starter
    process, _starter = _starter, None
    if process is None:
        return
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
    for leftover in (SOCKET, SOCKET + ".log"):
        with contextlib.suppress(OSError):
            os.unlink(leftover)
    with contextlib.suppress(OSError):
        os.rmdir(os.path.dirname(SOCKET))


# -- the launcher: what a test runs -----------------------------------------------------


def launch(path: str, args: list[str]) -> None:
    """Hand this process's stdin, stdout and stderr to the starter with `args`, forward
    signals, and end as the agent process ends; with no starter, become the agent cold."""
    ignored = [int(s) for s in FORWARDED if signal.getsignal(s) == signal.SIG_IGN]
    request = {"argv": args, "env": dict(os.environ), "cwd": os.getcwd(), "ignored": ignored}
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        conn.connect(path)
    except OSError:  # no starter (yet): the plain `python -m`, same process
        os.execv(sys.executable, [sys.executable, "-m", "workspace_agent", *args])
    socket.send_fds(conn, [json.dumps(request).encode()], [0, 1, 2])
    started = json.loads(conn.recv(MESSAGE_LIMIT))
    pid = started["pid"]
    for number in FORWARDED:
        if number not in ignored:
            signal.signal(number, lambda sig, _frame: _forward(pid, sig))
    ended = conn.recv(MESSAGE_LIMIT)
    code = json.loads(ended)["exit"] if ended else 1
    if code < 0:  # ended by a signal: end the same way
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code)


def _forward(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


# -- the starter --------------------------------------------------------------------------


def serve(path: str) -> None:
    """Import what the agent's front ends load, then fork an agent process per request."""
    import selectors

    _warm_up()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(path + ".new")
    listener.listen(64)
    os.rename(path + ".new", path)  # ready: the socket's name appears once it accepts
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    running: dict[int, tuple[int, socket.socket]] = {}  # pidfd -> (pid, its launcher)
    launchers: dict[socket.socket, int] = {}  # a launcher's connection -> its pid
    stop = [False]
    signal.signal(signal.SIGTERM, lambda *_: stop.__setitem__(0, True))
    while not stop[0]:
        for key, _ in selector.select(timeout=1.0):
            if key.fileobj is listener:
                conn, _address = listener.accept()
                pid = _start(conn, listener, selector, running, launchers)
                if pid is None:
                    conn.close()
                    continue
                pidfd = os.pidfd_open(pid)
                running[pidfd] = (pid, conn)
                launchers[conn] = pid
                selector.register(pidfd, selectors.EVENT_READ)
                selector.register(conn, selectors.EVENT_READ)
            elif isinstance(key.fileobj, int):  # an agent process ended
                pidfd = key.fileobj
                pid, conn = running.pop(pidfd)
                selector.unregister(pidfd)
                os.close(pidfd)
                _, status = os.waitpid(pid, 0)
                if launchers.pop(conn, None) is not None:
                    selector.unregister(conn)
                try:
                    conn.send(json.dumps({"exit": os.waitstatus_to_exitcode(status)}).encode())
                except OSError:
                    pass
                conn.close()
            else:  # a launcher went away (killed): its agent process goes too
                conn = key.fileobj  # type: ignore[assignment]
                selector.unregister(conn)  # its agent process's end still answers it
                if conn in launchers:
                    _forward(launchers.pop(conn), signal.SIGKILL)
    for pid, _conn in running.values():
        _forward(pid, signal.SIGKILL)


def _warm_up() -> None:
    """Import every module of the agent and the SDK's (not the MCP SDK: a run without MCP
    servers never loads it, and tests check that)."""
    import importlib
    import pkgutil

    # Run as a script, this folder is first on sys.path: its acp.py and mcp.py would hide
    # the packages of those names.
    sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != HERE.parent]
    import workspace_agent

    for module in pkgutil.walk_packages(workspace_agent.__path__, "workspace_agent."):
        if module.name.startswith(("workspace_agent.testing", "workspace_agent.__main__")):
            continue
        importlib.import_module(module.name)
    import anthropic  # noqa: F401 (what the preload imports)

    from workspace_agent.agent import preload

    preload._import_first_request_modules()
    import jsonschema  # noqa: F401
    import tenacity  # noqa: F401

    assert "mcp" not in sys.modules, "the MCP SDK must load only where a test uses it"


def _start(conn: socket.socket, listener: socket.socket, selector, running, launchers):  # type: ignore[no-untyped-def]
    """Fork the agent process a launcher asks for; its pid (None: a bad request)."""
    try:
        data, fds, _flags, _address = socket.recv_fds(conn, MESSAGE_LIMIT, 3)
        request = json.loads(data)
    except (OSError, ValueError):
        return None
    if len(fds) != 3:
        for fd in fds:
            os.close(fd)
        return None
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the agent process)
        selector.close()
        listener.close()
        for other in launchers:
            other.close()
        for pidfd in running:
            os.close(pidfd)
        conn.close()
        _become_agent(request, fds)
    for fd in fds:
        os.close(fd)
    conn.send(json.dumps({"pid": pid}).encode())
    return pid


def _become_agent(request: dict, fds: list[int]) -> None:  # pragma: no cover
    """In the forked process: the launcher's streams, environment, folder and signals, then
    `python -m workspace_agent ARGS`; never returns."""
    import random
    import runpy
    import traceback

    code = 1
    try:
        os.setsid()  # out of the starter's session, as a process of its own
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        env = request["env"]
        os.environ.clear()
        os.environ.update(env)
        os.chdir(request["cwd"])
        random.seed()
        for number in FORWARDED:
            handler = signal.default_int_handler if number == signal.SIGINT else signal.SIG_DFL
            signal.signal(number, signal.SIG_IGN if number in request["ignored"] else handler)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        unbuffered = bool(env.get("PYTHONUNBUFFERED"))
        streams = [_stream(fd, fd > 0, like, unbuffered) for fd, like in enumerate(STANDARD)]
        sys.stdin, sys.stdout, sys.stderr = streams
        sys.__stdin__, sys.__stdout__, sys.__stderr__ = streams  # type: ignore[misc]
        sys.argv = ["-m", *request["argv"]]
        sys.path.insert(0, os.getcwd())  # as `-m` does (__main__ takes it out again)
        runpy.run_module("workspace_agent", run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if exc.code is not None and not isinstance(exc.code, int):
            print(exc.code, file=sys.stderr)
    except KeyboardInterrupt:
        code = 128 + signal.SIGINT
    except BaseException:
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        os._exit(code)


def _stream(fd: int, writing: bool, like: object, unbuffered: bool) -> io.TextIOWrapper:
    """A standard stream on `fd` as a fresh interpreter makes one (the starter's encoding)."""
    encoding = getattr(like, "encoding", None) or "utf-8"
    errors = getattr(like, "errors", None) or "strict"
    raw = io.FileIO(fd, "w" if writing else "r", closefd=False)
    if not writing:
        return io.TextIOWrapper(io.BufferedReader(raw), encoding=encoding, errors=errors)
    line = fd == 2 or raw.isatty()
    buffered = raw if unbuffered else io.BufferedWriter(raw)
    return io.TextIOWrapper(
        buffered,  # type: ignore[arg-type]
        encoding=encoding,
        errors=errors,
        line_buffering=line and not unbuffered,
        write_through=unbuffered,
    )


if __name__ == "__main__":
    if sys.argv[1] == "run":
        launch(sys.argv[2], sys.argv[3:])
    elif sys.argv[1] == "serve":
        serve(sys.argv[2])
