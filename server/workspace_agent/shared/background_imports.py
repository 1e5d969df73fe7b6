"""Heavy imports done in background threads run one after the other: two at once share
the GIL and each takes about as long as both (the anthropic SDK's and the MCP SDK's beside
a first run: the benchmark of the first model request with a slow MCP server configured,
bench/mcp_cost.py). A thread says its import is under way
(`under_way`, done when it ends); an import that may come later waits for those first
(`ended`). The anthropic SDK's (agent/preload.py) goes first: the first run waits for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from concurrent.futures import Future

_under_way: list[Future[None]] = []
_lock = threading.Lock()


def under_way() -> Future[None]:
    """A future for an import starting now: set its result when the import has ended.
    It is running, so a waiter that is cancelled cannot cancel it for the others."""
    future: Future[None] = Future()
    future.set_running_or_notify_cancel()
    with _lock:
        _under_way[:] = [f for f in _under_way if not f.done()]
        _under_way.append(future)
    return future


async def ended() -> None:
    """Until every import said to be under way so far has ended, whether it worked or not
    (at once if none)."""
    with _lock:
        pending = [f for f in _under_way if not f.done()]
    for future in pending:
        with contextlib.suppress(Exception):  # its own waiters get the error
            await asyncio.wrap_future(future)
