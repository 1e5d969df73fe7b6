"""The anthropic SDK imported in a background thread, so that waiting for it never stops
the event loop (0.8 s and more here: most of a start).

The language server starts it once it has answered `initialize` and loaded the agent
core, the ACP agent once its protocol library is loaded, the headless run when it builds
its model client. The model client waits for it only when it builds its first request
(`sdk()`), without blocking the event loop, so requests, notifications and the checkpoint
store's git work go on meanwhile, and a run started while the import is under way waits
only for what is left of it.

Not earlier, e.g. first thing in `workspace-agent run` and `acp`: the rest of their start
is CPU-bound imports too, which the GIL runs one at a time, and the two imports at once
took 30-65 ms longer than one after the other (the peer benchmarks beside Claude Code,
bench/peer.py). For the same reason other background imports (the MCP SDK's, mcp/sdk.py)
wait for this one to end (shared/background_imports.py). And for the same reason what only
the first tool call needs (input validation, jsonschema) is imported once the first
request has been answered (`request_answered`), while the model writes its answer, not
while the first request is being built (or after `IDLE_SECONDS` with no request: a server
waiting for its first task).
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import threading
from concurrent.futures import Future
from types import ModuleType
from typing import Any

from ..shared import background_imports

IDLE_SECONDS = 2.0
"""How long the rest of the preload waits for a first request before going on."""

_sdk: Future[ModuleType] | None = None
_lock = threading.Lock()
_answered = threading.Event()
_http_client: list[Any] = []
"""The SDK's default HTTP client, made in the thread for the first model client to take
(`take_http_client`): making one loads the CA bundle into an SSL context (about 12 ms
here), which would otherwise be on the first request's path."""


def start() -> Future[ModuleType]:
    """Start the import (once per process); the future holds the `anthropic` module."""
    global _sdk
    with _lock:
        if _sdk is None:
            _sdk = Future()
            # Running: a waiter that is cancelled (a run cancelled while the SDK loads)
            # cannot cancel it for every later waiter (asyncio.wrap_future would).
            _sdk.set_running_or_notify_cancel()
            ended = background_imports.under_way()
            threading.Thread(target=_load, args=(_sdk, ended), name="preload", daemon=True).start()
        return _sdk


async def sdk() -> ModuleType:
    """The `anthropic` module, once the import started by `start` (started now if not
    yet) is done. Raises what the import raised."""
    return await asyncio.wrap_future(start())


def take_http_client() -> Any | None:
    """The HTTP client made while the SDK loaded, for the first client that asks (None
    once taken, or if the preload made none)."""
    with _lock:
        return _http_client.pop() if _http_client else None


def request_answered() -> None:
    """The first request is on the wire and answered: what the rest of a run needs may be
    imported now without slowing the request down."""
    _answered.set()


def _load(sdk: Future[ModuleType], ended: Future[None]) -> None:
    try:
        loaded = _import(sdk)
    finally:
        ended.set_result(None)
    if loaded:
        _answered.wait(IDLE_SECONDS)
        _import_the_rest()


def _import(sdk: Future[ModuleType]) -> bool:
    """Import the SDK and touch the client parts it builds lazily, and the retries the
    first request is made with; False when the import failed.

    Then move everything loaded so far out of the garbage collector's view (gc.freeze):
    a process holds some 200,000 long-lived objects (lsprotocol, pygls, the SDK), and each
    full collection over them stalls it for 150-280 ms in the middle of a run
    (docs/benchmarks.md). No collection before it: it held the GIL for 80 ms while a
    first run sent right after `initialize` waited, to spare a few frozen cycles."""
    try:
        import anthropic

        # The HTTP client (its SSL context) made once: the first model client takes it.
        http_client = anthropic.DefaultAsyncHttpxClient()
        client = anthropic.AsyncAnthropic(api_key="preload", http_client=http_client)
        client.messages.with_streaming_response  # noqa: B018
        import tenacity  # noqa: F401
    except BaseException as exc:  # the model client reports it when it needs the SDK
        sdk.set_exception(exc)
        return False
    with _lock:
        _http_client.append(http_client)
    _import_first_request_modules()
    sdk.set_result(anthropic)
    gc.freeze()
    return True


def _import_first_request_modules() -> None:
    """What the SDK's first request imports otherwise, on its path: the trace header
    injector and the async backend of its HTTP stack. Best effort: another SDK version
    may import neither, and the request then does what it needs as before."""
    for name in ("opentelemetry.propagate", "anyio._backends._asyncio"):
        try:
            importlib.import_module(name)
        except ImportError:
            pass


def _import_the_rest() -> None:
    """What the first tool call needs (input validation), frozen like the SDK."""
    import jsonschema  # noqa: F401

    gc.freeze()
