"""A transport wrapper that sees `notifications/tools/list_changed` in receive order.

The SDK hands a notification to its handlers in a task of its own (and a 2026-07-28
listen stream's events through one more queue), so a change the server announced before
a call's result could still be on its way when the call returns. This tap sits on the
read stream the SDK's dispatcher reads from: it sees every frame before the dispatcher
does, in the order the server wrote them, so when a call's result comes back the flag
for a change sent ahead of it is already set, with no task switch to wait for.

It implements the SDK's `ReadStream` protocol (`mcp.client._transport.Transport` yields
one) by delegating; the frames pass unchanged.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

LIST_CHANGED = "notifications/tools/list_changed"


@asynccontextmanager
async def tapped(transport: Any, on_list_changed: Callable[[], None]) -> AsyncIterator[Any]:
    """`transport` (an SDK Transport) with its read stream watched for list_changed."""
    async with transport as (read_stream, write_stream):
        yield _TappedReadStream(read_stream, on_list_changed), write_stream


class _TappedReadStream:
    def __init__(self, inner: Any, on_list_changed: Callable[[], None]) -> None:
        self._inner = inner
        self._on_list_changed = on_list_changed

    @property
    def last_context(self) -> Any:
        """The sender's contextvars, for the transports that carry them (HTTP)."""
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        return self._seen(await self._inner.receive())

    def __aiter__(self) -> _TappedReadStream:
        return self

    async def __anext__(self) -> Any:
        return self._seen(await self._inner.__anext__())  # its end of stream is ours

    def _seen(self, item: Any) -> Any:
        if getattr(getattr(item, "message", None), "method", None) == LIST_CHANGED:
            self._on_list_changed()
        return item

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _TappedReadStream:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> bool | None:
        return await self._inner.__aexit__(*exc)  # type: ignore[no-any-return]
