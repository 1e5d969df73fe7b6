"""The scripted Messages API as the benchmarks read it (the peer benchmarks,
bench/peer.py): `count_tokens`
answers without using up a reply, and each request is recorded with its size in bytes
and when it arrived, the size being exactly what the agent's model client (the real
anthropic SDK) put on the wire."""

from __future__ import annotations

import asyncio
import json
import urllib.request

from workspace_agent.agent.model import AnthropicModel
from workspace_agent.config import AgentSettings
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text

TOOLS = [{"name": "bash", "description": "run", "input_schema": {"type": "object"}}]


async def respond(model: AnthropicModel):
    return await model.respond(
        system="be brief",
        tools=TOOLS,
        messages=[{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
        on_text=lambda _: None,
        on_retry=lambda *a: None,
    )


def test_count_tokens_takes_no_reply_and_sizes_are_the_bytes_sent():
    with ScriptedModelServer(script_of(reply(text("the only reply")))) as server:
        body = json.dumps({"model": "m-1", "messages": [{"role": "user", "content": "hi"}]})
        request = urllib.request.Request(
            server.url + "/v1/messages/count_tokens",
            data=body.encode(),
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            counted = json.loads(answer.read())
        settings = AgentSettings(api_key="k", base_url=server.url, max_retries=0, model="m-1")
        turn = asyncio.run(respond(AnthropicModel(settings)))
    assert isinstance(counted["input_tokens"], int) and counted["input_tokens"] > 0
    assert turn.text == "the only reply"  # count_tokens did not use it up
    counting, message = server.requests
    assert [counting.path, message.path] == ["/v1/messages/count_tokens", "/v1/messages"]
    assert counting.size == len(body) and 0 < counting.received_ns <= message.received_ns
    assert message.body["model"] == "m-1" and message.body["stream"] is True
    # the SDK sends compact JSON: no blanks after separators in the bytes counted
    assert message.size == len(json.dumps(message.body, separators=(",", ":")).encode())
