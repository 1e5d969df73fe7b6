"""What a model picker offers and the settings a run takes with a pick (agent/model_picks.py),
and how models are labelled (agent/thinking.py's model_label)."""

from __future__ import annotations

import pytest

from workspace_agent.agent import model_picks, thinking
from workspace_agent.config import AgentSettings
from workspace_agent.protocol import ModelPick


@pytest.mark.parametrize(
    ("model", "label"),
    [
        ("claude-sonnet-4-5", "Sonnet 4.5"),
        ("claude-sonnet-4-5-20250929", "Sonnet 4.5"),
        ("claude-sonnet-5-5", "Sonnet 5.5"),
        ("claude-opus-4-20250514", "Opus 4"),
        ("claude-3-7-sonnet-20250219", "Sonnet 3.7"),
        ("anthropic.claude-opus-4-6-v1:0", "Opus 4.6"),
        ("claude-opus-4-6@20260101", "Opus 4.6"),
        ("claude-mythos", "Mythos"),
        ("my-gateway-alias", "my-gateway-alias"),
    ],
)
def test_labels(model: str, label: str):
    assert thinking.model_label(model) == label


def test_levels_and_their_problems():
    assert thinking.levels("claude-opus-4-6") == thinking.LEVELS
    assert thinking.levels("my-model") == ("off",)
    assert thinking.levels("my-model", "adaptive") == thinking.LEVELS
    assert thinking.level_problem("claude-opus-4-6", "max") is None
    assert thinking.level_problem("my-model", "off") is None
    assert "takes no thinking" in (thinking.level_problem("my-model", "low") or "")
    assert thinking.level_problem("claude-opus-4-6", "huge") == (
        "there is no thinking level 'huge': choose one of off, low, medium, high, max"
    )


def test_a_pick_replaces_the_settings_model_and_level_only_where_given():
    settings = AgentSettings(model="claude-opus-4-6", thinking="low")
    assert model_picks.with_pick(settings, ModelPick()) == settings
    picked = model_picks.with_pick(settings, ModelPick("claude-sonnet-4-5", None))
    assert (picked.model, picked.thinking) == ("claude-sonnet-4-5", "low")
    assert model_picks.with_pick(settings, ModelPick(None, "max")).thinking == "max"
    assert model_picks.problem(settings, ModelPick("my-model")) is None  # the setting's falls back
    assert model_picks.problem(settings, ModelPick("my-model", "high"))


def test_the_offer_lists_the_table_then_the_settings_and_typed_models():
    offer = model_picks.models(AgentSettings(model="my-model"), "claude-sonnet-4-5")
    ids = [m["id"] for m in offer["models"]]
    assert ids[: len(thinking.FAMILIES)] == [f.name for f in thinking.FAMILIES]
    assert ids[len(thinking.FAMILIES) :] == ["my-model"]  # the typed one is in the table
    assert (offer["model"], offer["thinking"]) == ("my-model", "off")
    # a setting's level the model does not take: runs take none
    assert model_picks.current_level(AgentSettings(model="my-model", thinking="high")) == "off"
    assert model_picks.current_level(AgentSettings(model="claude-opus-4-6")) == "high"
