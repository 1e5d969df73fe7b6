"""Row 16: the history of a 10,000-message session, served (`workspaceAgent/history`).

A session saved as the server saves them (JSONL, 10,000 messages: prompts, assistant text,
`read_file` calls and their ~600-byte results), without a history yet, as a session from
before histories has. Measured over LSP on stdio (raw JSON-RPC framing, bench/rpc_client),
from sending the request to having read the whole answer:

1. the first request on a server: the history is derived from the messages once and
   written down next to the session file;
2. after a restart (a fresh server process, once its start-up is done): the first
   request, which reads the history file's line offsets once; this is what a
   conversation view waits for after a reload or a restart, and what the target is
   about. Asked right after `initialized` instead, the first request also waits for the
   server to load the agent core (every first request does: the same is measured for
   `workspaceAgent/sessions`), which is reported beside it;
3. warm requests of the newest page, and of the oldest page through its cursor.

The naive baseline, in the same run, is what a server without the record would do for
every request: read the session file (SessionStore.load) and derive the entries from its
messages, then cut the newest page; timed in the bench process, so without the LSP round
trip ours pays (it flatters the baseline).

The view's first render of the page is the extension's to measure (its own row); this row
is the server side only.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from workspace_agent import protocol as p

from .harness import BENCH_SETTINGS, PY, child_env, temp_dir
from .report import Row, median, ms, percentile, spread
from .rpc_client import raw_server

NUMBER = 16
WHAT = "history of a 10,000-message session: newest page of `workspaceAgent/history`"
TARGET = "first page of a fresh server <= 200 ms (server side; the render is the extension's)"
LIMIT = 0.200
SESSION = "big0history0"
PAGE = 200


def write_session(folder: Path, messages: int) -> tuple[int, int]:
    """The session file, as SessionStore writes it (one `messages` record per turn);
    its size and how many messages it holds."""
    result = "value = compute(value)  # a line of a file the agent read\n" * 10
    records: list[dict[str, Any]] = [
        {"type": "session", "id": SESSION, "created": 1_700_000_000.0, "format": 1},
        {"type": "title", "text": "A long session"},
    ]
    count = 0
    turn = 0
    while count < messages:
        if turn % 50 == 0:  # a new prompt now and then: a new run
            prompt = [{"type": "text", "text": f"Task {turn // 50}: read the module again"}]
            records.append({"type": "messages", "messages": [{"role": "user", "content": prompt}]})
            count += 1
        tool_id = f"toolu_{turn:06d}"
        call = {
            "role": "assistant",
            "content": [
                {"type": "text", "text": f"Reading part {turn} of the module."},
                {"type": "tool_use", "id": tool_id, "name": "read_file", "input": {"path": "a.py"}},
            ],
        }
        answer = {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": result}],
        }
        records.append({"type": "messages", "messages": [call, answer]})
        count += 2
        turn += 1
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{SESSION}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path.stat().st_size, count


def naive_page(root: Path) -> tuple[float, int]:
    """Seconds to serve the newest page from the messages, and the entries there are."""
    from workspace_agent.agent.store import SessionStore
    from workspace_agent.conversation.derive import derived_entries

    started = time.perf_counter()
    session = SessionStore(root).load(SESSION, repair=False)
    assert session is not None
    entries, _outputs = derived_entries(session.messages, root)
    page = entries[-PAGE:]
    took = time.perf_counter() - started
    assert len(page) == PAGE
    return took, len(entries)


SETTLE = 1.5
"""Seconds a settled server is left alone after `initialized` (it loads the agent core and
the anthropic SDK in the background meanwhile)."""


async def _server(
    workspace: Path, warm: int, settle: float = 0.0, method: str = p.HISTORY_REQUEST
) -> dict[str, Any]:
    options = {"workspaceAgent": {**BENCH_SETTINGS}}
    newest = {"sessionId": SESSION}
    async with raw_server([PY, "-m", "workspace_agent"], workspace, child_env(), options) as c:
        await asyncio.sleep(settle)
        if method != p.HISTORY_REQUEST:  # the start-up cost alone, for comparison
            return {"first": (await c.request(method, {})).seconds}
        first = await c.request(p.HISTORY_REQUEST, newest)
        page = first.result()
        warm_newest = [(await c.request(p.HISTORY_REQUEST, newest)).seconds for _ in range(warm)]
        oldest = {"sessionId": SESSION, "before": f"h{PAGE}"}
        warm_oldest = [(await c.request(p.HISTORY_REQUEST, oldest)).seconds for _ in range(warm)]
        (await c.request(p.HISTORY_REQUEST, oldest)).result()  # a cursor that works
    return {
        "first": first.seconds,
        "total": page["total"],
        "entries": len(page["entries"]),
        "bytes": len(first.body),
        "warm_newest": warm_newest,
        "warm_oldest": warm_oldest,
    }


async def measure(quick: bool) -> dict[str, Any]:
    messages = 2_000 if quick else 10_000
    warm = 5 if quick else 20
    repeats = 1 if quick else 3  # server starts of each kind
    with temp_dir("bench-history-") as workspace:
        folder = workspace / ".workspace-agent" / "sessions"
        size, count = write_session(folder, messages)
        naive = [naive_page(workspace) for _ in range(repeats)]
        derived = await _server(workspace, warm)  # derives the history, then pages
        history = (folder / f"{SESSION}.history.jsonl").stat().st_size
        restarts = [await _server(workspace, warm) for _ in range(repeats)]
        settled = [await _server(workspace, warm, SETTLE) for _ in range(repeats)]
        listing = [await _server(workspace, 0, 0.0, p.SESSIONS_REQUEST) for _ in range(repeats)]
    return {
        "messages": count,
        "session_bytes": size,
        "history_bytes": history,
        "naive": [took for took, _ in naive],
        "naive_entries": naive[0][1],
        "derived": derived,
        "restarts": restarts,
        "settled": settled,
        "listing": [r["first"] for r in listing],
    }


def run(quick: bool) -> Row:
    m = asyncio.run(measure(quick))
    after_restart = [r["first"] for r in m["restarts"]]
    settled = [r["first"] for r in m["settled"]]
    servers = [m["derived"], *m["restarts"], *m["settled"]]
    warm = [s for r in servers for s in r["warm_newest"]]
    oldest = [s for r in servers for s in r["warm_oldest"]]
    ours, naive = median(settled), median(m["naive"])
    page = m["derived"]
    details = [
        f"- session: {m['messages']:,} messages ({m['session_bytes'] / 1e6:.1f} MB of JSONL: "
        "a prompt every 50 turns, each turn an assistant text with a `read_file` call and its "
        "~600-byte result), saved without a history, as sessions from before histories are; "
        f"{m['naive_entries']:,} history entries ({m['history_bytes'] / 1e6:.1f} MB once "
        "recorded); warm page cache.",
        f"- **ours**, first page of a fresh server (left alone {SETTLE:g} s after "
        f"`initialized`: start-up done; the history file's offsets read once): "
        f"{spread(settled)}",
        f"- ours, first page asked right after `initialized` (the server still loading the "
        f"agent core, as after a reload): {spread(after_restart)}; a fresh server's first "
        f"`workspaceAgent/sessions` asked the same way (mostly that start-up): "
        f"{spread(m['listing'])}",
        f"- ours, warm newest page: p50 {ms(median(warm))}, p99 {ms(percentile(warm, 99))} "
        f"(n={len(warm)}); warm oldest page (through its cursor): p50 {ms(median(oldest))}",
        f"- ours, the very first request for this session (the history derived from its "
        f"messages and written down, once per old session): {ms(page['first'])}",
        f"- a page: {page['entries']} entries, {page['bytes'] / 1e3:,.0f} kB of JSON",
        f"- **naive** (read the session file and derive every entry, per request; in the "
        f"bench process, no LSP round trip): {spread(m['naive'])}",
        "- Clock: from writing the request to reading the whole response (raw JSON-RPC "
        "framing); the server side only: the Conversation view's first render of the page "
        "is measured by the extension.",
    ]
    return Row(
        NUMBER,
        WHAT,
        f"derive from the messages per request: {ms(naive)}",
        f"first page of a fresh server {ms(ours)}, warm p50 {ms(median(warm))}",
        f"{naive / ours:,.1f}x faster (first), {naive / median(warm):,.1f}x (warm)",
        TARGET,
        ours <= LIMIT,
        details,
    )
