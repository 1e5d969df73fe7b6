"""A session's checkpoint history: what the workspace held and what changed, in order.

One JSON line per record in the store's `sessions/<sessionId>.jsonl`:

    run     a run started; `tree` is the whole workspace then
    item    a plan item's first workspace-changing call is about to run (`todoId`);
            `changes` are what changed since the previous record (by someone else)
    scan    the same, taken because another session changed the workspace meanwhile
    tool    a write_file / edit_file / bash call ran under `todoId`: its `changes`,
            `command` and `exitCode` for bash, and files `skipped` (too large, ...)
    backup  the workspace just before a revert (`tree`), so it can be undone
    revert  what a revert changed (`undoId`, `target`), and what it `skipped`
    undo    what undoing revert `undoId` changed

A change is `{path, before, after}` with entries `[mode, blobId]` (null: no file). The
content of a path at any record is the `before` of the next record that changes it (or
the `after` of the last one before it, else its entry in the last `tree` before it).
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .objects import Entry

log = logging.getLogger(__name__)

Kind = Literal["run", "item", "scan", "tool", "backup", "revert", "undo"]
AGENT_KINDS = ("tool", "revert", "undo")
"""Records whose changes were made by the agent or by a revert, not by someone else."""


@dataclass(frozen=True)
class Change:
    path: str
    before: Entry | None
    after: Entry | None

    def to_wire(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "before": self.before.to_wire() if self.before else None,
            "after": self.after.to_wire() if self.after else None,
        }

    @classmethod
    def from_wire(cls, raw: dict[str, Any]) -> Change:
        return cls(
            str(raw["path"]), Entry.from_wire(raw.get("before")), Entry.from_wire(raw.get("after"))
        )


@dataclass
class Record:
    kind: Kind
    todo_id: str | None = None
    tree: str | None = None
    changes: list[Change] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """(path, reason) of files whose new state could not be stored."""
    tool: str | None = None
    command: str | None = None
    exit_code: int | None = None
    undo_id: str | None = None
    target: str | None = None
    """revert: what was reverted to, in words ("before plan item #2")."""
    at: float = field(default_factory=time.time)

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"kind": self.kind, "at": round(self.at, 3)}
        if self.kind in ("item", "tool"):
            wire["todoId"] = self.todo_id
        for key, value in (
            ("tree", self.tree),
            ("tool", self.tool),
            ("command", self.command),
            ("undoId", self.undo_id),
            ("target", self.target),
        ):
            if value is not None:
                wire[key] = value
        if self.kind == "tool" and self.command is not None:
            wire["exitCode"] = self.exit_code
        if self.changes:
            wire["changes"] = [change.to_wire() for change in self.changes]
        if self.skipped:
            wire["skipped"] = [list(pair) for pair in self.skipped]
        return wire

    @classmethod
    def from_wire(cls, raw: dict[str, Any]) -> Record:
        kind = raw["kind"]
        if kind not in ("run", "item", "scan", "tool", "backup", "revert", "undo"):
            raise ValueError(f"unknown record kind {kind!r}")
        exit_code = raw.get("exitCode")
        return cls(
            kind=kind,
            todo_id=raw.get("todoId"),
            tree=raw.get("tree"),
            changes=[Change.from_wire(c) for c in raw.get("changes", [])],
            skipped=[(str(p), str(r)) for p, r in raw.get("skipped", [])],
            tool=raw.get("tool"),
            command=raw.get("command"),
            exit_code=int(exit_code) if exit_code is not None else None,
            undo_id=raw.get("undoId"),
            target=raw.get("target"),
            at=float(raw.get("at", 0)),
        )


class Timeline:
    """The records of one session, loaded from and appended to its journal file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.records: list[Record] = []
        self.objects_kept = 0
        """How many records' objects the session's keep-ref already covers."""
        if path.is_file():
            self._load()

    def append(self, record: Record) -> int:
        self.records.append(record)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps(record.to_wire(), ensure_ascii=False, separators=(",", ":")) + "\n"
        with self.path.open("a", encoding="utf-8", errors="surrogateescape") as f:
            f.write(line)  # file names that are not UTF-8 keep their bytes
        return len(self.records) - 1

    def sync(self) -> None:
        """Wait for the disk (end of a run)."""
        if self.path.is_file():
            fd = os.open(self.path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)

    def last_agent_entry(self, path: str) -> tuple[bool, Entry | None]:
        """(found, entry): what the agent (or a revert) last left at `path`."""
        for record in reversed(self.records):
            if record.kind in AGENT_KINDS:
                for change in record.changes:
                    if change.path == path:
                        return True, change.after
        return False, None

    def _load(self) -> None:
        lines = self.path.read_bytes().split(b"\n")
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                raw = json.loads(line.decode("utf-8", "surrogateescape"))
                self.records.append(Record.from_wire(raw))
            except (ValueError, KeyError, TypeError) as exc:
                if number >= len(lines) - 1:  # a crash while writing the last record
                    log.warning("%s: dropped a half-written last record", self.path.name)
                    break
                log.warning("%s: unreadable record at line %d: %s", self.path.name, number, exc)
