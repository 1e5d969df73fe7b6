"""Rows 6 and 7: how fast what the model does reaches the editor.

One scripted run over LSP whose every reply is a streamed text ("Step NNN: ...") followed
by a `todo` call that changes the plan. The scripted model (its own process) notes
`time.monotonic_ns()` right after each SSE event has been flushed to the socket (the
opt-in hook in workspace_agent/testing/scripted_model.py); the LSP client (this process)
notes `time.monotonic_ns()` as each notification is handed to its handler. Both read the
machine-wide CLOCK_MONOTONIC, so the difference is the one-way latency through the SDK,
the agent and the LSP pipe.

- Row 6: from the event that completes the todo tool_use block (its content_block_stop)
  to the client receiving the `workspaceAgent/todos` notification with that plan.
- Row 7: from the first text_delta event of the reply to the client receiving the
  `workspaceAgent/event` of kind `text` that carries it.
"""

from __future__ import annotations

import asyncio
import gc
from collections import defaultdict
from typing import Any

from workspace_agent.testing.scripted_model import reply, text, tool

from .harness import ScriptedModelProcess, lsp_agent, run_prompt, settled, temp_dir
from .report import Row, percentile
from .scripts import WARMUP, make_workspace, warmup_conversation

PROMPT = "latency run: report each step"
TODO_WHAT = "latency: model's todo tool call → client receives `workspaceAgent/todos`"
TEXT_WHAT = "time to first streamed text in the client after the model's first text delta"


def _marker(turn: int) -> str:
    return f"Step {turn:03d}"


def script(turns: int) -> dict[str, Any]:
    replies = []
    for turn in range(turns):
        plan = {
            "items": [
                {"id": "1", "text": f"step {turn:03d}", "status": "in_progress"},
                {"id": "2", "text": "the rest", "status": "pending"},
            ]
        }
        replies.append(
            reply(text(f"{_marker(turn)}: working on it, then the plan."), tool("todo", plan))
        )
    replies.append(reply(text("Finished.")))
    return {
        "conversations": [warmup_conversation(), {"match": PROMPT, "replies": replies}],
        "on_exhausted": "error",
    }


async def measure(
    turns: int, command: list[str] | None = None, keep: dict[str, Any] | None = None
) -> dict[str, list[float]]:
    """Latencies in ms; `command` runs another server (bench/attribute.py), `keep` gets
    the raw stamps."""
    # The measuring client is a Python process too: keep its own garbage collections
    # (a full one scans the ~100k objects of pygls/lsprotocol) out of the numbers.
    gc.collect()
    gc.freeze()
    with (
        temp_dir("bench-latency-") as workspace,
        ScriptedModelProcess(script(turns), timestamps=True) as model,
    ):
        make_workspace(workspace)
        command = [c.replace("{workspace}", str(workspace)) for c in command or []] or None
        async with lsp_agent(workspace, model.url, command=command) as (client, received):
            warm = await run_prompt(client, WARMUP)
            await settled()  # the checkpoint store's upkeep after it is not measured
            skip = len(model.requests())  # the warm-up's messages
            result = await run_prompt(client, PROMPT)
        stamps = model.timestamps()
        if keep is not None:
            keep.update(stamps=stamps, received=received, workspace=workspace)
            if (workspace / "attribute.json").exists():
                import json

                keep["server"] = json.loads((workspace / "attribute.json").read_text())
    if result["stopReason"] != "end_turn":
        raise RuntimeError(f"latency run went wrong: {result} (warm-up {warm['stopReason']})")
    by_message: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for stamp in stamps:
        by_message[stamp["message"]].append(stamp)
    messages = sorted(by_message)[skip:]
    text_sent: dict[str, int] = {}
    todo_sent: dict[str, int] = {}
    for turn, message in enumerate(messages[:turns]):
        events = by_message[message]
        first_text = next(e for e in events if e["delta"] == "text_delta")
        tool_done = next(e for e in events if e["name"] == "content_block_stop" and e["index"] == 1)
        text_sent[_marker(turn)] = first_text["t"]
        todo_sent[f"step {turn:03d}"] = tool_done["t"]
    text_got: dict[str, int] = {}
    for at, event in received.events:
        if event.get("kind") == "text":
            key = str(event.get("text", ""))[:8]
            text_got.setdefault(key, at)
    todo_got: dict[str, int] = {}
    for at, payload in received.todos:
        items = payload.get("items") or []
        if items:
            todo_got.setdefault(items[0]["text"], at)
    text_ms = [(text_got[k] - t) / 1e6 for k, t in text_sent.items()]
    todo_ms = [(todo_got[k] - t) / 1e6 for k, t in todo_sent.items()]
    if len(text_ms) != turns or len(todo_ms) != turns:
        raise RuntimeError(f"matched {len(text_ms)} texts and {len(todo_ms)} plans of {turns}")
    return {"text": text_ms, "todo": todo_ms}


def _dist(values: list[float]) -> str:
    return (
        f"p50 {percentile(values, 50):.2f} ms, p90 {percentile(values, 90):.2f} ms, "
        f"p99 {percentile(values, 99):.2f} ms, max {max(values):.2f} ms (n={len(values)})"
    )


def run(quick: bool) -> list[Row]:
    turns = 30 if quick else 200
    got = asyncio.run(measure(turns))
    todo, first_text = got["todo"], got["text"]
    t50, t99 = percentile(todo, 50), percentile(todo, 99)
    x50 = percentile(first_text, 50)
    method = (
        f"- One run of {turns} replies (text, then a todo call that changes the plan) after "
        "a warm-up run; zero-delay scripted model in its own process with TCP_NODELAY; "
        "clock: CLOCK_MONOTONIC in both processes (model: after the SSE event is flushed; "
        "client: when pygls hands the notification to its handler). The client (pygls, "
        "Python) freezes its own garbage collector first so its pauses are not counted."
    )
    return [
        Row(
            6,
            TODO_WHAT,
            "—",
            f"p50 {t50:.2f} ms, p99 {t99:.2f} ms",
            "—",
            "p50 < 5 ms, p99 < 20 ms on loopback",
            t50 < 5 and t99 < 20,
            [
                f"- {_dist(todo)}",
                "- From the SSE event that completes the todo tool_use block to the "
                "`workspaceAgent/todos` notification in the client. In between: the rest of "
                "the stream (message_delta, message_stop), the SDK's final message, input "
                "validation, the todo handler, the toolCall/toolResult events, the "
                "notification's JSON-RPC encoding, the stdio pipe and the client's decoding. "
                "With a zero-delay model the whole reply arrives at once, so the SDK's "
                "processing of all its events (not only of the last two) lands in this window.",
                method,
            ],
        ),
        Row(
            7,
            TEXT_WHAT,
            "—",
            f"p50 {x50:.2f} ms",
            "—",
            "p50 < 10 ms",
            x50 < 10,
            [
                f"- {_dist(first_text)}",
                "- From the first text_delta SSE event of a reply to the `workspaceAgent/event` "
                "(kind text) carrying it in the client. With a zero-delay model the first "
                "text_delta arrives right behind message_start and content_block_start, so this "
                "includes the SDK's processing of those two events (a real model sends them "
                "well before its first token).",
                method,
            ],
        ),
    ]
