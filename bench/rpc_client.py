"""A minimal LSP client for measuring: raw JSON-RPC framing over the server's stdio, every
message stamped with `time.monotonic_ns()` as soon as its body has been read.

A client library would spend milliseconds of its own turning a large answer (a listing of
1,000 sessions) into objects, and a notification that arrives meanwhile would wait for
it: that wait would be counted as the server's. So large bodies are kept as bytes until
the measurement is over, and only small ones (notifications) are decoded on arrival.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DECODE_AT_ONCE = 16_384
"""Bodies up to this size are decoded when they arrive; larger ones when asked for."""
_ID = re.compile(rb'^\{"id":\s*(\d+)')


@dataclass
class Answer:
    """A response as it arrived: when the request went out, when the answer came in."""

    sent_ns: int
    received_ns: int
    body: bytes

    @property
    def seconds(self) -> float:
        return (self.received_ns - self.sent_ns) / 1e9

    def result(self) -> Any:
        message = json.loads(self.body)
        if "error" in message:
            raise RuntimeError(f"the server answered with an error: {message['error']}")
        return message["result"]


@dataclass
class RawClient:
    process: asyncio.subprocess.Process
    spawned_ns: int = 0
    """time.monotonic_ns() just before the process was spawned."""
    initialized: Answer | None = None
    """The answer to `initialize` (raw_server)."""
    notifications: list[tuple[int, str, Any]] = field(default_factory=list)
    """(arrival in monotonic ns, method, params) of every notification."""
    _pending: dict[int, tuple[int, asyncio.Future[Answer]]] = field(default_factory=dict)
    _next_id: int = 1

    def _write(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    def notify(self, method: str, params: Any = None) -> None:
        self._write({"jsonrpc": "2.0", "method": method, "params": params})

    async def request(self, method: str, params: Any = None) -> Answer:
        request_id = self._next_id
        self._next_id += 1
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = (time.monotonic_ns(), future)
        self._write({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        return await future

    async def read_forever(self) -> None:
        reader = self.process.stdout
        assert reader is not None
        while True:
            header = await reader.readuntil(b"\r\n\r\n")
            length = int(re.search(rb"Content-Length:\s*(\d+)", header, re.I).group(1))  # type: ignore[union-attr]
            body = await reader.readexactly(length)
            arrived = time.monotonic_ns()
            if length > DECODE_AT_ONCE and (match := _ID.match(body)):
                self._answer(int(match.group(1)), arrived, body)
                continue
            message = json.loads(body)
            if "method" not in message:
                self._answer(int(message["id"]), arrived, body)
            elif "id" in message:  # a request from the server: nothing to answer with
                self._write({"jsonrpc": "2.0", "id": message["id"], "result": None})
            else:
                self.notifications.append((arrived, message["method"], message.get("params")))

    def _answer(self, request_id: int, arrived: int, body: bytes) -> None:
        sent, future = self._pending.pop(request_id)
        if not future.done():
            future.set_result(Answer(sent, arrived, body))


@contextlib.asynccontextmanager
async def raw_server(
    command: Sequence[str],
    workspace: Path,
    env: dict[str, str],
    options: dict[str, Any],
    *,
    process_id: int | None = -1,
    exit_seconds: float = 10,
) -> AsyncIterator[RawClient]:
    """The server on stdio (cwd `workspace`), initialized for `workspace`, with our pid
    as the client's (`process_id` -1) or the one given; shut down (`shutdown`, `exit`,
    then killed if it has not exited within `exit_seconds`) when the block ends."""
    spawned = time.monotonic_ns()
    process = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        cwd=workspace,
        env=env,
        limit=1 << 24,
    )
    client = RawClient(process, spawned_ns=spawned)
    reading = asyncio.create_task(client.read_forever())
    try:
        client.initialized = await client.request(
            "initialize",
            {
                "processId": os.getpid() if process_id == -1 else process_id,
                "rootUri": workspace.as_uri(),
                "capabilities": {},
                "initializationOptions": options,
            },
        )
        client.initialized.result()
        client.notify("initialized", {})
        yield client
        await asyncio.wait_for(client.request("shutdown"), 30)
        client.notify("exit")
        await asyncio.wait_for(process.wait(), exit_seconds)
    finally:
        reading.cancel()
        if process.returncode is None:
            process.kill()
            await process.wait()
