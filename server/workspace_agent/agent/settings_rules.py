"""What a workspace may do to a setting, decided from the contract's data: the levels of
one setting (the user's first, then the workspace's and, in VS Code, the folder's)
combined into the value that applies, with every part that was refused and why.

The rules are `contract.TIGHTENING`, generated from contract/workspace-agent.json's
`workspaceRules`: the way each rule combines (`toward` an end of an order, a `union` of
names, a `cap` only lowered, `userOnly`), its order, trim and no-cap value, and the
server's default a first workspace value is compared with. The extension's
core/settingsRules.ts interprets the same table; both give the same verdicts on one
corpus of random cases (tests/unit/agent/test_settings_rules.py writes and checks it,
the extension's settingsRules test reads it).

Values are JSON as written (a file's, or VS Code's levels); None is "not set".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..contract import TIGHTENING

Why = Literal["invalid", "looser", "userOnly"]


@dataclass(frozen=True)
class Refusal:
    """One part of a level that does not apply."""

    level: int
    """0 the user's, 1 the workspace's, 2 a folder's."""
    item: Any
    """The level's value, or the `[kind, mode]` of an object's entry, or a list's entry."""
    why: Why
    """invalid: not a value the setting takes; looser: it would loosen `than`; userOnly:
    the setting is read from the user's settings only."""
    than: Any = None
    entry: bool = False
    """The item is one entry of the level's object or list, not the level's whole value."""

    def to_json(self) -> dict[str, Any]:
        shown: dict[str, Any] = {"level": self.level, "item": self.item, "why": self.why}
        if self.why == "looser":
            shown["than"] = self.than
        if self.entry:
            shown["entry"] = True
        return shown


@dataclass(frozen=True)
class Verdict:
    value: Any
    """What applies; None: nothing set (the server's own fallbacks apply)."""
    refused: tuple[Refusal, ...] = field(default=())


def tightened(key: str) -> bool:
    """Whether a workspace value of `key` is combined here (not simply an override)."""
    return key in TIGHTENING


def combine(key: str, levels: Sequence[Any]) -> Verdict:
    """The value of `key` from its levels, by its rule."""
    spec = TIGHTENING[key]
    way = spec["combine"]
    if way == "userOnly":
        refused = [Refusal(i, v, "userOnly") for i, v in enumerate(levels) if i and v is not None]
        return Verdict(levels[0] if levels else None, tuple(refused))
    if way == "toward" and "entries" in spec:
        return _toward_each(spec, levels)
    if way == "toward":
        return _toward(spec, levels)
    if way == "union":
        return _union(spec, levels)
    if way == "cap":
        return _cap(spec, levels)
    raise ValueError(f"{key}: unknown way of combining {way!r}")


def _toward(spec: Mapping[str, Any], levels: Sequence[Any]) -> Verdict:
    order: list[str] = spec["order"]
    current: str | None = None
    refused: list[Refusal] = []
    for level, value in enumerate(levels):
        if value is None:
            continue
        if not isinstance(value, str) or value not in order:
            refused.append(Refusal(level, value, "invalid"))
            continue
        floor = current if current is not None else spec.get("start")
        if level == 0 or floor is None or order.index(value) >= order.index(floor):
            current = value
        else:
            refused.append(Refusal(level, value, "looser", floor))
    return Verdict(current, tuple(refused))


def _toward_each(spec: Mapping[str, Any], levels: Sequence[Any]) -> Verdict:
    order: list[str] = spec["order"]
    entries: Mapping[str, list[str]] = spec["entries"]
    start: Mapping[str, str] = spec.get("start") or {}
    policy: dict[str, str] = {}
    refused: list[Refusal] = []
    for level, value in enumerate(levels):
        if value is None:
            continue
        if not isinstance(value, Mapping):
            refused.append(Refusal(level, value, "invalid"))
            continue
        for kind, mode in value.items():
            if kind not in entries or not isinstance(mode, str) or mode not in entries[kind]:
                refused.append(Refusal(level, [kind, mode], "invalid", entry=True))
                continue
            floor = policy.get(kind, start.get(kind))
            if level == 0 or floor is None or order.index(mode) >= order.index(floor):
                policy[kind] = mode
            else:
                refused.append(Refusal(level, [kind, mode], "looser", floor, entry=True))
    return Verdict(policy or None, tuple(refused))


def _union(spec: Mapping[str, Any], levels: Sequence[Any]) -> Verdict:
    trim: str = spec["trim"]
    names: list[str] = []
    refused: list[Refusal] = []
    for level, value in enumerate(levels):
        if value is None:
            continue
        if not isinstance(value, list):
            refused.append(Refusal(level, value, "invalid"))
            continue
        for entry in value:
            name = entry.strip(trim) if isinstance(entry, str) else ""
            if not name:
                refused.append(Refusal(level, entry, "invalid", entry=True))
            elif name not in names:
                names.append(name)
    return Verdict(names or None, tuple(refused))


def _cap(spec: Mapping[str, Any], levels: Sequence[Any]) -> Verdict:
    none: int = spec["none"]
    cap: Any = None
    refused: list[Refusal] = []
    for level, value in enumerate(levels):
        if value is None:
            continue
        if not _whole(value):
            refused.append(Refusal(level, value, "invalid"))
            continue
        floor = cap if cap is not None else spec.get("start", none)
        if level == 0 or (value != none and (floor == none or value <= floor)):
            cap = value
        elif value != floor:
            refused.append(Refusal(level, value, "looser", floor))
    return Verdict(cap, tuple(refused))


def _whole(value: Any) -> bool:
    """A whole number of at least 0, as JSON writes it (5 or 5.0; never true or "5")."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return value >= 0 and (isinstance(value, int) or value.is_integer())
