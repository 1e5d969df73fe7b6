"""The strict scripted model's request rules, one test per rule, each with the API's
documented wording; and over HTTP, that a broken request gets a 400
invalid_request_error through the real SDK without taking a reply."""

from __future__ import annotations

import asyncio
import base64
import copy
from typing import Any

import pytest

from workspace_agent.agent.model import AnthropicModel, ModelError
from workspace_agent.config import AgentSettings
from workspace_agent.testing.request_rules import Signatures, problem
from workspace_agent.testing.scripted_model import (
    ScriptedModelServer,
    redacted_thinking,
    reply,
    script_of,
    text,
    thinking,
)

from tests.support.images import b64, jpeg, png

TOOL = {"name": "bash", "description": "run", "input_schema": {"type": "object"}}
USE = {"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {}}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}


def body(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"model": "m", "max_tokens": 4096, "tools": [TOOL], "messages": list(messages), **extra}


def user(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "content": list(blocks)}


def assistant(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": list(blocks)}


HI = {"type": "text", "text": "hi"}


def test_a_valid_tool_round_passes():
    assert problem(body(user(HI), assistant(text("ok"), USE), user(RESULT, HI))) is None


def test_the_first_message_is_the_users():
    assert problem(body(assistant(HI))) == 'messages: first message must use the "user" role'


def test_roles_alternate():
    assert problem(body(user(HI), user(HI))) == (
        'messages: roles must alternate between "user" and "assistant", but found multiple '
        '"user" roles in a row'
    )


def test_each_tool_use_is_answered_in_the_next_message():
    found = problem(body(user(HI), assistant(USE), user(HI)))
    assert found == (
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately "
        "after: toolu_1. Each `tool_use` block must have a corresponding `tool_result` block "
        "in the next message."
    )


def test_tool_results_come_first_in_the_user_message():
    found = problem(body(user(HI), assistant(USE), user(HI, RESULT)))
    assert found is not None and found.startswith("messages.1: `tool_use` ids were found")


def test_a_tool_result_answers_a_tool_use_of_the_message_before():
    found = problem(body(user(HI), assistant(HI), user(RESULT)))
    assert found == (
        "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: "
        "toolu_1. Each `tool_result` block must have a corresponding `tool_use` block in the "
        "previous message."
    )


def test_no_empty_text_blocks():
    assert problem(body(user({"type": "text", "text": ""}))) == (
        "messages.0.content.0.text: text content blocks must be non-empty"
    )
    assert problem(body(user(HI), assistant({"type": "text", "text": " \n"}), user(HI))) == (
        "messages.1.content.0.text: text content blocks must contain non-whitespace text"
    )
    assert problem(body(user(HI), system=[{"type": "text", "text": ""}])) == (
        "system.0.text: text content blocks must be non-empty"
    )


def test_at_most_four_cache_breakpoints():
    mark = {"cache_control": {"type": "ephemeral"}}
    found = problem(
        body(
            user({**HI, **mark}, {**HI, **mark}, {**HI, **mark}),
            system=[{"type": "text", "text": "s", **mark}],
            tools=[{**TOOL, **mark}],
        )
    )
    assert found == "A maximum of 4 blocks with cache_control may be provided. Found 5."


def test_tool_names_follow_the_pattern():
    found = problem(body(user(HI), tools=[{**TOOL, "name": "my tool"}]))
    assert found == "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'"
    assert problem(body(user(HI), tools=[{**TOOL, "name": "a" * 65}])) == found
    assert problem(body(user(HI), tools=[TOOL, TOOL])) == (
        "tools: Tool names must be unique. Found duplicate: bash"
    )


def test_input_schema_is_an_object_schema():
    assert problem(body(user(HI), tools=[{"name": "x", "input_schema": "object"}])) == (
        "tools.0.custom.input_schema: Input should be a valid dictionary"
    )
    assert problem(body(user(HI), tools=[{"name": "x", "input_schema": {"type": "array"}}])) == (
        "tools.0.custom.input_schema.type: Input should be 'object'"
    )


def test_input_schema_is_a_valid_json_schema():
    schema_error = (
        "tools.0.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft "
        "2020-12 (https://json-schema.org/draft/2020-12). Learn more about tool use at "
        "https://docs.claude.com/en/docs/tool-use."
    )
    for broken in (
        {"type": "object", "properties": {"path": {"type": "strin"}}},
        {"type": "object", "required": "path"},
        {"type": "object", "properties": {"n": {"minimum": "one"}}},
        {"type": "object", "additionalProperties": 3},
    ):
        assert problem(body(user(HI), tools=[{"name": "x", "input_schema": broken}])) == (
            schema_error
        ), broken
    fine = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "lines": {"type": ["integer", "null"]}},
        "required": ["path"],
        "additionalProperties": False,
        "$defs": {"range": {"type": "array", "prefixItems": [{"type": "integer"}]}},
    }
    assert problem(body(user(HI), tools=[{"name": "x", "input_schema": fine}])) is None


