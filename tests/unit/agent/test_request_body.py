"""The first-party API's request goes out as bytes we encode once (agent/request_body.py),
not through the SDK's `create`, which copies the whole conversation before encoding it:
the API gets the same request (body, headers), and the SDK's copy is not made."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from workspace_agent.agent.model import AnthropicModel
from workspace_agent.config import AgentSettings
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text

TOOLS = [{"name": "bash", "description": "run ✓", "input_schema": {"type": "object"}}]
MESSAGES: list[dict[str, Any]] = [
    {"role": "user", "content": [{"type": "text", "text": 'héllo, 世界 \u2028 "quoted"'}]},
    {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
    {"role": "user", "content": [{"type": "text", "text": "again", "n": 1.5, "m": None}]},
]


def test_the_request_is_the_one_the_sdk_would_send_without_its_copy(
    monkeypatch: pytest.MonkeyPatch,
):
    from anthropic._utils import _prepare

    copied: list[Any] = []
    real_copy = _prepare.copy_tree

    def counting(data: Any, **kwargs: Any) -> Any:
        if data is not None:  # a body to copy (ours has none: it is `content`)
            copied.append(data)
        return real_copy(data, **kwargs)

    monkeypatch.setattr(_prepare, "copy_tree", counting)
    with ScriptedModelServer(script_of(reply(text("one")), reply(text("two")))) as server:
        model = AnthropicModel(AgentSettings(api_key="k", base_url=server.url, model="m"))

        async def both() -> str:
            turn = await model.respond(
                system="s",
                tools=TOOLS,
                messages=MESSAGES,
                on_text=lambda _: None,
                on_retry=lambda *a: None,
            )
            assert copied == []  # ours: encoded once, never copied
            client = model._client
            async with client.messages.with_streaming_response.create(
                **server.requests[0].body
            ) as response:  # the SDK's own way, for comparison
                await response.read()
            assert copied  # (the SDK's way does copy)
            return turn.text

        assert asyncio.run(both()) == "one"
        ours, sdks = server.requests
    assert ours.body == sdks.body
    assert ours.body["stream"] is True and ours.body["messages"][0] == {
        **MESSAGES[0],
        "content": MESSAGES[0]["content"],
    }
    assert [r.rejected for r in server.requests] == [None, None]
    left_out = {"content-length", "x-stainless-retry-count", "x-stainless-read-timeout"}
    assert {k: v for k, v in ours.headers.items() if k not in left_out} == {
        k: v for k, v in sdks.headers.items() if k not in left_out
    }
