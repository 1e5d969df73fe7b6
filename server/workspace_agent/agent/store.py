"""Sessions on disk, so a conversation and its plan survive a server or editor restart.

One JSONL file per session in `<workspace>/.workspace-agent/sessions/`, appended after
every turn. The folder ignores itself for git. Records:

    {"type": "session", "id": ..., "created": ..., "format": 1}
    {"type": "title", "text": <first prompt>}
    {"type": "messages", "messages": [...]}   new messages since the last record
    {"type": "replace", "messages": [...]}    the whole history (after compaction or merges)
    {"type": "todos", "items": [...]}
    {"type": "usage", "inputTokens": n, "outputTokens": n}

A half-written last line (a crash mid-write) is dropped with a note; a file that is
corrupt elsewhere is reported and skipped, never fatal.
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..protocol import TodoItem, Usage
from .session import Session
from .todo import TodoList

log = logging.getLogger(__name__)

FORMAT = 1
FOLDER = Path(".workspace-agent") / "sessions"
INTERRUPTED = "interrupted: the server stopped before this tool finished"


class StoreError(Exception):
    """A session file that cannot be used; the message says which and why."""


@dataclass
class StoredSession:
    """What a listing shows of a saved session."""

    session_id: str
    title: str
    updated: float
    messages: int
    completed: int
    total: int

    def to_wire(self, running: bool) -> dict[str, Any]:
        return {
            "sessionId": self.session_id,
            "title": self.title,
            "updatedAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.updated)),
            "messages": self.messages,
            "todos": {"completed": self.completed, "total": self.total},
            "running": running,
        }


class SessionStore:
    def __init__(self, root: Path) -> None:
        self.folder = root / FOLDER

    def path(self, session_id: str) -> Path:
        return self.folder / f"{session_id}.jsonl"

    def sync(self, session: Session, durable: bool = False) -> None:
        """Write what changed in `session` since the last sync. Every write is flushed, so
        a crash of the process loses nothing; `durable` (the end of a run) also waits for
        the disk, which costs milliseconds a turn would feel."""
        records: list[dict[str, Any]] = []
        path = self.path(session.id)
        if not path.exists():
            self._prepare_folder()
            records.append(
                {"type": "session", "id": session.id, "created": time.time(), "format": FORMAT}
            )
            session.saved = _SaveMark()
        mark = session.saved or _SaveMark()
        if session.title and mark.title != session.title:
            records.append({"type": "title", "text": session.title})
        if session.history_rewritten or len(session.messages) < mark.messages:
            records.append({"type": "replace", "messages": session.messages})
        elif len(session.messages) > mark.messages:
            records.append({"type": "messages", "messages": session.messages[mark.messages :]})
        items = [item.to_wire() for item in session.todos.items]
        if items != mark.todos:
            records.append({"type": "todos", "items": items})
        usage = session.usage.to_wire()
        if usage != mark.usage:
            records.append({"type": "usage", **usage})
        if not records:
            return
        with path.open("a", encoding="utf-8") as f:
            f.write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
            f.flush()
            if durable:
                os.fsync(f.fileno())
        session.saved = _SaveMark(session.title, len(session.messages), items, usage)
        session.history_rewritten = False

    def load(self, session_id: str, repair: bool = True) -> Session | None:
        """The saved session, or None when there is none; StoreError when it is unusable.
        With `repair`, a torn last record is cut off the file (listing only reads)."""
        path = self.path(session_id)
        if not session_id.replace("-", "").isalnum() or not path.is_file():
            return None
        session = Session(id=session_id)
        notes = _replay(path, session, repair)
        on_disk = len(session.messages)
        _answer_interrupted_tools(session.messages)  # appended by the next sync
        for note in notes:
            log.warning("%s", note)
        session.load_notes = notes
        session.saved = _SaveMark(
            session.title,
            on_disk,
            [i.to_wire() for i in session.todos.items],
            session.usage.to_wire(),
        )
        return session

    def list(self) -> tuple[list[StoredSession], list[str]]:
        """Saved sessions, newest first, and a note for each file that could not be read."""
        found: list[StoredSession] = []
        problems: list[str] = []
        if not self.folder.is_dir():
            return found, problems
        for path in self.folder.glob("*.jsonl"):
            try:
                session = self.load(path.stem, repair=False)
            except StoreError as exc:
                problems.append(str(exc))
                continue
            if session is None:
                continue
            found.append(
                StoredSession(
                    session.id,
                    session.title or "(untitled)",
                    path.stat().st_mtime,
                    len(session.messages),
                    session.todos.completed,
                    len(session.todos.items),
                )
            )
        found.sort(key=lambda s: s.updated, reverse=True)
        return found, problems

    def _prepare_folder(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        ignore = self.folder.parent / ".gitignore"
        if not ignore.exists():
            ignore.write_text(
                "# Workspace Agent's saved sessions: local state, not project files\n*\n"
            )


@dataclass
class _SaveMark:
    """What the file already holds, so sync appends only the difference."""

    title: str | None = None
    messages: int = 0
    todos: list[dict[str, Any]] | None = None
    usage: dict[str, int] | None = None


def _replay(path: Path, session: Session, repair: bool) -> list[str]:
    lines = path.read_bytes().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    notes: list[str] = []
    seen_header = False
    good_bytes = 0
    for number, line in enumerate(lines, start=1):
        try:
            record = json.loads(line)
            if not isinstance(record, dict):
                raise ValueError("not an object")
        except ValueError as exc:
            if number == len(lines):  # a crash while writing the last record
                notes.append(f"{path.name}: dropped a half-written last record (line {number})")
                if repair:  # so that new records do not follow the torn one
                    with path.open("r+b") as f:
                        f.truncate(good_bytes)
                break
            raise StoreError(
                f"session file {path.name} is corrupt at line {number}: {exc}"
            ) from None
        kind = record.get("type")
        try:
            if kind == "session":
                seen_header = True
            elif kind == "title":
                session.title = str(record["text"])
            elif kind == "messages":
                session.messages.extend(record["messages"])
            elif kind == "replace":
                session.messages[:] = record["messages"]
            elif kind == "todos":
                session.todos = TodoList([TodoItem(**item) for item in record["items"]])
            elif kind == "usage":
                session.usage = Usage.from_wire(record)
        except (KeyError, TypeError, ValueError) as exc:
            raise StoreError(
                f"session file {path.name} has a bad {kind!r} record at line {number}: {exc}"
            ) from None
        good_bytes += len(line) + 1
    if not seen_header:
        raise StoreError(f"session file {path.name} has no session header")
    return notes


def _answer_interrupted_tools(messages: list[dict[str, Any]]) -> None:
    """A crash between a tool call and its result leaves a tool_use unanswered, which the
    API refuses: answer it so the session can go on."""
    if not messages or messages[-1]["role"] != "assistant":
        return
    pending = [
        b["id"]
        for b in messages[-1]["content"]
        if isinstance(b, dict) and b.get("type") == "tool_use"
    ]
    if pending:
        messages.append(
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": tool_id,
                        "content": INTERRUPTED,
                        "is_error": True,
                    }
                    for tool_id in pending
                ],
            }
        )
