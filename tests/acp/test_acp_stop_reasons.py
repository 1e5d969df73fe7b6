"""Stop reasons over ACP: a refusal answers session/prompt with stopReason `refusal`
(ACP's own), the message shown in the agent's text; a paused turn goes on; a `/plan `
prompt plans in plan mode and ends its turn."""

from __future__ import annotations

from pathlib import Path

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.acp import EditorClient, acp_agent, agent_env, prompt
from tests.support.lsp import tool_results


async def test_a_refusal_is_acps_refusal(model: ScriptedModelServer, workspace: Path):
    model.load(script_of(reply(text("I can't help with that."), stop_reason="refusal")))
    client = EditorClient()
    async with acp_agent(client, workspace, agent_env(model)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        stop = await prompt(conn, session.session_id, "Do the forbidden thing")

    assert stop == "refusal"
    assert "I can't help with that." in client.text()
    assert "declined to go on with this request" in client.text()


async def test_a_paused_turn_goes_on(model: ScriptedModelServer, workspace: Path):
    model.load(
        script_of(
            reply(text("Looking it up."), stop_reason="pause_turn"), reply(text(" Found it."))
        )
    )
    client = EditorClient()
    async with acp_agent(client, workspace, agent_env(model)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        stop = await prompt(conn, session.session_id, "Look it up")

    assert stop == "end_turn"
    assert client.text() == "Looking it up. Found it."
    assert [r.rejected for r in model.requests] == [None, None]


async def test_a_plan_prompt_plans_without_touching_and_ends_its_turn(
    model: ScriptedModelServer, workspace: Path
):
    plan = {"items": [{"id": "1", "text": "Write notes.txt", "status": "pending"}]}
    model.load(
        script_of(
            reply(
                tool("write_file", {"path": "notes.txt", "content": "x"}),
                tool("todo", plan),
            ),
            reply(text("The plan: one file.")),
        )
    )
    client = EditorClient()
    async with acp_agent(client, workspace, agent_env(model)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        stop = await prompt(conn, session.session_id, "/plan Write the notes")

    # planReady asks about the plan; an answer it did not offer (allow_once) is a reject:
    # the turn ends with the plan kept.
    (question,) = client.permission_requests
    assert question["toolCall"]["kind"] == "switch_mode"
    assert stop == "end_turn"
    assert not (workspace / "notes.txt").exists()
    first = model.requests[0].body
    assert first["messages"][-1]["content"][-1]["text"] == "Write the notes"
    (write, _) = tool_results(model.requests[1].body)
    assert write["content"].startswith("not done: you are in plan mode")
