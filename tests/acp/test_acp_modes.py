"""Modes over ACP: the `mode` config option and the `modes` field (ask, plan), their
setters and updates, and the plan question at `planReady`: Run this plan (act mode, the
same prompt turn), Keep planning (a revision in plan mode), Reject, and a cancel.

Asserts what the client sees (answers, updates, the permission request), what the
scripted model was sent, and what is on disk.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.acp import EditorClient, acp_agent, agent_env, prompt
from tests.support.lsp import tool_results, wait_for

PLAN = {
    "items": [
        {"id": "1", "text": "Write hello.txt", "status": "pending"},
        {"id": "2", "text": "Check it", "status": "pending"},
    ]
}
PLANNING = (
    reply(
        tool("write_file", {"path": "hello.txt", "content": "too early\n"}),
        tool("todo", PLAN),
    ),
    reply(text("Write the file, then check it.")),
)


def wire(model: Any) -> Any:
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


def mode_option(current: str) -> dict[str, Any]:
    return {
        "id": "mode",
        "name": "Mode",
        "description": "Plan first, or work on the task right away",
        "category": "mode",
        "type": "select",
        "currentValue": current,
        "options": [
            {
                "value": "ask",
                "name": "Ask",
                "description": "Work on the task: change files and run commands, asking as "
                "the approvals settings say",
            },
            {
                "value": "plan",
                "name": "Plan",
                "description": "Look without touching anything, then propose a plan to run "
                "or revise",
            },
        ],
    }


def mode_updates(client: EditorClient) -> list[Any]:
    """The mode changes the client was told of, both ways, in order."""
    return [
        u.get("currentModeId") or u["configOptions"][0]["currentValue"]
        for _, u in client.updates
        if u["sessionUpdate"] in ("current_mode_update", "config_option_update")
    ]


def system_text(body: dict[str, Any]) -> str:
    system = body["system"]
    return system if isinstance(system, str) else "".join(b["text"] for b in system)


async def test_the_mode_is_offered_both_ways_and_either_setter_switches_it(
    model: ScriptedModelServer, workspace: Path
):
    client = EditorClient()
    async with acp_agent(client, workspace, agent_env(model)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        made = wire(session)
        sid = session.session_id
        switched = await conn.set_config_option(config_id="mode", session_id=sid, value="plan")
        await conn.set_config_option(config_id="mode", session_id=sid, value="plan")  # again
        loaded = await conn.load_session(cwd=str(workspace), session_id=sid)
        await conn.set_session_mode(session_id=sid, mode_id="ask")
        with pytest.raises(RequestError) as unknown_mode:
            await conn.set_session_mode(session_id=sid, mode_id="code")
        with pytest.raises(RequestError) as unknown_option:
            await conn.set_config_option(config_id="colour", session_id=sid, value="x")
        with pytest.raises(RequestError) as unknown_value:
            await conn.set_config_option(config_id="mode", session_id=sid, value="auto")
        with pytest.raises(RequestError) as unknown_session:
            await conn.set_session_mode(session_id="nope", mode_id="plan")

    assert made["configOptions"][0] == mode_option("ask")
    assert [o["id"] for o in made["configOptions"]] == ["mode", "model", "thought_level"]
    assert made["modes"] == {
        "currentModeId": "ask",
        "availableModes": [
            {"id": o["value"], "name": o["name"], "description": o["description"]}
            for o in mode_option("ask")["options"]
        ],
    }
    assert wire(switched)["configOptions"][0] == mode_option("plan")
    # The same connection loads the session in the mode it is in.
    assert wire(loaded)["modes"]["currentModeId"] == "plan"
    assert wire(loaded)["configOptions"][0] == mode_option("plan")
    # Each change is reported both ways, once (setting the same mode again reports nothing).
    assert [
        u["sessionUpdate"]
        for _, u in client.updates
        if u["sessionUpdate"] != "available_commands_update"  # test_acp_commands.py
    ] == [
        "current_mode_update",
        "config_option_update",
        "current_mode_update",
        "config_option_update",
    ]
    assert mode_updates(client) == ["plan", "plan", "ask", "ask"]
    mode_changes = [u for _, u in client.updates if u["sessionUpdate"] == "config_option_update"]
    assert mode_changes[0]["configOptions"][0] == mode_option("plan")
    assert unknown_mode.value.code == -32602
    assert str(unknown_mode.value) == "there is no mode 'code': the modes are ask, plan"
    assert unknown_option.value.code == -32602
    assert str(unknown_option.value) == (
        "there is no config option 'colour': the options are 'mode', 'model' and 'thought_level'"
    )
    assert unknown_value.value.code == -32602
    assert unknown_session.value.code == -32002


async def test_plan_mode_asks_at_plan_ready_and_runs_the_approved_plan_in_the_same_turn(
    model: ScriptedModelServer, workspace: Path
):
    done = {"items": [{**item, "status": "completed"} for item in PLAN["items"]]}
    model.load(
        script_of(
            *PLANNING,
            reply(tool("write_file", {"path": "hello.txt", "content": "hello\n"})),
            reply(tool("bash", {"command": "cat hello.txt"}), tool("todo", done)),
            reply(text("Done: hello.txt says hello.")),
        )
    )
    client = EditorClient(False, "run_plan")
    env = agent_env(model, WORKSPACE_AGENT_SANDBOX="off")
    async with acp_agent(client, workspace, env, "--yes") as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        await conn.set_config_option(config_id="mode", session_id=session.session_id, value="plan")
        stop = await prompt(conn, session.session_id, "Say hello in a file")

    assert stop == "end_turn"
    assert (workspace / "hello.txt").read_text() == "hello\n"
    # Planning touched nothing: the write was refused, and the model was told why.
    planning = model.requests[0].body
    assert "Plan mode:" in system_text(planning)
    (refused, _) = tool_results(model.requests[1].body)
    assert refused["content"].startswith("not done: you are in plan mode")

    # The question: the plan, with the model's summary, as its own tool call.
    (question,) = client.permission_requests
    assert [(o["optionId"], o["name"], o["kind"]) for o in question["options"]] == [
        ("run_plan", "Run this plan", "allow_once"),
        ("keep_planning", "Keep planning", "reject_once"),
        ("reject", "Reject", "reject_once"),
    ]
    call = question["toolCall"]
    assert call["kind"] == "switch_mode" and call["status"] == "pending"
    assert call["title"] == "Run this plan?"
    assert call["content"][0]["content"]["text"] == (
        "Write the file, then check it.\n\nThe plan:\n1. Write hello.txt\n2. Check it"
    )
    assert call["rawInput"] == {
        "plan": [{"id": "1", "text": "Write hello.txt"}, {"id": "2", "text": "Check it"}]
    }
    shown = [u for _, u in client.updates if u.get("toolCallId") == call["toolCallId"]]
    assert [(u["sessionUpdate"], u["status"]) for u in shown] == [
        ("tool_call", "pending"),
        ("tool_call_update", "completed"),
    ]
    assert shown[1]["content"][0]["content"]["text"] == "Running the plan."

    # Approved: the session is back in ask, and the plan runs in act mode, in this turn.
    assert mode_updates(client) == ["plan", "plan", "ask", "ask"]
    acting = model.requests[2].body
    assert "Plan mode:" not in system_text(acting)
    approval = acting["messages"][-1]["content"][-1]["text"]
    assert approval.startswith("The user approved this plan")
    assert "The plan:\n- [#1] Write hello.txt\n- [#2] Check it" in approval
    (written,) = tool_results(model.requests[3].body)
    assert not written.get("is_error")
    assert [e["status"] for e in client.of_kind("plan")[-1]["entries"]] == ["completed"] * 2
    assert client.text().endswith("Done: hello.txt says hello.")


async def test_keep_planning_revises_in_plan_mode_and_a_reject_keeps_the_plan(
    model: ScriptedModelServer, workspace: Path
):
    revised = {
        "items": [{"id": "1", "text": "Write hello.txt with a greeting", "status": "pending"}]
    }
    model.load(
        script_of(
            *PLANNING,
            reply(tool("todo", revised)),
            reply(text("One step now.")),
        )
    )
    client = EditorClient(False, "keep_planning", "reject")
    async with acp_agent(client, workspace, agent_env(model)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        await conn.set_session_mode(session_id=session.session_id, mode_id="plan")
        stop = await prompt(conn, session.session_id, "Say hello in a file")

    assert stop == "end_turn"
    assert not (workspace / "hello.txt").exists()
    assert len(model.requests) == 4
    revising = model.requests[2].body
    assert "Plan mode:" in system_text(revising)
    assert revising["messages"][-1]["content"][-1]["text"].startswith(
        "The user wants a revised plan"
    )
    first, second = client.permission_requests
    assert first["toolCall"]["content"][0]["content"]["text"].endswith(
        "1. Write hello.txt\n2. Check it"
    )
    assert second["toolCall"]["content"][0]["content"]["text"] == (
        "One step now.\n\nThe plan:\n1. Write hello.txt with a greeting"
    )
    ends = [u for u in client.of_kind("tool_call_update") if u["toolCallId"].startswith("plan-")]
    assert [(u["status"], u["content"][0]["content"]["text"]) for u in ends] == [
        ("completed", "Planning on: the agent revises the plan."),
        ("failed", "Not run: the plan is kept, nothing was changed."),
    ]
    # Still planning: the mode did not change, the plan is the revised one.
    assert mode_updates(client) == ["plan", "plan"]
    assert [e["content"] for e in client.of_kind("plan")[-1]["entries"]] == [
        "Write hello.txt with a greeting"
    ]


async def test_a_cancel_while_the_plan_question_is_open_ends_the_turn_cancelled(
    model: ScriptedModelServer, workspace: Path
):
    model.load(script_of(*PLANNING, reply(text("Still here."))))
    client = EditorClient(False, "wait")
    async with acp_agent(client, workspace, agent_env(model)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        running = asyncio.ensure_future(prompt(conn, session.session_id, "/plan Say hello"))
        await wait_for(lambda: bool(client.permission_requests))
        with pytest.raises(RequestError) as busy:  # the turn is not over while it asks
            await prompt(conn, session.session_id, "Something else")
        await conn.cancel(session_id=session.session_id)
        client.cancelled.set()
        stop = await asyncio.wait_for(running, 10)
        requests_then = len(model.requests)
        again = await prompt(conn, session.session_id, "Are you there?")

    assert stop == "cancelled"
    assert busy.value.code == -32602
    assert "is busy with another prompt" in str(busy.value)
    assert requests_then == 2  # nothing ran after the question
    assert not (workspace / "hello.txt").exists()
    (end,) = [u for u in client.of_kind("tool_call_update") if u["toolCallId"].startswith("plan-")]
    assert (end["status"], end["content"][0]["content"]["text"]) == (
        "failed",
        "Not run: cancelled, the plan is kept.",
    )
    # The session is free again (a prompt turn over), in the mode it was in (ask).
    assert again == "end_turn"
    assert client.text().endswith("Still here.")
