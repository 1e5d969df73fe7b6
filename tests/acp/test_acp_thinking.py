"""The model's thinking over ACP: `agent_thought_chunk` updates, before the answer's
`agent_message_chunk`, and never mixed into the message text."""

from __future__ import annotations

from pathlib import Path

from workspace_agent.testing.scripted_model import (
    ScriptedModelServer,
    reply,
    script_of,
    text,
    thinking,
)

from tests.support.acp import EditorClient, acp_agent, agent_env, prompt


async def test_thinking_arrives_as_agent_thought_chunks(
    model: ScriptedModelServer, workspace: Path
):
    model.load(script_of(reply(thinking("First, what is asked? A greeting."), text("Hello."))))
    client = EditorClient()
    async with acp_agent(client, workspace, agent_env(model)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        stop = await prompt(conn, session.session_id, "Say hello")

    assert stop == "end_turn"
    assert client.text() == "Hello."
    thoughts = client.of_kind("agent_thought_chunk")
    assert "".join(t["content"]["text"] for t in thoughts) == "First, what is asked? A greeting."
    kinds = [u["sessionUpdate"] for _, u in client.updates]
    assert kinds.index("agent_thought_chunk") < kinds.index("agent_message_chunk")
    assert [r.rejected for r in model.requests] == [None]
