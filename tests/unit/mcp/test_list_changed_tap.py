"""The read-stream tap: every frame passes unchanged and in order, a list_changed is seen
before the dispatcher gets it, and the stream's end is the tap's end."""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCNotification, JSONRPCResponse

from workspace_agent.mcp.list_changed_tap import tapped


def frame(message: Any) -> SessionMessage:
    return SessionMessage(message)


async def test_frames_pass_in_order_and_a_list_change_is_seen_before_it_is_read():
    send, receive = anyio.create_memory_object_stream[Any](10)
    _, write_receive = anyio.create_memory_object_stream[Any](1)

    @asynccontextmanager
    async def transport() -> Any:
        yield receive, write_receive

    changed = anyio.Event()
    seen_when_read: list[bool] = []
    frames = [
        frame(JSONRPCNotification(jsonrpc="2.0", method="notifications/message", params={})),
        frame(JSONRPCNotification(jsonrpc="2.0", method="notifications/tools/list_changed")),
        frame(JSONRPCResponse(jsonrpc="2.0", id=1, result={})),
        RuntimeError("a transport fault is passed on, not swallowed"),
    ]
    for item in frames:
        send.send_nowait(item)
    send.close()

    async with tapped(transport(), changed.set) as (read_stream, write_stream):
        assert write_stream is write_receive
        assert read_stream.last_context is None  # a plain memory stream carries none
        got = []
        async with read_stream:
            async for item in read_stream:
                got.append(item)
                seen_when_read.append(changed.is_set())

    assert got == frames
    assert seen_when_read == [False, True, True, True]


async def test_receive_sees_the_change_too_and_ends_with_the_stream():
    send, receive = anyio.create_memory_object_stream[Any](2)

    @asynccontextmanager
    async def transport() -> Any:
        yield receive, None

    calls: list[str] = []
    send.send_nowait(
        frame(JSONRPCNotification(jsonrpc="2.0", method="notifications/tools/list_changed"))
    )
    send.close()
    async with tapped(transport(), lambda: calls.append("changed")) as (read_stream, _):
        item = await read_stream.receive()
        assert item.message.method == "notifications/tools/list_changed"
        assert calls == ["changed"]
        with pytest.raises(anyio.EndOfStream):  # the inner stream's end reaches the reader
            await read_stream.receive()
