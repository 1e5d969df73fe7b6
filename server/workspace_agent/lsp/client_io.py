"""For programs that drive the server as an LSP client (the demo, the benchmarks)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any


async def drain_stderr(client: Any) -> None:
    """Read the server's stderr (pygls's client pipes it and never reads it), so the
    server's logging can never fill the pipe and stall it. Cancel the task to stop."""
    server = client._server
    if server is None or server.stderr is None:
        return
    with contextlib.suppress(asyncio.CancelledError):
        while await server.stderr.read(65536):
            pass
