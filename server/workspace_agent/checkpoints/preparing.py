"""Telling the user how far the checkpoint store's first scan is when it takes a
noticeable time (event `preparing`): it stores many files in a workspace that is not a git
repository or has a huge untracked folder. The scan runs in the background while the run
goes on; the first workspace-changing call waits for it, and says so.

What is over in less than NOTICEABLE seconds says nothing: a flash of progress is noise.
Reports come from the store's worker thread and are handed to the event loop.

Tests set HOLD_ENV: then the scan's first report holds the worker until a call waits for
it, so that what they check (a write that waits, and says so) does not hang on how fast
the machine scans.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable
from typing import Any

from .. import protocol as p

NOTICEABLE = 0.5
"""Seconds of storing, or of a call waiting, before the user is told."""
EVERY = 1.0
"""Seconds between reports after the first."""
HOLD_ENV = "WORKSPACE_AGENT_HOLD_SCAN"
"""Set (by tests): the scan holds at its first report until a call waits for it."""
HOLD_AT_MOST = 60.0
"""Seconds a held scan waits for a call before it goes on anyway."""

Emit = Callable[..., Any]


class Preparing:
    def __init__(self, loop: asyncio.AbstractEventLoop, emit: Emit) -> None:
        self._loop = loop
        self._emit = emit
        self._lock = threading.Lock()
        self._began = time.monotonic()
        self._storing: float | None = None
        self._last_sent: float | None = None
        self._stored = self._total = 0
        self._waiting: str | None = None
        self.shown = False
        """Whether the user has been told (then the end is told too)."""
        self._hold = threading.Event() if os.environ.get(HOLD_ENV) else None
        self._counted = False
        """Whether a report said how much there is to store."""

    def _release(self) -> None:
        if self._hold is not None:
            self._hold.set()

    def progress(self, stored: int, total: int) -> None:
        """From the worker thread: `stored` of `total` files are in the store."""
        if self._hold is not None and not self._hold.is_set():
            self._held(stored, total)
        now = time.monotonic()
        with self._lock:
            if self._storing is None:
                self._storing = now
            self._stored, self._total = stored, total
            if stored >= total or (now - self._storing < NOTICEABLE and not self.shown):
                return  # the end is told by `finished`, once the scan is over
            if self._last_sent is not None and now - self._last_sent < EVERY:
                return
            self._last_sent = now
            self.shown = True
            fields = self._fields(now, ready=False)
        self._loop.call_soon_threadsafe(lambda: self._emit(p.EVENT_PREPARING, **fields))

    def _held(self, stored: int, total: int) -> None:
        """HOLD_ENV, the first report: the wait is told with how much there is to store,
        at once if a call already waits (before the count), else once one does."""
        with self._lock:
            self._stored, self._total = stored, total
            self._counted = True
            told = self._waiting is not None
            if told:
                self._last_sent = time.monotonic()
                fields = self._fields(self._last_sent, ready=False)
        if told:
            self._loop.call_soon_threadsafe(lambda: self._emit(p.EVENT_PREPARING, **fields))
            self._release()
        else:
            assert self._hold is not None
            self._hold.wait(HOLD_AT_MOST)

    def waiting(self, tool: str) -> None:
        """On the loop: a call of `tool` has waited NOTICEABLE seconds for the scan."""
        with self._lock:
            if self._waiting is not None:
                return
            self._waiting = tool
            self.shown = True
            if self._hold is not None and not self._counted:
                return  # told by the first report (_held)
            self._last_sent = time.monotonic()
            fields = self._fields(self._last_sent, ready=False)
        self._emit(p.EVENT_PREPARING, **fields)
        self._release()

    def finished(self) -> None:
        """On the loop, once the scan is over (the index written): the user who was told
        it was preparing is told it is ready."""
        self._release()
        with self._lock:
            if not self.shown:
                return
            self._stored = self._total
            fields = self._fields(time.monotonic(), ready=True)
        self._emit(p.EVENT_PREPARING, **fields)

    def _fields(self, now: float, *, ready: bool) -> dict[str, Any]:
        stored, total = self._stored, self._total
        fields: dict[str, Any] = {"stored": stored, "total": total, "ready": ready}
        if ready:
            seconds = now - self._began
            what = f"{total:,} files stored" if total else "the workspace's files looked at"
            fields["message"] = f"Checkpoints ready: {what} in {seconds:.0f} s"
            return fields
        if total:
            message = f"Preparing checkpoints: {stored:,} of {total:,} files"
        else:
            message = "Preparing checkpoints: looking for the workspace's files"
        if self._waiting is not None:
            message += f" ({self._waiting} waits for it)"
            fields["waiting"] = self._waiting
        fields["message"] = message
        return fields


class Milestones:
    """Which `preparing` events a front end that prints lines (the CLI, ACP) shows: the
    first, the first saying a call waits, and the end; not the reports between."""

    def __init__(self) -> None:
        self._told: dict[str, bool] = {}
        """Sessions told they are preparing: whether a wait was told too."""

    def worth_a_line(self, session_id: str, fields: dict[str, Any]) -> bool:
        if fields.get("ready"):
            return self._told.pop(session_id, None) is not None
        waiting = "waiting" in fields
        if session_id not in self._told or (waiting and not self._told[session_id]):
            self._told[session_id] = waiting
            return True
        return False