def test_the_agents_own_tool_schemas_are_valid():
    from workspace_agent.tools import TOOLS

    tools = [tool.schema() for tool in TOOLS.values()]
    assert tools and problem(body(user(HI), tools=tools)) is None


def test_thinking_blocks_come_first_in_the_assistant_turn():
    late = {"type": "thinking", "thinking": "hm", "signature": "s"}
    found = problem(body(user(HI), assistant(text("a"), late), user(HI)))
    assert found == (
        "messages.1.content.1: `thinking` and `redacted_thinking` blocks must come first in "
        "an assistant message, before any other block"
    )


def test_thinking_blocks_come_back_unchanged():
    signatures = Signatures()
    sent = {"type": "thinking", "thinking": "let me see", "signature": signatures.sign("x")}
    signatures.remember(sent)
    secret = redacted_thinking("opaque-bytes")
    signatures.remember(secret)
    echoed = body(user(HI), assistant(sent, secret, USE), user(RESULT))
    assert problem(echoed, signatures) is None
    edited = copy.deepcopy(echoed)
    edited["messages"][1]["content"][0]["thinking"] = "let me see!"
    assert problem(edited, signatures) == (
        "messages.1.content.0: Invalid `signature` in `thinking` block"
    )
    edited = copy.deepcopy(echoed)
    edited["messages"][1]["content"][1]["data"] = "other"
    assert problem(edited, signatures) == (
        "messages.1.content.1: Invalid `data` in `redacted_thinking` block"
    )
    unsigned = {"type": "thinking", "thinking": "let me see"}
    assert problem(body(user(HI), assistant(unsigned), user(HI))) == (
        "messages.1.content.0.thinking.signature: Field required"
    )


def test_the_thinking_setting_is_one_the_api_takes():
    assert (
        problem(body(user(HI), thinking={"type": "adaptive"}, output_config={"effort": "max"}))
        is None
    )
    assert problem(body(user(HI), thinking={"type": "enabled", "budget_tokens": 512})) == (
        "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
    )
    found = problem(body(user(HI), thinking={"type": "enabled", "budget_tokens": 4096}))
    assert found is not None and found.startswith(
        "`max_tokens` must be greater than `thinking.budget_tokens`"
    )
    assert problem(body(user(HI), output_config={"effort": "extreme"})) == (
        "output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh', 'max'"
    )


def test_a_broken_request_gets_a_400_and_takes_no_reply():
    messages = [{"role": "user", "content": [{"type": "text", "text": ""}]}]
    with ScriptedModelServer(script_of(reply(text("the only reply")))) as server:
        settings = AgentSettings(api_key="k", base_url=server.url, max_retries=2, model="m")
        model = AnthropicModel(settings)

        async def ask(messages: list[dict[str, Any]]):
            return await model.respond(
                system="s",
                tools=[TOOL],
                messages=messages,
                on_text=lambda _: None,
                on_retry=lambda *a: pytest.fail("a 400 is not retried"),
            )

        async def both():
            with pytest.raises(ModelError) as raised:
                await ask(messages)
            return raised, await ask([{"role": "user", "content": [HI]}])

        raised, turn = asyncio.run(both())
    said = str(raised.value)
    assert "refused the request as invalid (400)" in said
    assert 'said "messages.0.content.0.text: text content blocks must be non-empty"' in said
    assert turn.text == "the only reply"
    assert [r.rejected is not None for r in server.requests] == [True, False]


def test_thinking_streams_with_its_signature_and_comes_back_accepted():
    with ScriptedModelServer(
        script_of(
            reply(
                thinking("Two steps: look, then answer."),
                redacted_thinking("xyz"),
                text("a"),
                unknown_event=True,
            ),
            reply(text("b")),
        )
    ) as server:
        model = AnthropicModel(AgentSettings(api_key="k", base_url=server.url, model="m"))

        async def ask(messages: list[dict[str, Any]]):
            return await model.respond(
                system="s",
                tools=[TOOL],
                messages=messages,
                on_text=lambda _: None,
                on_retry=lambda *a: None,
            )

        async def both():
            first = [{"role": "user", "content": [HI]}]
            turn = await ask(first)
            await ask([*first, {"role": "assistant", "content": turn.content}, user(HI)])
            return turn

        turn = asyncio.run(both())
    kinds = [b["type"] for b in turn.content]
    assert kinds == ["thinking", "redacted_thinking", "text"]
    assert turn.content[0]["thinking"] == "Two steps: look, then answer."
    assert turn.content[0]["signature"].startswith("sig_scripted_")
    assert [r.rejected for r in server.requests] == [None, None]


