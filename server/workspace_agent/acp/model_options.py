"""The model and the thinking level over ACP: the session config options `model`
(category `model`) and `thought_level` (category `thought_level`), next to `mode`
(modes.py), and offered the same way: `session/set_config_option` switches them and every
change is reported with `config_option_update` (the whole set of options).

`model` offers the agent's table of model families (agent/thinking.py) and the settings'
model; `thought_level` the levels the current model takes (only `off` for a model without
thinking). Switching the model keeps the picked level where the new model takes it, else
goes back to the setting's. Like the mode, a pick lives in this process and is not written
to any settings: a session loaded by a new agent process starts with the settings'.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from acp import RequestError
from acp.schema import SessionConfigOptionSelect, SessionConfigSelectOption

from ..agent import thinking
from ..protocol import ModelPick, ThinkingLevel

if TYPE_CHECKING:
    from .. import contract

MODEL = "model"
THOUGHT_LEVEL = "thought_level"
INVALID_PARAMS = -32602
LEVEL_NAMES = {"off": "Off", "low": "Low", "medium": "Medium", "high": "High", "max": "Max"}

Offer = Callable[[ModelPick], "contract.ModelsResult"]
"""What a session offers with a pick applied (SessionManager.models)."""


class ModelOptions:
    """The picked model and level of each session of the connection (absent: the settings')."""

    def __init__(self) -> None:
        self._picks: dict[str, ModelPick] = {}

    def pick(self, session_id: str) -> ModelPick:
        return self._picks.get(session_id, ModelPick())

    def options(self, session_id: str, offer: Offer) -> list[SessionConfigOptionSelect]:
        offered = offer(self.pick(session_id))
        current = _choice(offered, offered["model"])
        default = current["defaultLevel"]
        return [
            SessionConfigOptionSelect(
                id=MODEL,
                name="Model",
                description="The model the agent asks (for this session; settings unchanged)",
                category="model",
                type="select",
                current_value=offered["model"],
                options=[
                    SessionConfigSelectOption(value=m["id"], name=m["label"], description=m["id"])
                    for m in offered["models"]
                ],
            ),
            SessionConfigOptionSelect(
                id=THOUGHT_LEVEL,
                name="Thinking",
                description="How much the model thinks before it answers",
                category="thought_level",
                type="select",
                current_value=offered["thinking"],
                options=[
                    SessionConfigSelectOption(
                        value=level,
                        name=LEVEL_NAMES[level],
                        description="the model's default" if level == default else None,
                    )
                    for level in current["levels"]
                ],
            ),
        ]

    def handles(self, config_id: str) -> bool:
        return config_id in (MODEL, THOUGHT_LEVEL)

    def set_option(self, session_id: str, config_id: str, value: str | bool, offer: Offer) -> bool:
        """`session/set_config_option` for `model` or `thought_level`: RequestError for a
        value not offered (saying what is); True when the pick changed."""
        if not isinstance(value, str):
            raise RequestError(INVALID_PARAMS, f"{config_id} is a select: give one of its values")
        pick = self.pick(session_id)
        offered = offer(pick)
        if config_id == MODEL:
            choice = next((m for m in offered["models"] if m["id"] == value), None)
            if choice is None:
                ids = ", ".join(m["id"] for m in offered["models"])
                raise RequestError(
                    INVALID_PARAMS, f"there is no model {value!r} to pick: the models are {ids}"
                )
            kept = pick.thinking if pick.thinking in choice["levels"] else None
            new = ModelPick(value, kept)
        else:
            levels: list[ThinkingLevel] = _choice(offered, offered["model"])["levels"]
            level = next((known for known in levels if known == value), None)
            if level is None:
                problem = thinking.level_problem(offered["model"], value)
                raise RequestError(
                    INVALID_PARAMS,
                    problem
                    or f"{value!r} is not a level of {offered['model']}: {', '.join(levels)}",
                )
            new = ModelPick(pick.model, level)
        if new == pick:
            return False
        self._picks[session_id] = new
        return True


def _choice(offered: contract.ModelsResult, model: str) -> contract.ModelChoice:
    return next(m for m in offered["models"] if m["id"] == model)
