"""Stop reasons over ACP: a refusal answers session/prompt with stopReason `refusal`
(ACP's own), the message shown in the agent's text; a paused turn goes on."""

from __future__ import annotations

from pathlib import Path

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text

from tests.support.acp import EditorClient, acp_agent, agent_env, prompt


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
