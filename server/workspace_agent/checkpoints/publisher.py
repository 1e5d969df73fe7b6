"""When a run's `workspaceAgent/changes` notification is sent: a leading and trailing
throttle, so a burst of workspace-changing calls costs one payload, not one per call.

The payload is the whole session's history per plan item (O(history) to build, then
serialised, sent and parsed by the client), so it is built only when it is sent: a change
marks the publisher dirty, and the payload is computed from the store at the moment of
sending, with the latest state. The first change after a quiet period is sent at once
(before the call's tool result, as without a throttle); changes within the window fold
into one notification at the window's end; `flush` sends what is pending right away (the
run's end, before its result is returned).
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    from .. import contract

log = logging.getLogger(__name__)

CHANGES_INTERVAL = 0.1
"""Seconds between two `workspaceAgent/changes` notifications of a run, at least. In real
use a model call takes seconds, so every call's changes still show at once; when calls
come faster (a reply with many edits, a scripted run) the editor still sees the tree move
ten times a second, which is as fast as anyone reads it, and the cost no longer grows
with the number of calls times the length of the history."""

Payload: TypeAlias = "contract.Changes"


class ChangesPublisher:
    """Sends what `compute` returns through `send`, at most once per `interval` seconds
    (leading and trailing). `compute` returns None when there is nothing to send (e.g.
    checkpoints gave up); its errors are its own to handle (the observer guards it).
    `start` runs the trailing send as a task (the owner tracks it, so shutdown waits)."""

    def __init__(
        self,
        compute: Callable[[], Awaitable[Payload | None]],
        send: Callable[[Payload], None],
        *,
        interval: float = CHANGES_INTERVAL,
        start: Callable[[Coroutine[Any, Any, None]], asyncio.Task[Any]] = asyncio.ensure_future,
    ) -> None:
        self._compute = compute
        self._send = send
        self._interval = interval
        self._start = start
        self._dirty = False
        """A change not yet taken by a payload computation."""
        self._next_at = -math.inf
        """Loop time before which no new computation starts (the window)."""
        self._trailing: asyncio.Task[Any] | None = None
        self._hurry = asyncio.Event()
        """Set by `flush`: the trailing send stops waiting for the window's end."""
        self._started = 0
        self._sent = 0
        """Tickets of the last computation started and of the last payload sent: a payload
        computed before one already sent is older, and is dropped."""

    async def changed(self) -> None:
        """The workspace changed: send now (leading edge) or at the window's end."""
        self._dirty = True
        if self._trailing is not None:
            return  # the trailing send computes after this change: it is taken
        loop = asyncio.get_running_loop()
        if loop.time() >= self._next_at:
            await self._publish()
        else:
            self._trailing = self._start(self._send_trailing())

    async def flush(self) -> None:
        """Send what is pending now, and return once it is sent (nothing left running)."""
        while self._trailing is not None:
            self._hurry.set()
            await asyncio.wait([self._trailing])  # neither cancels it nor raises its error
        if self._dirty:  # left by a send that was cancelled or failed
            await self._publish()
        self._hurry.clear()

    async def _publish(self) -> None:
        self._dirty = False  # before computing: a change from here on is sent again
        self._next_at = asyncio.get_running_loop().time() + self._interval
        self._started += 1
        ticket = self._started
        try:
            payload = await self._compute()
        except BaseException:  # cancelled (the run was) or failed: still to be sent
            self._dirty = True
            raise
        if payload is not None and ticket > self._sent:
            self._sent = ticket
            self._send(payload)

    async def _send_trailing(self) -> None:
        try:
            while self._dirty:
                delay = self._next_at - asyncio.get_running_loop().time()
                if delay > 0 and not self._hurry.is_set():
                    try:
                        await asyncio.wait_for(self._hurry.wait(), delay)
                    except asyncio.TimeoutError:
                        pass
                await self._publish()
        except Exception:  # compute guards its own errors; anything else is a bug
            log.exception("sending workspaceAgent/changes failed")
        finally:
            self._trailing = None
