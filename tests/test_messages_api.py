"""The model client over real HTTP to the scripted Messages API: what goes out (headers,
body, the path under a base URL) and how each kind of failure reads for the user."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import urllib.request

import pytest

from workspace_agent.agent.model import AnthropicModel, ModelError
from workspace_agent.config import AgentSettings
from workspace_agent.testing.scripted_model import (
    ScriptedModelServer,
    reply,
    script_of,
    text,
    tool,
)

TOOLS = [{"name": "bash", "description": "run", "input_schema": {"type": "object"}}]


def settings(url: str, **extra) -> AgentSettings:
    values = {"api_key": "sk-test-key", "base_url": url, "max_retries": 0, "model": "m-1"}
    return AgentSettings(**{**values, **extra})


async def respond(model: AnthropicModel, texts: list[str] | None = None):
    return await model.respond(
        system="be brief",
        tools=TOOLS,
        messages=[{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
        on_text=(texts if texts is not None else []).append,
        on_retry=lambda *a: None,
    )


async def test_a_streamed_answer_and_the_request_as_the_api_expects_it():
    script = script_of(reply(text("Hello there"), tool("bash", {"command": "ls"})))
    with ScriptedModelServer(script) as server:
        texts: list[str] = []
        turn = await respond(AnthropicModel(settings(server.url)), texts)
    assert turn.text == "Hello there" and "".join(texts) == "Hello there"
    assert [(b["name"], b["input"]) for b in turn.tool_uses] == [("bash", {"command": "ls"})]
    assert turn.stop_reason == "tool_use" and turn.usage.output_tokens > 0
    (request,) = server.requests
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == "sk-test-key"
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert request.headers["content-type"] == "application/json"
    body = request.body
    assert (body["model"], body["stream"], body["tools"][0]["name"]) == ("m-1", True, "bash")
    assert body["system"][0]["text"] == "be brief"
    assert request.size == len(json.dumps(body, separators=(",", ":")).encode())  # compact


async def test_a_base_url_with_a_path_keeps_it():
    with ScriptedModelServer(script_of(reply(text("ok")))) as server:
        with pytest.raises(ModelError) as raised:
            await respond(AnthropicModel(settings(server.url + "/proxy/")))
    assert [r.path for r in server.requests] == []  # the server routes /v1/messages only
    assert "answered 404: no route /proxy/v1/messages" in str(raised.value)


@pytest.mark.parametrize(
    ("status", "message", "expected"),
    [
        (401, "invalid x-api-key", "rejected the API key (401). Check ANTHROPIC_API_KEY"),
        (403, "no access to m-1", "refused access (403): no access to m-1"),
        (404, "model: m-1", "answered 404: model: m-1 (model 'm-1')"),
        (429, "slow down", "is rate limiting requests (429)."),
        (529, "Overloaded", "answered 529: Overloaded"),
    ],
)
async def test_error_answers_read_as_sentences(status: int, message: str, expected: str):
    script = script_of({"error": {"status": status, "message": message}})
    with ScriptedModelServer(script) as server:
        with pytest.raises(ModelError) as raised:
            await respond(AnthropicModel(settings(server.url)))
    assert str(raised.value).startswith(f"The model API ({server.url}) ")
    assert expected in str(raised.value)
    assert "sk-test-key" not in str(raised.value)


async def test_an_error_event_mid_stream_is_retried_like_an_overloaded_answer():
    script = script_of(reply(text("partial answer"), error_after_events=2), reply(text("again")))
    with ScriptedModelServer(script) as server:
        retries: list[tuple] = []
        model = AnthropicModel(settings(server.url, max_retries=1, retry_base_seconds=0.01))
        turn = await model.respond(
            system="s",
            tools=TOOLS,
            messages=[{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
            on_text=lambda _: None,
            on_retry=lambda *a: retries.append(a),
        )
    assert turn.text == "again" and len(server.requests) == 2
    assert retries[0][3] == "overloaded (an error event in the stream)"


async def test_nothing_listening_reads_as_could_not_connect():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    with pytest.raises(ModelError) as raised:
        await respond(AnthropicModel(settings(url)))
    assert str(raised.value) == f"Could not connect to the model API ({url})."


def test_the_model_client_does_not_load_the_anthropic_sdk():
    probe = (
        "import sys; from workspace_agent.agent.model import AnthropicModel; "
        "from workspace_agent.config import AgentSettings; "
        "AnthropicModel(AgentSettings(api_key='k')); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'anthropic'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"


def test_the_scripted_api_counts_tokens_without_taking_a_reply():
    with ScriptedModelServer(script_of(reply(text("the only reply")))) as server:
        body = json.dumps({"model": "m-1", "messages": [{"role": "user", "content": "hi"}]})
        request = urllib.request.Request(
            server.url + "/v1/messages/count_tokens",
            data=body.encode(),
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            counted = json.loads(answer.read())
        turn = asyncio.run(respond(AnthropicModel(settings(server.url))))
    assert isinstance(counted["input_tokens"], int) and counted["input_tokens"] > 0
    assert turn.text == "the only reply"  # count_tokens did not use it up
    assert [r.path for r in server.requests] == ["/v1/messages/count_tokens", "/v1/messages"]
    assert server.requests[0].size == len(body) and server.requests[0].received_ns > 0
