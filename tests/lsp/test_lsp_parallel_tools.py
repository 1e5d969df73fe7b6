"""Several tool_use blocks in one answer, over LSP: their results go back first in the next
user message, in the model's order (the strict scripted model checks the rest); read-only
calls of one answer overlap, changing calls run alone in the model's order, each under its
plan step; every toolCall event has its one toolResult. The overlap is told by a test
MCP server (tests/mcp_servers/rendezvous_server.py), not by timing."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from workspace_agent import protocol as p
from workspace_agent.agent.loop import CANCELLED_RESULT
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient, session_fixture
from tests.support.lsp import changes, command, events_of, run, wait_for
from tests.support.mcp import record_states
from tests.support.server import USER_CONFIG

RENDEZVOUS = Path(__file__).parents[1] / "mcp_servers" / "rendezvous_server.py"

editor_allowing_mcp = session_fixture(
    "editor_allowing_mcp", editor={"saves": True}, settings={"approvals": {"mcp": "allow"}}
)
"""An editor whose MCP tools are allowed without a question."""


def answered(model: ScriptedModelServer, n: int) -> tuple[list[str], list[dict[str, Any]]]:
    """The tool_use ids of the model's answer to request `n`, and the content of the user
    message that came next."""
    asked = model.requests[n + 1].body["messages"]
    uses = [b["id"] for b in asked[-2]["content"] if b["type"] == "tool_use"]
    return uses, asked[-1]["content"]


def assert_well_formed(client: RecordingClient) -> None:
    """Each call shown once, and its result once, after it."""
    calls = [e["toolUseId"] for e in events_of(client, "toolCall")]
    results = [e["toolUseId"] for e in events_of(client, "toolResult")]
    assert len(set(calls)) == len(calls) and sorted(calls) == sorted(results)
    shown = ("toolCall", "toolResult")
    order = [(e["kind"], e["toolUseId"]) for e in client.events if e["kind"] in shown]
    for tool_use_id in calls:
        assert order.index(("toolCall", tool_use_id)) < order.index(("toolResult", tool_use_id))


async def test_two_calls_get_their_results_first_and_in_order(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    (workspace / "a.txt").write_text("alpha\n")
    (workspace / "b.txt").write_text("beta\n")
    model.load(
        script_of(
            reply(
                text("Reading both."),
                tool("read_file", {"path": "a.txt"}),
                tool("read_file", {"path": "b.txt"}),
            ),
            reply(text("Done.")),
        )
    )
    result = await run(client, "Read a and b")

    assert result["stopReason"] == "end_turn"
    uses, content = answered(model, 0)
    assert [b["type"] for b in content] == ["tool_result", "tool_result"]
    assert [b["tool_use_id"] for b in content] == uses
    assert "alpha" in content[0]["content"] and "beta" in content[1]["content"]
    assert_well_formed(client)
    assert all(r.rejected is None for r in model.requests)


async def test_five_calls_keep_the_models_order_around_a_write_and_their_plan_step(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    (workspace / "a.txt").write_text("alpha\n")
    plan = {"items": [{"id": "1", "text": "Copy a to c", "status": "in_progress"}]}
    model.load(
        script_of(
            reply(
                tool("todo", plan),
                tool("read_file", {"path": "a.txt"}),
                tool("read_file", {"path": "c.txt"}),  # before the write: not there yet
                tool("write_file", {"path": "c.txt", "content": "gamma\n"}),
                tool("read_file", {"path": "c.txt"}),  # after it: the new text
            ),
            reply(text("Copied.")),
        )
    )
    result = await run(client, "Copy a to c")

    assert result["stopReason"] == "end_turn"
    uses, content = answered(model, 0)
    assert len(uses) == 5 and [b["tool_use_id"] for b in content[:5]] == uses
    _, read_a, early, write, late = content[:5]
    assert "alpha" in read_a["content"]
    assert early.get("is_error") is True and "c.txt" in early["content"]
    assert not write.get("is_error")
    assert "gamma" in late["content"] and not late.get("is_error")
    # every call after the todo is the plan step's, and so is the written file
    assert [e["todoId"] for e in events_of(client, "toolCall")][1:] == ["1"] * 4
    (item,) = (await changes(client, result["sessionId"]))["items"]
    assert item["todoId"] == "1" and [f["path"] for f in item["files"]] == ["c.txt"]
    assert_well_formed(client)
    assert all(r.rejected is None for r in model.requests)


@pytest.fixture
def rendezvous_server() -> Iterator[None]:
    """The rendezvous MCP server, in the user's config (removed after)."""
    servers = {"meet": {"command": sys.executable, "args": [str(RENDEZVOUS)]}}
    (USER_CONFIG / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    yield
    (USER_CONFIG / "mcp.json").unlink(missing_ok=True)


async def ready(client: RecordingClient, model: ScriptedModelServer) -> None:
    states = record_states(client)
    model.load({"conversations": [{"replies": [reply(text("ok"))]}], "on_exhausted": "repeat"})
    await run(client, "warm up")  # the first run finds the config written after the start
    await wait_for(
        lambda: any(s["name"] == "meet" and s["state"] == "ready" for b in states for s in b),
        timeout=30,
        what="the rendezvous server ready",
    )


def outputs(model: ScriptedModelServer) -> list[str]:
    return [b["content"] for b in model.requests[-1].body["messages"][-1]["content"]]


async def test_read_only_calls_overlap(
    rendezvous_server: None, editor_allowing_mcp: RecordingClient, model: ScriptedModelServer
):
    client = editor_allowing_mcp
    await ready(client, model)
    model.load(
        script_of(
            reply(
                tool("mcp__meet__look", {"name": "first", "until": 2}),
                tool("mcp__meet__look", {"name": "second"}),
            ),
            reply(text("Both looked.")),
        )
    )
    result = await run(client, "Look twice")

    assert result["stopReason"] == "end_turn"
    # one after the other, the first would have waited alone for the second
    assert outputs(model) == [
        "first: call 1, 0 ended before, met call 2, 0 in flight at its end",
        "second: call 2, 0 ended before, 1 in flight at its end",
    ]
    assert_well_formed(client)


async def test_changing_calls_run_alone_in_the_models_order(
    rendezvous_server: None, editor_allowing_mcp: RecordingClient, model: ScriptedModelServer
):
    client = editor_allowing_mcp
    await ready(client, model)
    model.load(
        script_of(
            reply(
                tool("mcp__meet__look", {"name": "a", "until": 2}),
                tool("mcp__meet__look", {"name": "b"}),
                tool("mcp__meet__change", {"name": "w"}),
                tool("mcp__meet__change", {"name": "v"}),
                tool("mcp__meet__look", {"name": "c", "until": 6}),
                tool("mcp__meet__look", {"name": "d"}),
            ),
            reply(text("Done.")),
        )
    )
    result = await run(client, "Look, change, look")

    assert result["stopReason"] == "end_turn"
    a, b, w, v, c, d = outputs(model)
    assert a.startswith("a: call 1, 0 ended before, met call 2")
    assert b.startswith("b: call 2, 0 ended before")
    # each change starts once every call before it ended, and ends before the next starts
    assert w == "w: call 3, 2 ended before, 0 in flight at its end"
    assert v == "v: call 4, 3 ended before, 0 in flight at its end"
    assert c.startswith("c: call 5, 4 ended before, met call 6")
    assert d.startswith("d: call 6, 4 ended before")
    assert_well_formed(client)


async def test_a_cancel_mid_group_answers_every_call_in_order(
    rendezvous_server: None, editor_allowing_mcp: RecordingClient, model: ScriptedModelServer
):
    client = editor_allowing_mcp
    await ready(client, model)
    model.load(
        script_of(
            reply(
                tool("mcp__meet__look", {"name": "waiting", "until": 99}),  # never met
                tool("mcp__meet__look", {"name": "quick"}),
                tool("mcp__meet__change", {"name": "never"}),
            ),
            reply(text("Picking up.")),
        )
    )
    session_id = (await command(client, p.NEW_SESSION_COMMAND))["sessionId"]
    pending = asyncio.ensure_future(
        command(client, p.RUN_COMMAND, {"prompt": "Look", "sessionId": session_id})
    )
    await wait_for(
        lambda: any(e["output"].startswith("quick:") for e in events_of(client, "toolResult")),
        timeout=30,
        what="the quick look answered while the other waits",
    )
    await command(client, p.CANCEL_COMMAND, {"sessionId": session_id})
    assert (await pending)["stopReason"] == "cancelled"

    shown = [e["name"] for e in events_of(client, "toolCall")]
    assert shown == ["mcp__meet__look", "mcp__meet__look"]  # the change never started
    assert_well_formed(client)
    follow_up = await run(client, "Go on", session_id)
    assert follow_up["stopReason"] == "end_turn"
    uses, content = answered(model, len(model.requests) - 2)
    assert [b["tool_use_id"] for b in content[:3]] == uses
    waiting, quick, never = content[:3]
    assert waiting["is_error"] is True and waiting["content"] == CANCELLED_RESULT
    assert quick["content"].startswith("quick: call 2") and not quick.get("is_error")
    assert never["is_error"] is True and never["content"] == CANCELLED_RESULT
    assert all(r.rejected is None for r in model.requests)
