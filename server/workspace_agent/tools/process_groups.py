"""The process groups of the commands running now, so that the program can kill them all
before it ends.

A command runs in a process group of its own: a timeout or a cancelled run kills the group,
and with it every child the command started. The same isolation means that nothing that
ends *this* process reaches them (a SIGTERM, `os._exit`, the terminal hanging up): they
would run on, orphaned. So every way the program ends calls `COMMANDS.kill_all()` first
(lsp/lifetime.py for the server, cli/run.py for headless runs), and atexit does too.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import signal
from collections.abc import Coroutine
from typing import Any

from ..shared.errors import ToolError

STARTING_GRACE_SECONDS = 5.0
"""How long an ending program waits for commands it is starting at that moment (a
spawn takes milliseconds; the margin is for a machine under heavy load)."""


def kill_group(pgid: int, sig: int = signal.SIGKILL) -> None:
    """Signal every process of a group, SIGKILL by default (gone already is fine)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def kill_tree(pgid: int) -> None:
    """`kill_group`, and the groups of what the group's leader started in sessions of their
    own: a sandboxed command runs in bwrap's `--new-session`, and its `--die-with-parent`
    misses a bwrap killed before it set that up (the command would run on, orphaned)."""
    inner = descendants(pgid)
    kill_group(pgid)
    for pid in inner:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if os.getpgid(pid) == pid:
                kill_group(pid)


def shell_status(returncode: int | None) -> int | None:
    """The status a shell would report for a process's return code: 128+N when signal N
    ended it (asyncio gives -N)."""
    if returncode is None:
        return None
    return 128 - returncode if returncode < 0 else returncode


def children(pid: int) -> list[int]:
    """The processes `pid` started itself (from /proc, every thread's list); [] when it is
    gone."""
    found: list[int] = []
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for thread in threads:
        try:
            with open(f"/proc/{pid}/task/{thread}/children", encoding="ascii") as file:
                found += [int(child) for child in file.read().split()]
        except (OSError, ValueError):
            continue
    return found


def descendants(pid: int) -> list[int]:
    """Every process `pid` started and their children, parents first (from /proc; a
    process that left the tree, by daemonizing, is not in it)."""
    found: list[int] = []
    todo = [pid]
    while todo:
        direct = children(todo.pop(0))
        found += direct
        todo += direct
    return found


def kill_children() -> int:
    """SIGKILL every process this one started, with the group each leads (a command runs
    in a group of its own), not this process's own group; return how many. The last step
    before the program leaves: a command whose start was under way when the end began is
    not in `COMMANDS` yet, but it is a child."""
    own_group = os.getpgrp()
    started = children(os.getpid())
    for child in started:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if os.getpgid(child) == child != own_group:
                kill_group(child)
            else:
                os.kill(child, signal.SIGKILL)
    return len(started)


class ProcessGroups:
    """The live process groups of commands, plus the starts under way (their pid is not
    known until the spawn returns)."""

    def __init__(self) -> None:
        self._live: set[int] = set()
        self._starting: set[asyncio.Task[asyncio.subprocess.Process]] = set()
        self._closed = False

    async def start(
        self, spawn: Coroutine[Any, Any, asyncio.subprocess.Process]
    ) -> asyncio.subprocess.Process:
        """Run `spawn` (which starts a process leading a new group) and track the group
        until `finished`. Once the program is ending, nothing new starts."""
        if self._closed:
            spawn.close()
            raise ToolError("not started: the program is shutting down")
        task = asyncio.ensure_future(self._track(spawn))
        self._starting.add(task)
        task.add_done_callback(self._starting.discard)
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            # Cancelled while asyncio was still setting up the pipes: the command may be
            # running already, and asyncio would kill only the shell. Let the start finish,
            # then kill the whole group.
            with contextlib.suppress(Exception):
                proc = await task
                kill_tree(proc.pid)
                self.finished(proc.pid)
                await proc.wait()
            raise

    async def _track(
        self, spawn: Coroutine[Any, Any, asyncio.subprocess.Process]
    ) -> asyncio.subprocess.Process:
        proc = await spawn
        self._live.add(proc.pid)
        if self._closed:  # the program began to end while this was starting
            kill_tree(proc.pid)
        return proc

    def finished(self, pgid: int) -> None:
        """The command is over (its group was killed, or it exited and left it)."""
        self._live.discard(pgid)

    def kill_all(self) -> int:
        """Kill every live group and refuse new ones; return how many there were.
        Synchronous and lock-free: safe in signal handlers, exit handlers and atexit."""
        self._closed = True
        groups = list(self._live)
        for pgid in groups:
            kill_tree(pgid)
        return len(groups)

    async def kill_all_and_settle(self, timeout: float = STARTING_GRACE_SECONDS) -> int:
        """`kill_all`, then let the starts under way finish so that they are killed too
        (each checks on completion). For exits that still have a running event loop."""
        killed = self.kill_all()
        if self._starting:
            await asyncio.wait(set(self._starting), timeout=timeout)
        return killed


COMMANDS = ProcessGroups()
"""The agent's commands (the bash tool) in this process."""
atexit.register(COMMANDS.kill_all)  # the last resort, for ways out nobody planned
