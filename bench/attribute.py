"""Where the server's time per turn goes: the real server with timers around its parts.

Run as the language server (`python -m bench.attribute OUT.json`): it wraps a few of
the server's functions with wall-clock timers (monkeypatched here, the server code is not
changed), serves LSP on stdio as `python -m workspace_agent` does, and writes the totals
to OUT.json when it exits. `--what-if NAME` switches one cost off to show what it costs:

- `no-session-fsync`: the session store appends its JSONL without os.fsync.
- `gc-freeze`: after the first run (the benchmarks' warm-up, which has imported the SDK
  and built its lazily created parts) `gc.collect(); gc.freeze()` moves every object
  that exists at that point out of the collector's reach, so later collections scan only
  what the runs create. The server could do the same at the end of its preload, after
  warming the SDK's lazy parts.

(An earlier `raw-sse` what-if, reading the SSE stream without the SDK's MessageStream,
became the server's own model client: agent/sse.py.)

Used by `python -m bench --explain` (row 2's breakdown).
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import sys
import threading
import time
from collections import defaultdict
from typing import Any

TOTALS: dict[str, float] = defaultdict(float)
COUNTS: dict[str, int] = defaultdict(int)
MARKS: list[tuple[str, int, str]] = []
"""(point, time.monotonic_ns(), detail) at points of the latency path (rows 6 and 7)."""
_state = threading.local()


def _timed(name: str, fn: Any) -> Any:
    if getattr(fn, "__code__", None) is not None and fn.__code__.co_flags & 0x80:  # coroutine

        @functools.wraps(fn)
        async def awrapper(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return await fn(*args, **kwargs)
            finally:
                TOTALS[name] += time.perf_counter() - started
                COUNTS[name] += 1

        return awrapper

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            TOTALS[name] += time.perf_counter() - started
            COUNTS[name] += 1

    return wrapper


def _patch(owner: Any, name: str, label: str) -> None:
    setattr(owner, name, _timed(label, getattr(owner, name)))


def _watch_gc() -> None:
    """Time every garbage collection (a pause of the whole server)."""
    import gc

    started: dict[str, int] = {}

    def callback(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started["t"] = time.monotonic_ns()
        elif "t" in started:
            took = time.monotonic_ns() - started.pop("t")
            generation = info.get("generation")
            TOTALS[f"gc generation {generation}"] += took / 1e9
            COUNTS[f"gc generation {generation}"] += 1
            if took > 2_000_000:
                MARKS.append((f"gc pause {generation}", time.monotonic_ns(), f"{took / 1e6:.1f}"))

    gc.callbacks.append(callback)


def install(what_if: set[str], out: str) -> None:
    from workspace_agent.agent import loop, sessions, store
    from workspace_agent.agent.model import AnthropicModel
    from workspace_agent.lsp import notifier
    from workspace_agent.tools import TOOLS
    from workspace_agent.tools.base import Tool

    timed_run = _timed("run_turns (whole run)", sessions.run_turns)

    async def run_turns(**kwargs: Any) -> Any:
        try:
            return await timed_run(**kwargs)
        finally:
            dump(out)  # after every run: the server may be killed rather than exit

    setattr(sessions, "run_turns", run_turns)  # noqa: B010 (keeps mypy out of it)
    _patch(AnthropicModel, "respond", "model.respond (HTTP, SSE, scripted model)")
    for tool in TOOLS.values():
        object.__setattr__(tool, "handler", _timed(f"tool handlers: {tool.name}", tool.handler))
    _patch(Tool, "validate", "Tool.validate (jsonschema)")
    _patch(loop, "compact_if_needed", "compact_if_needed")
    _patch(loop, "_redact", "_redact")
    _patch(notifier.LspNotifier, "on_event", "LspNotifier.on_event (workspaceAgent/event)")
    _patch(notifier.LspNotifier, "on_todos", "LspNotifier.on_todos (workspaceAgent/todos)")

    real_on_event = notifier.LspNotifier.on_event
    real_on_todos = notifier.LspNotifier.on_todos

    def on_event(self: Any, session_id: str, kind: str, fields: dict[str, Any]) -> None:
        if kind in ("text", "toolCall"):
            detail = str(fields.get("text", ""))[:8] if kind == "text" else fields.get("name", "")
            MARKS.append((f"on_event {kind}", time.monotonic_ns(), str(detail)))
        real_on_event(self, session_id, kind, fields)
        if kind == "text":
            MARKS.append(("notified text", time.monotonic_ns(), str(fields.get("text", ""))[:8]))

    def on_todos(self: Any, session_id: str, items: Any) -> None:
        detail = items[0].text if items else ""
        MARKS.append(("on_todos", time.monotonic_ns(), detail))
        real_on_todos(self, session_id, items)
        MARKS.append(("notified todos", time.monotonic_ns(), detail))

    setattr(notifier.LspNotifier, "on_event", on_event)  # noqa: B010
    setattr(notifier.LspNotifier, "on_todos", on_todos)  # noqa: B010
    real_respond = AnthropicModel.respond

    async def respond(self: Any, **kwargs: Any) -> Any:
        MARKS.append(("respond start", time.monotonic_ns(), ""))
        try:
            return await real_respond(self, **kwargs)
        finally:
            MARKS.append(("respond end", time.monotonic_ns(), ""))

    setattr(AnthropicModel, "respond", respond)  # noqa: B010
    real_sync = store.SessionStore.sync

    def sync(self: Any, session: Any, durable: bool = False) -> None:
        _state.in_sync = True
        try:
            real_sync(self, session, durable)
        finally:
            _state.in_sync = False

    setattr(store.SessionStore, "sync", _timed("SessionStore.sync (JSONL + fsync)", sync))  # noqa: B010
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        if getattr(_state, "in_sync", False):
            if "no-session-fsync" in what_if:
                return
            _timed("  of which os.fsync of the session file", real_fsync)(fd)
            return
        real_fsync(fd)

    setattr(os, "fsync", fsync)  # noqa: B010


def _freeze_after_first_run() -> None:
    import gc

    from workspace_agent.agent.sessions import SessionManager

    real_run = SessionManager.run
    done: list[bool] = []

    async def run(self: Any, params: Any) -> Any:
        try:
            return await real_run(self, params)
        finally:
            if not done:
                done.append(True)
                gc.collect()
                gc.freeze()

    setattr(SessionManager, "run", run)  # noqa: B010


def dump(path: str) -> None:
    import gc

    objects = {
        "tracked": len(gc.get_objects()),
        "frozen": gc.get_freeze_count(),
        "by generation": [len(gc.get_objects(generation=g)) for g in range(3)],
    }
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"totals": TOTALS, "counts": COUNTS, "marks": MARKS, "gc": objects}, f)


def main() -> None:
    out = sys.argv[1]
    what_if = set(sys.argv[sys.argv.index("--what-if") + 1 :]) if "--what-if" in sys.argv else set()
    install(what_if, out)
    _watch_gc()
    if "gc-freeze" in what_if:
        _freeze_after_first_run()
    atexit.register(dump, out)
    from workspace_agent.cli.main import main as serve

    serve([])


if __name__ == "__main__":
    main()
