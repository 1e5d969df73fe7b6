"""The thinking setting as requests carry it: the exact `thinking`, `output_config` and
`max_tokens` the real SDK sends for an adaptive family and a budget family (checked by the
strict scripted model), and the family table's matching and override."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from workspace_agent.agent.model import AnthropicModel
from workspace_agent.agent.thinking import family, request_fields
from workspace_agent.config import AgentSettings, resolve_settings
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text

TOOLS = [{"name": "bash", "description": "run", "input_schema": {"type": "object"}}]


def sent(**settings: Any) -> dict[str, Any]:
    """The body of the one request the model client sends with these settings."""
    with ScriptedModelServer(script_of(reply(text("ok")))) as server:
        model = AnthropicModel(AgentSettings(api_key="k", base_url=server.url, **settings))
        asyncio.run(
            model.respond(
                system="s",
                tools=TOOLS,
                messages=[{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
                on_text=lambda _: None,
                on_retry=lambda *a: None,
            )
        )
    (request,) = server.requests
    assert request.rejected is None
    return request.body


def test_an_adaptive_family_gets_adaptive_thinking_and_the_effort():
    body = sent(model="claude-opus-4-7", thinking="medium", max_tokens=8192)
    assert body["thinking"] == {"type": "adaptive"}
    assert body["output_config"] == {"effort": "medium"}
    assert body["max_tokens"] == 8192


def test_the_default_model_thinks_adaptively_at_high_effort_by_default():
    body = sent()
    assert body["model"] == "claude-sonnet-5-5"
    assert body["thinking"] == {"type": "adaptive"}
    assert body["output_config"] == {"effort": "high"}


def test_a_budget_family_gets_a_budget_and_max_tokens_raised_to_fit():
    body = sent(model="claude-sonnet-4-5-20250929", thinking="medium", max_tokens=8192)
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 10_000}
    assert body["max_tokens"] == 18_192  # the answer keeps its 8192 tokens
    assert "output_config" not in body


def test_a_budget_is_capped_by_the_familys_output_limit():
    fields = request_fields("claude-opus-4-1", "max", 16_000)
    assert fields.max_tokens == 32_000
    assert fields.fields["thinking"]["budget_tokens"] == 16_000


def test_off_and_unknown_models_send_no_thinking_field():
    assert "thinking" not in sent(model="claude-opus-4-7", thinking="off")
    body = sent(model="my-gateway-alias")
    assert "thinking" not in body and "output_config" not in body


def test_the_style_override_teaches_the_table_a_new_model():
    body = sent(model="my-gateway-alias", thinking_style="adaptive", thinking="max")
    assert body["thinking"] == {"type": "adaptive"}
    assert body["output_config"] == {"effort": "max"}
    assert family("my-gateway-alias", "budget").style == "budget"


@pytest.mark.parametrize(
    ("model", "style"),
    [
        ("claude-opus-4-6", "adaptive"),
        ("anthropic.claude-opus-4-6-v1:0", "adaptive"),  # Bedrock's spelling
        ("claude-opus-4-5@20251101", "budget"),  # Vertex's
        ("claude-opus-4-20250514", "budget"),
        ("claude-3-7-sonnet-latest", "budget"),
        ("claude-3-5-haiku-latest", "none"),
    ],
)
def test_families_match_provider_spellings(model: str, style: str):
    assert family(model).style == style


def test_the_settings_take_a_level_and_refuse_others():
    settings = resolve_settings(None, {"thinking": "LOW", "thinkingStyle": "budget"}, {})
    assert (settings.thinking, settings.thinking_style) == ("low", "budget")
    assert resolve_settings(None, {"thinking": "extreme"}, {}).thinking is None
    assert resolve_settings(None, {}, {"WORKSPACE_AGENT_THINKING": "off"}).thinking == "off"
