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


async def ask(model: AnthropicModel, system: str, prompt: str):
    return await model.respond(
        system=system,
        tools=TOOLS,
        messages=[{"role": "user", "content": [{"type": "text", "text": prompt}]}],
        on_text=lambda _: None,
        on_retry=lambda *a: None,
    )


def test_a_conversation_is_picked_by_system_prompt_and_a_rendezvous_holds_answers_together():
    """Subagents' requests are told apart by their system prompt; two requests at a
    rendezvous are answered only once both are in flight, and one left alone is answered
    with an error saying so, never by a wait without end."""
    meet = {"name": "pair", "parties": 2}
    script = {
        "conversations": [
            {
                "match_system": "helper",
                "match": "left",
                "replies": [reply(text("L"), rendezvous=meet)],
            },
            {
                "match_system": "helper",
                "match": "right",
                "replies": [reply(text("R"), rendezvous=meet)],
            },
            {"match_system": "helper", "replies": [reply(text("any helper"))]},
            {
                "replies": [
                    reply(text("main")),
                    reply(
                        text("lonely"), rendezvous={"name": "solo", "parties": 2, "timeout": 0.2}
                    ),
                ]
            },
        ]
    }
    with ScriptedModelServer(script) as server:
        settings = AgentSettings(api_key="k", base_url=server.url, max_retries=0, model="m")
        model = AnthropicModel(settings)

        async def all_of_them():
            pair = await asyncio.gather(
                ask(model, "you are a helper", "go left"),
                ask(model, "you are a helper", "go right"),
            )
            other = await ask(model, "you are a helper too", "go up")
            main = await ask(model, "you are the agent", "go left")
            try:
                await ask(model, "you are the agent", "wait")
            except Exception as exc:  # the 500 the lonely request got
                return (*pair, other, main, str(exc))
            return (*pair, other, main, None)

        left, right, other, main, alone = asyncio.run(all_of_them())
    assert (left.text, right.text, other.text, main.text) == ("L", "R", "any helper", "main")
    assert alone is not None and "rendezvous 'solo' wanted 2 requests in flight at once" in alone
