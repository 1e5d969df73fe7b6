"""The model and the thinking level over ACP: the `model` and `thought_level` session
config options, switched with session/set_config_option and reported with
config_option_update; the prompt's request to the model carries the picks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp import RequestError

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text

from tests.support.acp import EditorClient, acp_agent, agent_env, prompt


def wire(model: Any) -> Any:
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


def option(options: list[dict[str, Any]], option_id: str) -> dict[str, Any]:
    return next(o for o in options if o["id"] == option_id)


async def test_model_and_thought_level_options_switch_what_the_model_is_asked(
    model: ScriptedModelServer, workspace: Path
):
    model.load(script_of(reply(text("Adaptive.")), reply(text("Budget."))))
    client = EditorClient()
    env = agent_env(model, MODEL_ID="claude-opus-4-6")
    async with acp_agent(client, workspace, env) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        sid = session.session_id
        made = wire(session)["configOptions"]
        leveled = await conn.set_config_option(
            config_id="thought_level", session_id=sid, value="low"
        )
        await prompt(conn, sid, "First")
        switched = await conn.set_config_option(
            config_id="model", session_id=sid, value="claude-sonnet-4-5"
        )
        await conn.set_config_option(config_id="model", session_id=sid, value="claude-sonnet-4-5")
        await prompt(conn, sid, "Second")

    models = option(made, "model")
    assert (models["category"], models["type"], models["currentValue"]) == (
        "model",
        "select",
        "claude-opus-4-6",
    )
    names = {o["value"]: o["name"] for o in models["options"]}
    assert names["claude-opus-4-6"] == "Opus 4.6" and names["claude-3-7-sonnet"] == "Sonnet 3.7"
    level = option(made, "thought_level")
    assert (level["category"], level["currentValue"]) == ("thought_level", "high")
    assert [o["value"] for o in level["options"]] == ["off", "low", "medium", "high", "max"]
    assert [o.get("description") for o in level["options"]].count("the model's default") == 1
    assert option(wire(leveled)["configOptions"], "thought_level")["currentValue"] == "low"
    now = wire(switched)["configOptions"]
    assert option(now, "model")["currentValue"] == "claude-sonnet-4-5"
    assert option(now, "thought_level")["currentValue"] == "low"  # the new model takes it too

    first, second = [r.body for r in model.requests if r.path == "/v1/messages"]
    assert first["model"] == "claude-opus-4-6" and first["output_config"] == {"effort": "low"}
    assert second["model"] == "claude-sonnet-4-5"
    assert second["thinking"] == {"type": "enabled", "budget_tokens": 4_000}
    # each change reported once, with every option (setting the same model again: nothing)
    updates = [u for _, u in client.updates if u["sessionUpdate"] == "config_option_update"]
    assert [
        (
            option(u["configOptions"], "model")["currentValue"],
            option(u["configOptions"], "thought_level")["currentValue"],
        )
        for u in updates
    ] == [("claude-opus-4-6", "low"), ("claude-sonnet-4-5", "low")]
    assert all(option(u["configOptions"], "mode")["currentValue"] == "ask" for u in updates)


async def test_values_not_offered_are_refused_saying_what_is(
    model: ScriptedModelServer, workspace: Path
):
    client = EditorClient()
    env = agent_env(model, MODEL_ID="my-gateway-alias")
    async with acp_agent(client, workspace, env) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        sid = session.session_id
        level = option(wire(session)["configOptions"], "thought_level")
        with pytest.raises(RequestError) as no_thinking:
            await conn.set_config_option(config_id="thought_level", session_id=sid, value="high")
        with pytest.raises(RequestError) as no_model:
            await conn.set_config_option(config_id="model", session_id=sid, value="gpt-9")
        with pytest.raises(RequestError) as not_a_select:
            await conn.set_config_option(config_id="model", session_id=sid, value=True)

    assert (level["currentValue"], [o["value"] for o in level["options"]]) == ("off", ["off"])
    assert no_thinking.value.code == -32602
    assert str(no_thinking.value).startswith(
        "model 'my-gateway-alias' takes no thinking (the agent's table of model families does "
        "not know it): choose thinking off, or set the thinkingStyle setting"
    )
    assert no_model.value.code == -32602
    assert str(no_model.value).startswith("there is no model 'gpt-9' to pick: the models are ")
    assert "my-gateway-alias" in str(no_model.value)
    assert not_a_select.value.code == -32602
    assert [u for _, u in client.updates if u["sessionUpdate"] == "config_option_update"] == []
