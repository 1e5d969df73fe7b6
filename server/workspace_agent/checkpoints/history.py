"""What each plan item changed, read from a session's timeline.

A file under an item goes from its content before the item's first change to it, to its
content after the item's last change to it; a file that ended where it started is not
listed. Commands are every bash call made under the item, with their exit status.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

from ..agent.observers import ChangedFile, ChangeKind
from .linediff import line_stats
from .objects import Entry
from .timeline import Record, Timeline

BEFORE_PLAN = None
"""The todoId of changes made while no plan item was in progress."""


@dataclass
class FileHistory:
    path: str
    before: Entry | None
    after: Entry | None

    @property
    def change(self) -> ChangeKind:
        if self.before is None:
            return "added"
        return "deleted" if self.after is None else "modified"


@dataclass
class ItemHistory:
    todo_id: str | None
    files: dict[str, FileHistory] = field(default_factory=dict)
    commands: list[tuple[str, int | None]] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)

    def changed_files(self) -> list[FileHistory]:
        return [f for f in self.files.values() if f.before != f.after]


def items_of(timeline: Timeline) -> list[ItemHistory]:
    """Items in the order of their first workspace-changing call. Kept with the timeline
    and brought up to date with the records added since (a changes notification follows
    every tool call: it must not cost the whole history each time)."""
    records = timeline.records
    cached = timeline.derived.get("items")
    seen, items = 0, {}
    if cached is not None and cached[0] is records:  # else the journal was read again
        seen, items = cached[1], cached[2]
    items = cast("dict[str | None, ItemHistory]", items)
    for record in records[seen:]:
        if record.kind != "tool":
            continue
        item = items.setdefault(record.todo_id, ItemHistory(record.todo_id))
        for change in record.changes:
            known = item.files.get(change.path)
            if known is None:
                item.files[change.path] = FileHistory(change.path, change.before, change.after)
            else:
                known.after = change.after
        if record.command is not None:
            item.commands.append((record.command, record.exit_code))
        for path, reason in record.skipped:
            item.skipped[path] = reason
    timeline.derived["items"] = (records, len(records), items)
    return list(items.values())


def find_item(timeline: Timeline, todo_id: str | None) -> ItemHistory | None:
    return next((item for item in items_of(timeline) if item.todo_id == todo_id), None)


def anchor_of(timeline: Timeline, todo_id: str | None) -> int | None:
    """The position of the item's checkpoint: the record taken before its first
    workspace-changing call."""
    for position, record in enumerate(timeline.records):
        if record.kind == "item" and record.todo_id == todo_id:
            return position
    return None


def last_run_anchor(timeline: Timeline) -> int | None:
    """The start of the latest run that changed files."""
    start = None
    found = None
    for position, record in enumerate(timeline.records):
        if record.kind == "run":
            start = position
        elif record.kind == "tool" and record.changes and start is not None:
            found = start
    return found


def reverts_of(timeline: Timeline) -> list[dict[str, Any]]:
    undone = {r.undo_id for r in timeline.records if r.kind == "undo"}
    return [
        {"undoId": r.undo_id, "target": r.target, "undone": r.undo_id in undone}
        for r in timeline.records
        if r.kind == "revert"
    ]


Stats = Callable[[Entry | None, Entry | None], tuple[int, int, bool]]


def changes_payload(timeline: Timeline, stats: Stats) -> dict[str, Any]:
    """The wire form of workspaceAgent/changes (without sessionId)."""
    items = []
    for item in items_of(timeline):
        files = []
        for history in item.changed_files():
            additions, deletions, binary = stats(history.before, history.after)
            wire: dict[str, Any] = {
                "path": history.path,
                "change": history.change,
                "additions": additions,
                "deletions": deletions,
            }
            if binary:
                wire["binary"] = True
            files.append(wire)
        entry: dict[str, Any] = {
            "todoId": item.todo_id,
            "files": files,
            "commands": [{"command": c, "exitCode": code} for c, code in item.commands],
        }
        if item.skipped:
            entry["skipped"] = [{"path": p, "reason": r} for p, r in item.skipped.items()]
        if files or item.commands or item.skipped:
            items.append(entry)
    return {"items": items, "reverts": reverts_of(timeline)}


class StatsCache:
    """Line counts per pair of blobs, computed once."""

    def __init__(self, read: Callable[[str], bytes], limit: int = 20_000) -> None:
        self._read = read
        self._cache: dict[tuple[str | None, str | None], tuple[int, int, bool]] = {}
        self._limit = limit

    def __call__(self, before: Entry | None, after: Entry | None) -> tuple[int, int, bool]:
        key = (before.sha if before else None, after.sha if after else None)
        if key not in self._cache:
            if len(self._cache) >= self._limit:
                self._cache.clear()
            self._cache[key] = line_stats(
                self._read(key[0]) if key[0] else None, self._read(key[1]) if key[1] else None
            )
        return self._cache[key]


def record_files(record: Record) -> list[ChangedFile]:
    """What one tool record changed, for the call's other observers."""
    out = []
    for change in record.changes:
        if change.before != change.after:
            history = FileHistory(change.path, change.before, change.after)
            out.append(ChangedFile(change.path, history.change))
    return out
