"""Thinking over LSP: the model's thinking and redacted_thinking blocks go back to it
unchanged, in order, first in their assistant turn, across three tool turns (the strict
scripted model rejects any edit); the thinking streams to the editor as `thinking` events
and never as the answer's text."""

from __future__ import annotations

import json
from pathlib import Path

from workspace_agent import protocol as p
from workspace_agent.testing.scripted_model import (
    ScriptedModelServer,
    redacted_thinking,
    reply,
    script_of,
    text,
    thinking,
    tool,
)

from tests.support.client import RecordingClient, start_server, start_session
from tests.support.lsp import events_of, run
from tests.support.lsp import request as lsp_request

PLAN = {"items": [{"id": "1", "text": "Look around", "status": "in_progress"}]}
DONE = {"items": [{"id": "1", "text": "Look around", "status": "completed"}]}
THOUGHTS = [
    thinking("The user wants a plan.\nStart with one step.", signature="sig-one"),
    thinking("Step one is under way; mark it done.", signature="sig-two"),
    thinking("Everything is done: say so.", signature="sig-three"),
]
SECRET = redacted_thinking("EqQBCkYIARgCKkBr+redacted+bytes==")


async def test_thinking_blocks_go_back_unchanged_across_three_tool_turns(
    client: RecordingClient, model: ScriptedModelServer
):
    model.load(
        script_of(
            reply(THOUGHTS[0], text("Planning."), tool("todo", PLAN)),
            reply(THOUGHTS[1], SECRET, tool("todo", DONE)),
            reply(THOUGHTS[2], tool("todo", DONE)),
            reply(text("All done.")),
        )
    )

    result = await run(client, "Plan a look around")

    assert result["stopReason"] == "end_turn" and result["text"] == "All done."
    requests = [r for r in model.requests if r.path == "/v1/messages"]
    assert [r.rejected for r in requests] == [None] * 4
    last = requests[-1].body["messages"]
    turns = [m["content"] for m in last if m["role"] == "assistant"]
    assert len(turns) == 3
    # byte for byte: the blocks as the model sent them, first in their turn, in order
    assert [json.dumps(turn[0], sort_keys=True) for turn in turns] == [
        json.dumps(block, sort_keys=True) for block in THOUGHTS
    ]
    assert turns[1][1] == SECRET
    assert [b["type"] for b in turns[1]] == ["thinking", "redacted_thinking", "tool_use"]
    # every request carries the earlier assistant turns exactly as the model sent them
    for number, request in enumerate(requests):
        sent = [m["content"] for m in request.body["messages"] if m["role"] == "assistant"]
        assert sent == turns[:number]
    shown = "".join(event["text"] for event in events_of(client, "thinking"))
    assert shown == "".join(block["thinking"] for block in THOUGHTS)
    assert "user wants a plan" not in "".join(e["text"] for e in events_of(client, "text"))
    # the history keeps each answer's whole thinking, before its text, with its duration
    recorded = await lsp_request(client, p.HISTORY_REQUEST, {"sessionId": result["sessionId"]})
    kinds = [e["kind"] for e in recorded["entries"]]
    thoughts = [e for e in recorded["entries"] if e["kind"] == "thinking"]
    assert [e["text"] for e in thoughts] == [block["thinking"] for block in THOUGHTS]
    assert all(isinstance(e["seconds"], float) and e["seconds"] >= 0 for e in thoughts)
    assert kinds[kinds.index("thinking") + 1] == "text"  # "Planning." comes after it


async def test_an_edited_thinking_block_would_be_refused(
    client: RecordingClient, model: ScriptedModelServer
):
    """The rule the test above relies on: the strict model knows an edit when it sees one."""
    model.load(script_of(reply(THOUGHTS[0], tool("todo", PLAN)), reply(text("ok"))))
    original = model.player.signatures.unchanged
    model.player.signatures.unchanged = lambda block: False  # type: ignore[method-assign]
    try:
        result = await run(client, "Plan a look around")
    finally:
        model.player.signatures.unchanged = original  # type: ignore[method-assign]
    assert result["stopReason"] == "error"
    errors = [event["message"] for event in events_of(client, "error")]
    assert any("Invalid `signature` in `thinking` block" in message for message in errors)


async def test_thinking_goes_back_unchanged_after_a_restart(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    """The session saved with its signed thinking; a new server process resumes it and the
    blocks reach another scripted model (which checks signatures as the API does) as sent."""
    model.load(script_of(reply(thinking("First look."), tool("todo", PLAN)), reply(text("Ok."))))
    first = await run(client, "Plan a look around")
    sent = [r for r in model.requests if r.path == "/v1/messages"][-1].body["messages"][1]

    fresh = await start_server()
    with ScriptedModelServer(script_of(reply(text("Resumed.")))) as other:
        await start_session(fresh, workspace, other)
        try:
            again = await run(fresh, "And now?", first["sessionId"])
        finally:
            await fresh.shutdown_session()
    assert again["stopReason"] == "end_turn" and again["text"] == "Resumed."
    (request,) = [r for r in other.requests if r.path == "/v1/messages"]
    assert request.rejected is None
    assert request.body["messages"][1] == sent
    assert request.body["messages"][1]["content"][0]["type"] == "thinking"
