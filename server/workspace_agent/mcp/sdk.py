"""The `mcp` SDK, imported once per process in a background thread, after the anthropic
SDK's import (agent/preload.py) has ended (shared/background_imports.py).

Importing `mcp` costs 0.3-0.5 s of CPU here, and there is no client-only import: every
submodule runs `mcp/__init__`, which loads the server half too (starlette, uvicorn,
sse_starlette) and the pydantic models of two protocol versions. Started beside the
anthropic SDK's import, the two shared the GIL, and a first run sent right after start,
which waits for the anthropic SDK, waited for most of this import too (1.2x-1.6x the
time to its first request: the slow-MCP-server benchmark, bench/mcp_cost.py). One after
the other, the first request goes out as soon as without MCP, and this import runs while
the run waits for the model's answer.

Then gc.freeze, as the preload does: the import leaves some 50,000 long-lived objects
that every full collection in the middle of a run would walk again.
"""

from __future__ import annotations

import asyncio
import gc
import threading
from concurrent.futures import Future

from ..shared import background_imports

_sdk: Future[None] | None = None
_lock = threading.Lock()


async def loaded() -> None:
    """Once the SDK is imported (the import started now if not yet, after the anthropic
    SDK's if that one is under way); raises what the import raised."""
    global _sdk
    await background_imports.ended()
    with _lock:
        if _sdk is None:
            _sdk = background_imports.under_way()
            threading.Thread(target=_load, args=(_sdk,), name="mcp-sdk", daemon=True).start()
        future = _sdk
    await asyncio.wrap_future(future)


def _load(sdk: Future[None]) -> None:
    try:
        import mcp
        import mcp.client.stdio
        import mcp.client.streamable_http  # noqa: F401
    except BaseException as exc:  # the server that needed it shows it as its failure
        sdk.set_exception(exc)
        return
    gc.freeze()
    sdk.set_result(None)
