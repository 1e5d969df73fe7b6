"""How the language server ends. Every way out kills the agent's running commands first.

Commands run in process groups of their own (tools/process_groups.py), so nothing that
ends this process reaches them by itself. The ways out, and the exit status of each:

- the `exit` notification: 0 after `shutdown`, else 1 (the LSP rule);
- stdin closing (the client went away without a word): the same, ended on the event loop
  (WatchedInput) so that a command being started at that very moment is killed too;
- the client's process (`initialize.processId`) ending (client_watch.py): the same;
- SIGTERM (what editors send when a server is slow to go), SIGHUP, SIGINT: 128 + the
  signal's number. The handlers run on the event loop, installed at `initialize` (until
  then no command can run, and a signal just ends the process). A signal that was ignored
  when the server started (nohup, a background job) stays ignored;
- any other way through the interpreter: the atexit hook of tools/process_groups.py.

The process leaves with os._exit: tearing down the interpreter (the SDK's many objects)
takes about a second, and editors kill servers that are slow to go. Sessions are saved
after every turn and every answer was flushed when it was sent, so nothing is lost.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
import threading
from collections.abc import Awaitable, Callable
from types import FrameType, ModuleType
from typing import BinaryIO, NoReturn

from .client_watch import ProcessWatch

log = logging.getLogger(__name__)

SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
PROCESS_GROUPS_MODULE = __name__.rpartition(".lsp.")[0] + ".tools.process_groups"


def _process_groups() -> ModuleType | None:
    """The commands' registry, if the tools are loaded. They load with the agent core after
    `initialize` (start-up stays quick); until then no command can be running."""
    return sys.modules.get(PROCESS_GROUPS_MODULE)


def exit_now(status: int) -> NoReturn:
    """Kill the running commands (and any other process the server started), flush the
    logs and leave."""
    groups = _process_groups()
    if groups is not None:
        groups.COMMANDS.kill_all()
        groups.kill_children()
    logging.shutdown()
    os._exit(status)


class Lifetime:
    """The server's ways out: signal handlers, the client watch, the exit status."""

    def __init__(self, shutdown_received: Callable[[], bool]) -> None:
        self._shutdown_received = shutdown_received
        self._signals = tuple(sig for sig in SIGNALS if signal.getsignal(sig) != signal.SIG_IGN)
        self._ending: asyncio.Task[None] | None = None
        self._client: ProcessWatch | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.on_end: list[Callable[[], Awaitable[None]]] = []
        """Work that must finish before the process leaves (stopping MCP servers)."""
        self.before_kill: list[Callable[[], Awaitable[None]]] = []
        """Work before the commands are killed (runs still going are cancelled, so each
        records why it stopped instead of going on after its command died)."""

    def exit_status(self) -> int:
        """0 once `shutdown` was received, else 1 (for every way out but signals)."""
        return 0 if self._shutdown_received() else 1

    def exit_on_signals(self) -> None:
        """Before the event loop runs: a signal ends the process at once."""
        for sig in self._signals:
            signal.signal(sig, _exit_on_signal)

    def started(self, client_pid: int | None) -> None:
        """At `initialize`, on the event loop: handle signals there, watch the client."""
        loop = self._loop = asyncio.get_running_loop()
        for sig in self._signals:
            loop.add_signal_handler(sig, self._on_signal, sig)
        if client_pid is None or self._client is not None:
            return
        self._client = ProcessWatch.start(
            client_pid, lambda: self.end_soon(f"the client process {client_pid} is gone")
        )
        if self._client is None:
            log.info(
                "the client process %d is not visible from here (another pid namespace?); "
                "the server ends when its input closes",
                client_pid,
            )

    async def end(self, why: str | None = None, status: int | None = None) -> NoReturn:
        """Kill the running commands (and those starting right now), then exit. `why` is
        logged, and None for the ordinary `exit` (only killed commands are worth a line)."""
        for hook in self.before_kill:
            try:
                await asyncio.wait_for(hook(), 10)
            except Exception:  # leaving anyway
                log.warning("could not finish %s before exiting", hook, exc_info=True)
        groups = _process_groups()
        killed = await groups.COMMANDS.kill_all_and_settle() if groups is not None else 0
        for hook in self.on_end:
            try:
                await asyncio.wait_for(hook(), 10)
            except Exception:  # leaving anyway
                log.warning("could not finish %s before exiting", hook, exc_info=True)
        if why or killed:
            stopped = f"; stopped {killed} running command(s)" if killed else ""
            log.info("%s: exiting%s", why or "exit", stopped)
        exit_now(self.exit_status() if status is None else status)

    def input_closed(self) -> bool:
        """From the thread that reads stdin: the client closed our input. Once the server
        runs (`initialize`), it is ended on its event loop, where a command being started
        right now can still be killed; False before that (nothing can be running)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return False
        loop.call_soon_threadsafe(self.end_soon, "the client closed the connection")
        return True

    def end_soon(self, why: str, status: int | None = None) -> None:
        """`end`, from a callback (a signal handler, the client watch)."""
        if self._ending is None:
            self._ending = asyncio.ensure_future(self.end(why, status))

    def _on_signal(self, sig: signal.Signals) -> None:
        if self._ending is not None:  # a second signal while ending: leave at once
            exit_now(128 + sig)
        self.end_soon(f"received {sig.name}", 128 + sig)


class WatchedInput:
    """The server's stdin as pygls reads it (`start_io(stdin=...)`). At the end of input
    pygls would stop its event loop and cancel what runs on it, a command's start among
    them (asyncio then kills the shell, not its children); instead the server is ended on
    that loop (Lifetime.input_closed) and this reader waits for the process to go."""

    def __init__(self, stream: BinaryIO, lifetime: Lifetime) -> None:
        self._stream = stream
        self._lifetime = lifetime

    def readline(self) -> bytes:
        return self._stream.readline() or self._closed()

    def read(self, size: int = -1) -> bytes:
        return self._stream.read(size) or self._closed()

    def _closed(self) -> bytes:
        if self._lifetime.input_closed():
            threading.Event().wait()  # the event loop ends the process (os._exit)
        return b""


def _exit_on_signal(signum: int, frame: FrameType | None) -> None:
    exit_now(128 + signum)
