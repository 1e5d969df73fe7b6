"""A streamed answer comes out whole however the API cuts it: tool input JSON split into
input_json_delta pieces at any character (inside a string, a multi-byte character's
neighbours, an escape like \\u00e9), and the SSE bytes split at any byte, even inside a
multi-byte UTF-8 character, over real HTTP through the SDK to our SSE reader.

Hypothesis picks the inputs and the cuts; WORKSPACE_AGENT_STREAM_EXAMPLES asks for more
examples than the CI's (default 40)."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workspace_agent.agent.model import AnthropicModel, ModelTurn
from workspace_agent.config import AgentSettings
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text

EXAMPLES = int(os.environ.get("WORKSPACE_AGENT_STREAM_EXAMPLES", "40"))
TOOL = {"name": "write_file", "description": "w", "input_schema": {"type": "object"}}
HANDWRITTEN = (
    '{"path": "caf\\u00e9/na\u00efve \U0001f40d.py", "text": "tab\\there \\"q\\" \\\\ '
    '\\ud83d\\udc0d \u00e9\u20ac\U0001f600", "n": [1, 2.5e3, true, null]}'
)
"""Raw multi-byte characters (2, 3 and 4 UTF-8 bytes), \\u escapes (one a surrogate
pair), and escaped quotes and backslashes."""

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)


class Client:
    """One scripted server, one model client and one event loop for all examples: each
    example only loads its answer and asks (a client per example costs seconds)."""

    def __init__(self) -> None:
        self.server = ScriptedModelServer(script_of()).start()
        self.model = AnthropicModel(AgentSettings(api_key="k", base_url=self.server.url))
        self.loop = asyncio.new_event_loop()

    def ask(self, answer: dict[str, Any]) -> tuple[ModelTurn, str]:
        self.server.load(script_of(answer))
        streamed: list[str] = []
        turn = self.loop.run_until_complete(
            self.model.respond(
                system="s",
                tools=[TOOL],
                messages=[{"role": "user", "content": [{"type": "text", "text": "go"}]}],
                on_text=streamed.append,
                on_retry=lambda *a: None,
            )
        )
        assert [r.rejected for r in self.server.requests][-1] is None
        return turn, "".join(streamed)

    def close(self) -> None:
        if self.model._client is not None:  # the SDK client's connections, on their loop
            self.loop.run_until_complete(self.model._client.close())
        self.loop.close()
        self.server.stop()


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    opened = Client()
    yield opened
    opened.close()


def tool_answer(partial: str, json_cuts: list[int], byte_cuts: list[int]) -> dict[str, Any]:
    block = {"type": "tool_use", "name": "write_file", "input": json.loads(partial)}
    block.update(partial_json=partial, json_cuts=json_cuts)
    return reply(text("Écrit \u2014 \U0001f40d ok"), block, byte_cuts=byte_cuts)


def check(turn: ModelTurn, streamed: str, partial: str) -> None:
    assert turn.input_errors == {}
    assert [b["input"] for b in turn.tool_uses] == [json.loads(partial)]
    assert turn.text == streamed == "Écrit \u2014 \U0001f40d ok"


def test_cut_at_every_character_and_every_byte(client: Client):
    every = tool_answer(HANDWRITTEN, list(range(len(HANDWRITTEN))), list(range(5000)))
    check(*client.ask(every), HANDWRITTEN)


def test_the_wire_really_holds_raw_utf8_cut_inside_a_character():
    """The cuts above are not escaped away: with byte_cuts the SSE text is raw UTF-8, so a
    cut at every byte splits the 4-byte snake in its middle."""
    with ScriptedModelServer(script_of(tool_answer(HANDWRITTEN, [5], [1]))) as server:
        import urllib.request

        request = urllib.request.Request(
            f"{server.url}/v1/messages",
            data=json.dumps(
                {
                    "model": "m",
                    "max_tokens": 100,
                    "stream": True,
                    "messages": [{"role": "user", "content": "go"}],
                }
            ).encode(),
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(request) as answer:
            raw = answer.read()
    assert "\U0001f40d".encode() in raw
    assert b'"partial_json": "{\\"pat"' in raw  # json_cuts=[5]: the first piece is 5 chars


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    value=st.dictionaries(st.text(max_size=8), json_values, max_size=5),
    ascii_only=st.booleans(),
    data=st.data(),
)
def test_any_cuts_of_any_input_reassemble(
    client: Client, value: dict, ascii_only: bool, data: st.DataObject
):
    partial = json.dumps(value, ensure_ascii=ascii_only)
    json_cuts = data.draw(st.lists(st.integers(0, len(partial)), max_size=30))
    byte_cuts = data.draw(st.lists(st.integers(0, 3000), max_size=60))
    check(*client.ask(tool_answer(partial, json_cuts, byte_cuts)), partial)
