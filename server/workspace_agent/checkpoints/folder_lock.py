"""One workspace-changing call at a time per folder, across processes: a step's changes are
its own.

What a call changed is what the scan after it finds that the scan before it did not. Two
tasks on one checkout (the editor and `workspace-agent run` in a terminal, two windows,
two sessions) would each find the other's files in that window, and a revert of one
would take back the other's work. So every changing call holds this lock from the scan
before it to the scan after it (a revert holds it while it writes, a run's first look at
the workspace while it scans): another task's call waits, and its card says so. It is an
`flock` on a file in the store's folder, taken on a descriptor of its own each time, so
two sessions of one process exclude each other too, and a process that dies lets go.
Parallel tasks that should not wait for each other belong in worktrees.

The file holds a count of the holds let go: a task that finds it where it left it knows
no other task changed the folder since its last scan, and need not scan again before its
next call (the scan after the call finds only what the call did, or the user).
"""

from __future__ import annotations

import asyncio
import fcntl
import os
from pathlib import Path

NAME = "workspace.lock"
POLL_SECONDS = 0.05


class FolderLock:
    def __init__(self, folder: Path) -> None:
        self._path = folder / NAME
        self._fd: int | None = None
        self.found = 0
        """The count of holds let go, as this hold found it."""

    @property
    def held(self) -> bool:
        return self._fd is not None

    def try_take(self) -> bool:
        if self._fd is not None:
            return True
        fd = os.open(self._path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self._fd = fd
        self.found = int.from_bytes(os.pread(fd, 8, 0) or b"\0", "big")
        return True

    async def take(self, timeout: float | None = None) -> bool:
        """Wait for the folder (at most `timeout` seconds); whether it is held."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while not self.try_take():
            if deadline is not None and loop.time() >= deadline:
                return False
            await asyncio.sleep(POLL_SECONDS)
        return True

    def release(self) -> int | None:
        """Let go; the count this hold left (None: it was not held)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return None
        left: int | None = self.found + 1
        try:
            os.pwrite(fd, (self.found + 1).to_bytes(8, "big"), 0)
        except OSError:
            left = None  # the next hold scans
        finally:
            os.close(fd)
        return left
