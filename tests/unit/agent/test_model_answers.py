"""What the model client keeps of an answer is what the API takes back: a text block of
only whitespace (models do write "\\n\\n" before a tool call) is dropped, as the API answers
400 "text content blocks must contain non-whitespace text" to a history with one."""

from __future__ import annotations

import asyncio
from typing import Any

from workspace_agent.agent.model import AnthropicModel
from workspace_agent.config import AgentSettings
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

TOOLS = [{"name": "bash", "description": "run", "input_schema": {"type": "object"}}]


def test_whitespace_only_text_is_not_sent_back():
    with ScriptedModelServer(
        script_of(reply(text("\n\n"), tool("bash", {"command": "ls"})), reply(text("done")))
    ) as server:
        model = AnthropicModel(AgentSettings(api_key="k", base_url=server.url, model="m"))

        async def ask(messages: list[dict[str, Any]]):
            return await model.respond(
                system="s",
                tools=TOOLS,
                messages=messages,
                on_text=lambda _: None,
                on_retry=lambda *a: None,
            )

        async def both():
            history: list[dict[str, Any]] = [
                {"role": "user", "content": [{"type": "text", "text": "list"}]}
            ]
            turn = await ask(history)
            (use,) = turn.tool_uses
            history += [
                {"role": "assistant", "content": turn.content},
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": use["id"], "content": "a"}],
                },
            ]
            return turn, await ask(history)

        turn, final = asyncio.run(both())
    assert [b["type"] for b in turn.content] == ["tool_use"]
    assert final.text == "done"
    assert [r.rejected for r in server.requests] == [None, None]
