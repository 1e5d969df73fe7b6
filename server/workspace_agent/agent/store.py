"""Sessions on disk, so a conversation and its plan survive a server or editor restart.

One JSONL file per session in `<workspace>/.workspace-agent/sessions/`, appended after
every turn. The folder ignores itself for git. Records:

    {"type": "session", "id": ..., "created": ..., "format": 1}
    {"type": "title", "text": <first prompt>}
    {"type": "messages", "messages": [...]}   new messages since the last record
    {"type": "replace", "messages": [...]}    the whole history (after compaction or merges)
    {"type": "todos", "items": [...]}         "setAside": true when a cancelled run left it
    {"type": "usage", "inputTokens": n, "outputTokens": n}

A half-written last line (a crash mid-write) is dropped with a note; a file that is
corrupt elsewhere is reported and skipped, never fatal.

Next to each file, `<id>.summary.json` holds what a listing shows (title, counts) and the
size and modification time of the JSONL file it describes; it is rewritten after every
append. A listing reads only the summaries, so its cost does not grow with
the conversations. A summary that does not match its file (a file from before summaries
existed, a crash between the two writes, an edit by hand) is not trusted: that file is
read in full once and its summary written afresh.
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import names
from ..protocol import TodoItem, Usage
from ..shared.local_state import make_folder
from ..shared.session import Session
from ..shared.todo import TodoList

if TYPE_CHECKING:
    from .. import contract

log = logging.getLogger(__name__)

FORMAT = 1
SUMMARY_FORMAT = 1
FOLDER = Path(".workspace-agent") / "sessions"
SUMMARY_SUFFIX = ".summary.json"
UNTITLED = "(untitled)"
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

    @classmethod
    def of(cls, session: Session, messages: int, updated: float) -> StoredSession:
        """What a listing shows of `session`, whose file holds `messages` messages."""
        return cls(
            session.id,
            session.title or UNTITLED,
            updated,
            messages,
            session.todos.completed,
            len(session.todos.items),
        )

    def to_wire(self, running: bool) -> contract.SessionSummary:
        return {**self._wire, "running": running}

    @cached_property
    def _wire(self) -> contract.SessionSummary:
        """Built once: a listing shows the same sessions again and again."""
        return {
            "sessionId": self.session_id,
            "title": self.title,
            "updatedAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.updated)),
            "messages": self.messages,
            "todos": {"completed": self.completed, "total": self.total},
            "running": False,
        }


class SessionStore:
    def __init__(self, root: Path) -> None:
        self.folder = root / FOLDER
        self._listed: dict[str, tuple[tuple[int, int], StoredSession | str]] = {}
        """The last listing, by session id: each file's (size, mtime) and what it gave."""

    def path(self, session_id: str) -> Path:
        return self.folder / f"{session_id}.jsonl"

    def summary_path(self, session_id: str) -> Path:
        return self.folder / f"{session_id}{SUMMARY_SUFFIX}"

    def exists(self, session_id: str) -> bool:
        return _valid_id(session_id) and self.path(session_id).is_file()

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
        set_aside = session.todos.set_aside
        if items != mark.todos or set_aside != mark.set_aside:
            records.append(
                {"type": "todos", "items": items, **({"setAside": True} if set_aside else {})}
            )
        usage = session.usage.to_wire()
        if usage != mark.usage:
            records.append({"type": "usage", **usage})
        if not records:
            return
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
        if not names.is_plain(text):  # a name not UTF-8 slipped through: its readable form
            text = "".join(
                json.dumps(names.scrubbed(r), ensure_ascii=False) + "\n" for r in records
            )
        with path.open("a", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            if durable:
                os.fsync(f.fileno())
            written = os.fstat(f.fileno())
        session.saved = _SaveMark(session.title, len(session.messages), items, usage, set_aside)
        session.history_rewritten = False
        self._write_summary(
            written, StoredSession.of(session, len(session.messages), written.st_mtime)
        )

    def load(self, session_id: str, repair: bool = True) -> Session | None:
        """The saved session, or None when there is none; StoreError when it is unusable.
        With `repair`, a torn last record is cut off the file (listing only reads)."""
        path = self.path(session_id)
        if not _valid_id(session_id) or not path.is_file():
            return None
        session = Session(id=session_id)
        notes, read = _replay(path, session, repair)
        on_disk = len(session.messages)
        if read is not None:  # an old file gets its summary, a stale one is corrected
            self._write_summary(read, StoredSession.of(session, on_disk, read.st_mtime))
        _answer_interrupted_tools(session.messages)  # appended by the next sync
        for note in notes:
            log.warning("%s", note)
        session.load_notes = notes
        session.saved = _SaveMark(
            session.title,
            on_disk,
            [i.to_wire() for i in session.todos.items],
            session.usage.to_wire(),
            session.todos.set_aside,
        )
        return session

    def list(self) -> tuple[list[StoredSession], list[str]]:
        """Saved sessions with a conversation, newest first, and a note for each file that
        could not be read (a session saved before its first prompt is not listed).

        Reads the summaries only, and only of the files that changed since the last
        listing (the store remembers what each file's size and modification time said);
        a whole file only where its summary is missing or stale. Blocking file I/O,
        meant for a worker thread, one listing at a time."""
        found: list[StoredSession] = []
        problems: list[str] = []
        known, listed = self._listed, {}
        try:
            entries = list(os.scandir(self.folder))
        except (FileNotFoundError, NotADirectoryError):
            entries = []
        for entry in entries:
            session_id = entry.name.removesuffix(".jsonl")
            if session_id == entry.name or not _valid_id(session_id):
                continue
            try:
                stat = entry.stat()
            except FileNotFoundError:  # deleted while we listed
                continue
            mark = (stat.st_size, stat.st_mtime_ns)
            seen = known.get(session_id)
            if seen is not None and seen[0] == mark:
                outcome = seen[1]
            else:
                outcome = self._listing_of(session_id, stat)
            listed[session_id] = (mark, outcome)
            if isinstance(outcome, StoredSession):
                if outcome.messages:  # a session that never ran has nothing to show
                    found.append(outcome)
            elif outcome:
                problems.append(outcome)
        self._listed = listed
        found.sort(key=lambda s: s.updated, reverse=True)
        problems.sort()
        return found, problems

    def _listing_of(self, session_id: str, stat: os.stat_result) -> StoredSession | str:
        """What to list for one file: its summary, or else what a full read finds; the
        problem instead when it cannot be read ("" when it vanished meanwhile)."""
        try:
            return self._summary(session_id, stat) or self._scan(session_id)
        except StoreError as exc:
            return str(exc)
        except FileNotFoundError:
            return ""

    def _summary(self, session_id: str, stat: os.stat_result) -> StoredSession | None:
        """The session's summary, if it describes the file as it is now."""
        try:
            raw = json.loads(self.summary_path(session_id).read_bytes())
            if raw["format"] != SUMMARY_FORMAT or raw["file"] != _file_mark(stat):
                return None
            return StoredSession(
                session_id,
                str(raw["title"] or UNTITLED),
                stat.st_mtime,
                int(raw["messages"]),
                int(raw["todos"]["completed"]),
                int(raw["todos"]["total"]),
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _scan(self, session_id: str) -> StoredSession:
        """The listing of a file without a usable summary, from all its records; the
        summary is written for the next listing. Only reads the session file."""
        session = Session(id=session_id)
        _notes, read = _replay(self.path(session_id), session, repair=False)
        stored = StoredSession.of(
            session, len(session.messages), read.st_mtime if read else time.time()
        )
        if read is not None:
            self._write_summary(read, stored)
        return stored

    def _write_summary(self, file: os.stat_result, stored: StoredSession) -> None:
        """Rewrite the summary in place, in one write. Not atomic, and it need not be:
        a summary read half-written (or left so by a crash) does not parse or names
        another file size and time, so the listing reads the JSONL file instead (a
        listing racing the write may at worst show the counts of a turn earlier or
        later). A temporary file renamed over it would be atomic, but ext4 then writes
        the new file out at once: milliseconds every turn. Best effort: a missing or
        stale summary only costs the next listing a full read of that one file."""
        target = self.summary_path(stored.session_id)
        summary = {
            "format": SUMMARY_FORMAT,
            "title": None if stored.title == UNTITLED else stored.title,
            "messages": stored.messages,
            "todos": {"completed": stored.completed, "total": stored.total},
            "file": _file_mark(file),  # last: a torn write leaves the old mark or no JSON
        }
        data = json.dumps(summary, ensure_ascii=False).encode("utf-8")
        try:
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                os.pwrite(fd, data, 0)
                os.ftruncate(fd, len(data))
            finally:
                os.close(fd)
        except OSError as exc:  # debug only: this may run in the listing thread
            log.debug("could not write %s: %s", target, exc)

    def _prepare_folder(self) -> None:
        make_folder(self.folder)


@dataclass
class _SaveMark:
    """What the file already holds, so sync appends only the difference."""

    title: str | None = None
    messages: int = 0
    todos: list[contract.TodoItem] | None = None
    usage: contract.Usage | None = None
    set_aside: bool = False


def _valid_id(session_id: str) -> bool:
    return session_id.replace("-", "").isalnum()


def _file_mark(stat: os.stat_result) -> dict[str, int]:
    """What tells a summary whether its JSONL file changed since it was written."""
    return {"size": stat.st_size, "mtimeNs": stat.st_mtime_ns}


def _replay(path: Path, session: Session, repair: bool) -> tuple[list[str], os.stat_result | None]:
    """Apply the file's records to `session`; the notes on what was dropped, and the
    file's stat as it was read (None when it changed while being read)."""
    with path.open("rb") as f:
        read: os.stat_result | None = os.fstat(f.fileno())
        data = f.read()
    if read is not None and len(data) != read.st_size:
        read = None
    lines = data.split(b"\n")
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
                        read = os.fstat(f.fileno()) if read is not None else None
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
                items = [TodoItem.from_wire(item) for item in record["items"]]
                session.todos = TodoList(items, set_aside=record.get("setAside") is True)
            elif kind == "usage":
                session.usage = Usage.from_wire(record)
        except (KeyError, TypeError, ValueError) as exc:
            raise StoreError(
                f"session file {path.name} has a bad {kind!r} record at line {number}: {exc}"
            ) from None
        good_bytes += len(line) + 1
    if not seen_header:
        raise StoreError(f"session file {path.name} has no session header")
    return notes, read


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
