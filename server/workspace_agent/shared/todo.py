"""The agent's plan: a validated todo list that is replaced as a whole on every update.

Validation is all-or-nothing: a list that breaks a rule is rejected with a message the
model can act on, and the previous list stays in place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..protocol import TODO_STATUSES, ItemCheck, TodoItem

MAX_ITEMS = 20

_MARKS = {"pending": "[ ]", "in_progress": "[>]", "completed": "[x]"}


class TodoError(ValueError):
    """A proposed list broke a rule; the message names the rule and the item."""


class TodoList:
    """The current plan of one session."""

    def __init__(self, items: Sequence[TodoItem] = (), set_aside: bool = False) -> None:
        self._items: list[TodoItem] = list(items)
        self.set_aside = set_aside
        """The run working on this plan was cancelled (by the user, or cut off by a window
        reload): its step still reads "in progress" (the model and the Plan view see where
        it stopped), but the calls of later runs are not that step's until the model
        writes the plan again. Saved with the plan (agent/store.py)."""

    @property
    def items(self) -> list[TodoItem]:
        return list(self._items)

    @property
    def completed(self) -> int:
        return sum(1 for item in self._items if item.status == "completed")

    @property
    def in_progress(self) -> TodoItem | None:
        return next((item for item in self._items if item.status == "in_progress"), None)

    @property
    def current(self) -> TodoItem | None:
        """The step tool calls belong to (their `todoId`, their checkpoints): the item in
        progress, unless the plan was set aside (a cancelled run's: a new task's calls are
        not its step's)."""
        return None if self.set_aside else self.in_progress

    @property
    def in_progress_id(self) -> str | None:
        """The id tool calls are tagged with in the transcript (None: no item is active)."""
        current = self.current
        return current.id if current else None

    def replace(self, raw_items: Any) -> bool:
        """Validate and install a whole new list; return whether anything changed. A plan
        written again is worked on again (no longer set aside)."""
        items = _keeping_checks(parse_items(raw_items), self._items)
        changed = items != self._items
        self._items = items
        self.set_aside = False
        return changed

    def with_check(self, item_id: str, check: ItemCheck, reopen: bool = False) -> list[str]:
        """Keep `check` on the item; `reopen`: its completion was refused, so it is in
        progress again and any other item in progress goes back to pending (one at a
        time). Returns the ids it sent back to pending."""
        pending: list[str] = []
        items = []
        for item in self._items:
            if item.id == item_id:
                item = replace(item, check=check, status="in_progress" if reopen else item.status)
            elif reopen and item.status == "in_progress":
                item = replace(item, status="pending")
                pending.append(item.id)
            items.append(item)
        self._items = items
        return pending

    def with_check_command(self, item_id: str, command: str | None) -> bool:
        """Give the item its own check (None takes it away); False: no such item."""
        if not any(item.id == item_id for item in self._items):
            return False
        self._items = [
            replace(item, check_command=command) if item.id == item_id else item
            for item in self._items
        ]
        return True

    def render(self) -> str:
        """The list as the model sees it in the tool result."""
        if not self._items:
            return "(no todos)"
        lines = [f"{_MARKS[item.status]} #{item.id}: {item.text}" for item in self._items]
        lines.append(f"({self.completed}/{len(self._items)} completed)")
        return "\n".join(lines)


def _keeping_checks(items: list[TodoItem], before: list[TodoItem]) -> list[TodoItem]:
    """The model sends items without their checks: an item it sends again (same id, same
    text) keeps its own check and its last check's result."""
    kept = {(item.id, item.text): item for item in before if item.check or item.check_command}
    if not kept:
        return items
    return [
        replace(item, check=old.check, check_command=old.check_command)
        if (old := kept.get((item.id, item.text))) is not None
        else item
        for item in items
    ]


def parse_items(raw_items: Any) -> list[TodoItem]:
    """Turn the model's `items` into TodoItems, or raise TodoError naming the first problem."""
    if not isinstance(raw_items, list):
        raise TodoError("'items' must be a list of {id, text, status} objects")
    if len(raw_items) > MAX_ITEMS:
        raise TodoError(f"too many items: {len(raw_items)} (at most {MAX_ITEMS})")
    items: list[TodoItem] = []
    seen_ids: set[str] = set()
    for position, raw in enumerate(raw_items, start=1):
        item = _parse_item(raw, position)
        if item.id in seen_ids:  # ids are compared after whitespace is normalised
            raise TodoError(f"item {position}: duplicate id {item.id!r}")
        seen_ids.add(item.id)
        items.append(item)
    working = [item.id for item in items if item.status == "in_progress"]
    if len(working) > 1:
        raise TodoError(
            f"only one item may be in_progress at a time, found {len(working)}: "
            + ", ".join(f"#{item_id}" for item_id in working)
        )
    return items


def _parse_item(raw: Any, position: int) -> TodoItem:
    if not isinstance(raw, dict):
        raise TodoError(f"item {position}: must be an object with id, text and status")
    raw_id = raw.get("id")
    if isinstance(raw_id, bool) or not isinstance(raw_id, (str, int)) or str(raw_id).strip() == "":
        raise TodoError(f"item {position}: 'id' must be a non-empty string")
    text = raw.get("text")
    if not isinstance(text, str) or not text.strip():
        raise TodoError(f"item {position} (#{raw_id}): 'text' must not be empty")
    status = raw.get("status")
    if status not in TODO_STATUSES:
        raise TodoError(
            f"item {position} (#{raw_id}): status {status!r} is not one of "
            + " | ".join(TODO_STATUSES)
        )
    # One line per item: the plan is shown as rows in the editor and in the tool result.
    return TodoItem(id=_one_line(str(raw_id)), text=_one_line(text), status=status)


def _one_line(value: str) -> str:
    return " ".join(value.split())