def test_image_blocks_pass_as_the_api_takes_them():
    shot = image(b64(png()))
    result = {
        **RESULT,
        "content": [{"type": "text", "text": "shot"}, image(b64(jpeg()), "image/jpeg")],
    }
    assert problem(body(user(shot, HI), assistant(USE), user(result))) is None


def test_images_only_in_user_messages():
    found = problem(body(user(HI), assistant(image(b64(png())))))
    assert found == "messages.1.content.0: image content blocks are only allowed in user messages"


PNG = b"\x89PNG\r\n\x1a\n" + bytes(24)
JPEG = b"\xff\xd8\xff\xe0" + bytes(16)
GIF = b"GIF89a" + bytes(10)
WEBP = b"RIFF\x10\x00\x00\x00WEBPVP8 " + bytes(8)


def image(data: bytes | str, media_type: str = "image/png") -> dict[str, Any]:
    encoded = data if isinstance(data, str) else base64.b64encode(data).decode()
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": media_type, "data": encoded},
    }


def test_images_of_the_four_types_and_url_sources_pass():
    url = {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}
    blocks = [image(PNG), image(JPEG, "image/jpeg"), image(GIF, "image/gif")]
    blocks += [image(WEBP, "image/webp"), url]
    assert problem(body(user(*blocks, HI))) is None
    in_result = {**RESULT, "content": [image(PNG), {"type": "text", "text": "a screenshot"}]}
    assert problem(body(user(HI), assistant(USE), user(in_result))) is None


def test_an_image_media_type_is_one_of_four():
    assert problem(body(user(image(PNG, "image/bmp"), HI))) == (
        "messages.0.content.0.image.source.base64.media_type: Input should be 'image/jpeg', "
        "'image/png', 'image/gif' or 'image/webp'"
    )


def test_image_data_is_valid_base64():
    assert problem(body(user(HI, image("not base64!")))) == (
        "messages.0.content.1.image.source.base64: invalid base64 data"
    )
    in_result = {**RESULT, "content": [image("iVBORw0KGgo")]}  # no padding
    assert problem(body(user(HI), assistant(USE), user(in_result))) == (
        "messages.2.content.0.tool_result.content.0.image.source.base64: invalid base64 data"
    )


def test_image_bytes_match_the_media_type():
    assert problem(body(user(image(JPEG, "image/png"), HI))) == (
        "messages.0.content.0.image.source.base64.data: Image does not match the provided "
        "media type image/png"
    )
    assert problem(body(user(image(b"plain text", "image/gif"), HI))) == (
        "messages.0.content.0.image.source.base64.data: Image does not match the provided "
        "media type image/gif"
    )


def test_an_image_is_at_most_five_megabytes_of_base64():
    limit = 5 * 1024 * 1024
    largest = PNG + bytes(limit * 3 // 4 - len(PNG))  # encodes to exactly 5 MB
    assert len(base64.b64encode(largest)) == limit
    assert problem(body(user(image(largest), HI))) is None
    too_large = largest + bytes(3)
    assert problem(body(user(image(too_large), HI))) == (
        f"messages.0.content.0.image.source.base64: image exceeds 5 MB maximum: {limit + 4} "
        f"bytes > {limit} bytes"
    )


def test_an_image_source_is_base64_url_or_file():
    assert problem(body(user({"type": "image", "source": {"type": "url"}}, HI))) == (
        "messages.0.content.0.image.source.url.url: Field required"
    )
    assert problem(body(user({"type": "image", "source": {"type": "path"}}, HI))) == (
        "messages.0.content.0.image.source: Input tag 'path' found using 'type' does not "
        "match any of the expected tags: 'base64', 'file', 'url'"
    )


def test_at_most_a_hundred_images_and_documents_in_a_request():
    hundred = [image(PNG) for _ in range(100)]
    assert problem(body(user(*hundred, HI))) is None
    document = {"type": "document", "source": {"type": "text", "media_type": "text/plain"}}
    in_result = {**RESULT, "content": [image(PNG), image(PNG)]}
    found = problem(body(user(*hundred, HI), assistant(USE), user(in_result, document)))
    assert found == "too many images and documents: 102 + 1 > 100"
