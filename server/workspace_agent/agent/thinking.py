"""How much the model thinks: the `thinking` setting mapped to what each model family takes.

The one table of families (FAMILIES) says, from the Messages API's documentation, which
form of thinking a model takes: `adaptive` (`thinking: {type: "adaptive"}`, its depth set
by `output_config.effort`; from the Claude 4.6 generation, the only form from Opus 4.7),
`budget` (`{type: "enabled", budget_tokens}`, counted inside `max_tokens`, so max_tokens is
raised to keep the answer's room), or `none`. A model id matches the first family whose
name it contains, so provider spellings (`anthropic.claude-opus-4-6-v1:0`,
`claude-opus-4-6@20260101`) match too. A model the table does not know gets no thinking
unless the setting `thinkingStyle` names its form (a new model, a gateway's alias).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

LEVELS = ("off", "low", "medium", "high", "max")
STYLES = ("auto", "adaptive", "budget", "none")
BUDGETS = {"low": 4_000, "medium": 10_000, "high": 20_000, "max": 31_999}
"""budget_tokens per level for the budget form (the API's minimum is 1024)."""
MIN_BUDGET = 1024


@dataclass(frozen=True)
class Family:
    name: str
    """What a model id contains to belong here (the API's model name)."""
    style: str
    """adaptive | budget | none"""
    default: str
    """The level used when the setting is not given."""
    max_output: int = 64_000
    """The most output tokens the family allows (caps max_tokens raised for a budget)."""


FAMILIES = (
    Family("claude-opus-5", "adaptive", "high", 128_000),
    Family("claude-sonnet-5", "adaptive", "high", 128_000),
    Family("claude-haiku-5", "adaptive", "medium", 64_000),
    Family("claude-fable-5", "adaptive", "high", 128_000),
    Family("claude-mythos", "adaptive", "high", 128_000),
    Family("claude-opus-4-8", "adaptive", "high", 128_000),
    Family("claude-opus-4-7", "adaptive", "high", 128_000),
    Family("claude-opus-4-6", "adaptive", "high", 128_000),
    Family("claude-sonnet-4-6", "adaptive", "high", 64_000),
    Family("claude-opus-4-5", "budget", "low", 64_000),
    Family("claude-sonnet-4-5", "budget", "low", 64_000),
    Family("claude-haiku-4-5", "budget", "low", 64_000),
    Family("claude-opus-4-1", "budget", "low", 32_000),
    Family("claude-opus-4", "budget", "low", 32_000),
    Family("claude-sonnet-4", "budget", "low", 64_000),
    Family("claude-3-7-sonnet", "budget", "low", 64_000),
)
UNKNOWN = Family("", "none", "off")
DEFAULTS = {"adaptive": "high", "budget": "low", "none": "off"}


def family(model: str, style: str = "auto") -> Family:
    """The family of a model id; `style` other than auto overrides the table's form."""
    found = next((f for f in FAMILIES if f.name in model.lower()), UNKNOWN)
    if style in ("auto", found.style):
        return found
    return Family(found.name, style, DEFAULTS[style], found.max_output)


@dataclass(frozen=True)
class ThinkingRequest:
    """The fields a request carries for thinking, and its max_tokens."""

    fields: dict[str, Any]
    max_tokens: int
    level: str


def request_fields(
    model: str, level: str | None, max_tokens: int, style: str = "auto"
) -> ThinkingRequest:
    """What to add to a Messages API request for `level` (None: the family's default)."""
    kind = family(model, style)
    wanted = level or kind.default
    if wanted == "off" or kind.style == "none":
        return ThinkingRequest({}, max_tokens, "off")
    if kind.style == "adaptive":
        return ThinkingRequest(
            {"thinking": {"type": "adaptive"}, "output_config": {"effort": wanted}},
            max_tokens,
            wanted,
        )
    raised = min(kind.max_output, max_tokens + BUDGETS[wanted])
    budget = max(MIN_BUDGET, min(BUDGETS[wanted], raised - max_tokens, raised - MIN_BUDGET))
    if budget >= raised:  # a family whose output limit leaves no room: no thinking
        return ThinkingRequest({}, max_tokens, "off")
    return ThinkingRequest(
        {"thinking": {"type": "enabled", "budget_tokens": budget}}, raised, wanted
    )


def levels(model: str, style: str = "auto") -> tuple[str, ...]:
    """The levels a model takes: all of them where it thinks, only `off` where it does not."""
    return LEVELS if family(model, style).style != "none" else ("off",)


def default_level(model: str, style: str = "auto") -> str:
    """The level a model runs at when the `thinking` setting is not given."""
    kind = family(model, style)
    return "off" if kind.style == "none" else kind.default


def level_problem(model: str, level: str, style: str = "auto") -> str | None:
    """Why `level` cannot be asked of `model` (a picker's or a flag's choice), saying what
    to choose instead; None when it can."""
    if level not in LEVELS:
        return f"there is no thinking level {level!r}: choose one of {', '.join(LEVELS)}"
    if level in levels(model, style):
        return None
    return (
        f"model {model!r} takes no thinking (the agent's table of model families does not "
        f"know it): choose thinking off, or set the thinkingStyle setting to adaptive or "
        f"budget if the model takes thinking"
    )


def known(model: str) -> bool:
    """Whether the family table knows the model."""
    return family(model).name != ""


def model_label(model: str) -> str:
    """How a picker shows a model: `claude-sonnet-4-5` (a dated or a provider's spelling of
    it too) is `Sonnet 4.5`; an id the table does not know is shown as it is."""
    if not known(model):
        return model
    lower = model.lower()
    found = _NEW_ORDER.search(lower)
    if found:
        name, major, minor = found.groups()
    else:
        old = _OLD_ORDER.search(lower)
        if old is None:
            return model
        major, minor, name = old.groups()
    version = f"{major}.{minor}" if minor else major or ""
    return f"{name.capitalize()} {version}".strip()


_NEW_ORDER = re.compile(r"claude-([a-z]+)(?:-(\d{1,2})(?:-(\d))?)?(?![\d])")
"""claude-NAME-MAJOR-MINOR; a minor is one digit (a longer number is a date)."""
_OLD_ORDER = re.compile(r"claude-(\d)-(\d)-([a-z]+)")
"""claude-3-7-sonnet: the older order, version first."""
