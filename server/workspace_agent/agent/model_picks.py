"""The model and thinking level a user picks for a session, where people look (a VS Code
status-bar picker, ACP's `model` and `thought_level` config options, `--model` /
`--thinking` on the CLI): what to offer, and the settings a run takes with the pick.

The pick replaces the settings' model and level for the runs it goes with; the settings
themselves are not changed. A level the model does not take is refused before anything
runs, with what to choose instead (thinking.level_problem).
"""

from __future__ import annotations

from dataclasses import replace

from .. import contract
from ..config import AgentSettings
from ..protocol import ModelPick, ThinkingLevel
from . import thinking


def problem(settings: AgentSettings, pick: ModelPick) -> str | None:
    """Why the pick cannot run with these settings; None when it can. Only a level the
    pick names is checked: the setting's level with a picked model falls back as usual."""
    if pick.thinking is None:
        return None
    model = pick.model or settings.model
    return thinking.level_problem(model, pick.thinking, settings.thinking_style)


def with_pick(settings: AgentSettings, pick: ModelPick) -> AgentSettings:
    """The settings a run takes: the pick's model and level in place of the settings'."""
    return replace(
        settings,
        model=pick.model if pick.model is not None else settings.model,
        thinking=pick.thinking if pick.thinking is not None else settings.thinking,
    )


def choice(model: str, style: str = "auto") -> contract.ModelChoice:
    """One model to pick, with the levels it takes."""
    return {
        "id": model,
        "label": thinking.model_label(model),
        "levels": [_level(level) for level in thinking.levels(model, style)],
        "defaultLevel": _level(thinking.default_level(model, style)),
        "known": thinking.known(model),
    }


def current_level(settings: AgentSettings) -> ThinkingLevel:
    """The level runs take with these settings (the setting, else the model's default)."""
    level = settings.thinking or thinking.default_level(settings.model, settings.thinking_style)
    offered = thinking.levels(settings.model, settings.thinking_style)
    return _level(level if level in offered else "off")


def models(settings: AgentSettings, extra: str | None = None) -> contract.ModelsResult:
    """The models to pick from: the family table's, then the settings' model and `extra`
    when the table does not list them by that id."""
    ids = [family.name for family in thinking.FAMILIES]
    for model in (settings.model, extra):
        if model and model not in ids:
            ids.append(model)
    return {
        "models": [choice(model, settings.thinking_style) for model in ids],
        "model": settings.model,
        "thinking": current_level(settings),
    }


def _level(level: str) -> ThinkingLevel:
    for known in contract.THINKING_LEVELS:
        if known == level:
            return known
    raise ValueError(f"not a thinking level: {level!r}")
