"""The model and thinking level picked for a session over LSP (the status-bar picker):
workspaceAgent/models offers the family table's models with the levels each takes; a run
(and the run of an approved plan) with `model` / `thinking` sends those to the model
instead of the settings'; a level the model does not take is refused before anything runs,
saying what to choose."""

from __future__ import annotations

import pytest
from pygls.exceptions import JsonRpcException

from workspace_agent import protocol as p
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient
from tests.support.lsp import request


def messages_requests(model: ScriptedModelServer) -> list[dict]:
    return [r.body for r in model.requests if r.path == "/v1/messages"]


async def test_models_lists_the_family_table_with_each_ones_levels(client: RecordingClient):
    answer = await request(client, p.MODELS_REQUEST, {"model": "my-gateway-alias"})

    by_id = {m["id"]: m for m in answer["models"]}
    assert by_id["claude-sonnet-4-5"] == {
        "id": "claude-sonnet-4-5",
        "label": "Sonnet 4.5",
        "levels": ["off", "low", "medium", "high", "max"],
        "defaultLevel": "low",
        "known": True,
    }
    assert by_id["claude-opus-4-6"]["defaultLevel"] == "high"
    # the settings' model (the default) and the typed one are listed too
    assert answer["model"] == "claude-sonnet-5-5" and answer["thinking"] == "high"
    assert by_id["claude-sonnet-5-5"]["label"] == "Sonnet 5.5"
    assert by_id["my-gateway-alias"] == {
        "id": "my-gateway-alias",
        "label": "my-gateway-alias",
        "levels": ["off"],
        "defaultLevel": "off",
        "known": False,
    }
    assert [m["id"] for m in answer["models"]][:2] == ["claude-opus-5", "claude-sonnet-5"]


async def test_a_run_sends_the_picked_model_and_thinking(
    client: RecordingClient, model: ScriptedModelServer
):
    model.load(script_of(reply(text("Budget.")), reply(text("Adaptive."))))

    first = await request(
        client,
        p.RUN_REQUEST,
        {"prompt": "Say hi", "model": "claude-sonnet-4-5", "thinking": "medium"},
    )
    await request(
        client,
        p.RUN_REQUEST,
        {"prompt": "Again", "sessionId": first["sessionId"], "model": "claude-opus-4-6"},
    )

    budget, adaptive = messages_requests(model)
    assert budget["model"] == "claude-sonnet-4-5"
    assert budget["thinking"] == {"type": "enabled", "budget_tokens": 10_000}
    assert budget["max_tokens"] == 8192 + 10_000 and "output_config" not in budget
    # the model alone: the setting's level (none: the family's default)
    assert adaptive["model"] == "claude-opus-4-6"
    assert adaptive["thinking"] == {"type": "adaptive"}
    assert adaptive["output_config"] == {"effort": "high"}


async def test_the_run_of_an_approved_plan_takes_the_pick(
    client: RecordingClient, model: ScriptedModelServer
):
    plan = {"items": [{"id": "1", "text": "Read it", "status": "pending"}]}
    model.load(script_of(reply(tool("todo", plan)), reply(text("Plan ready."))))
    planned = await request(client, p.RUN_REQUEST, {"prompt": "Look", "mode": "plan"})
    assert planned["stopReason"] == "planReady"
    model.load(script_of(reply(text("Done."))))

    await request(
        client,
        p.APPROVE_PLAN_REQUEST,
        {
            "sessionId": planned["sessionId"],
            "items": [{"id": "1", "text": "Read it"}],
            "action": "run",
            "model": "claude-opus-4-7",
            "thinking": "low",
        },
    )

    body = messages_requests(model)[-1]
    assert body["model"] == "claude-opus-4-7" and body["output_config"] == {"effort": "low"}


async def test_a_level_the_model_does_not_take_is_refused_before_anything_runs(
    client: RecordingClient, model: ScriptedModelServer
):
    model.load(script_of(reply(text("never"))))
    sessions = await request(client, p.SESSIONS_REQUEST, None)

    with pytest.raises(JsonRpcException, match="model 'my-gateway-alias' takes no thinking") as e:
        await request(
            client,
            p.RUN_REQUEST,
            {"prompt": "Hi", "model": "my-gateway-alias", "thinking": "high"},
        )
    assert e.value.code == p.REQUEST_FAILED
    assert "choose thinking off, or set the thinkingStyle setting" in str(e.value)
    with pytest.raises(JsonRpcException, match="'thinking' must be one of off") as e:
        await request(client, p.RUN_REQUEST, {"prompt": "Hi", "thinking": "extreme"})
    assert e.value.code == p.INVALID_PARAMS
    assert messages_requests(model) == []
    assert await request(client, p.SESSIONS_REQUEST, None) == sessions  # no session started
