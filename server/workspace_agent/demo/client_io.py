"""For programs that drive the server as an LSP client (the demo, the benchmarks)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types


@contextlib.asynccontextmanager
async def connected(
    client: Any,
    workspace: Path,
    command: Sequence[str],
    env: dict[str, str],
    options: dict[str, Any] | None = None,
) -> AsyncIterator[Any]:
    """Start the server (`command`) on stdio with `client`, initialized for `workspace`;
    shut it down cleanly when the block ends."""
    await client.start_io(command[0], *command[1:], env=env, cwd=workspace)
    drain = asyncio.create_task(drain_stderr(client))
    try:
        await client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(),
                root_uri=workspace.as_uri(),
                initialization_options=options,
                workspace_folders=[
                    types.WorkspaceFolder(uri=workspace.as_uri(), name=workspace.name)
                ],
            )
        )
        client.initialized(types.InitializedParams())
        yield client
        await client.shutdown_async(None)
        client.exit(None)
    finally:
        drain.cancel()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.stop(), 10)


async def drain_stderr(client: Any) -> None:
    """Read the server's stderr (pygls's client pipes it and never reads it), so the
    server's logging can never fill the pipe and stall it. Cancel the task to stop."""
    server = client._server
    if server is None or server.stderr is None:
        return
    with contextlib.suppress(asyncio.CancelledError):
        while await server.stderr.read(65536):
            pass
