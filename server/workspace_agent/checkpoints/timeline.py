"""A session's checkpoint history: what the workspace held and what changed, in order.

One JSON line per record in the store's `sessions/<sessionId>.jsonl`, after a first line
that names the journal's format, `{"kind": "journal", "format": 1}` (JOURNAL_FORMAT; not
a record: positions count records only). A journal without it is format 1 (written before
it was recorded); a newer format is refused (JournalFormatError), never read or appended
to, since this version would misread it. Older versions skip the line as an unknown record.

    run     a run started; `tree` is the whole workspace then, `prompt` what the user
            asked and `plan` the plan items ({id, text, status}) as the run found them
    item    a plan item's first workspace-changing call is about to run (`todoId`, and
            the item's `text`); `changes` are what changed since the previous record
            (by someone else)
    scan    the same, taken because another session changed the workspace meanwhile
    tool    a write_file / edit_file / bash call ran under `todoId` (`text`): its
            `toolUseId`, `changes`, `command` and `exitCode` for bash, and files
            `skipped` (too large, ...)
            `unsure`: changed files that may not all be the call's, {path: why}
            `background: true`: what a background command started by that call
            (`toolUseId`) wrote since the last look, which belongs to that call's step
            whatever step is in progress now (no command)
    backup  the workspace just before a revert (`tree`), so it can be undone
    revert  what a revert changed (`undoId`, `target`; `anchor`: the record it went back
            to, or `key`: the one item it took out), what it `skipped`, and the folders
            it `moved` aside ([folder, where]) to bring back a file in their place
    undo    what undoing revert `undoId` changed

A change is `{path, before, after}` with entries `[mode, blobId]` (null: no file), and
`perms: [before, after]` when a regular file's permission bits are known (git keeps only
the executable bit; older versions ignore the key). The content of a path at any record
is the `before` of the next record that changes it (or the `after` of the last one before
it, else its entry in the last `tree` before it).

Journals written before `text`, `prompt` and `plan` were recorded still read: their
records simply lack them (history.py then treats each plan item id as one item).
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..shared.errors import CheckpointError
from ..shared.local_state import make_folder
from .objects import Entry

log = logging.getLogger(__name__)

JOURNAL_FORMAT = 1
"""The journal's format: raised with any change an older version would misread."""
HEADER_KIND = "journal"


class JournalFormatError(CheckpointError):
    """A journal written by a newer Workspace Agent, in a format this one cannot read."""


Kind = Literal["run", "item", "scan", "tool", "backup", "revert", "undo"]
AGENT_KINDS = ("tool", "revert", "undo")
"""Records whose changes were made by the agent or by a revert, not by someone else."""


@dataclass(frozen=True)
class Change:
    path: str
    before: Entry | None
    after: Entry | None
    before_perm: int | None = None
    """A regular file's permission bits before (None: not a file, or not known)."""
    after_perm: int | None = None

    def to_disk(self) -> dict[str, Any]:
        """The change as the session's .jsonl file holds it (not a wire payload)."""
        line: dict[str, Any] = {
            "path": self.path,
            "before": self.before.to_disk() if self.before else None,
            "after": self.after.to_disk() if self.after else None,
        }
        if self.before_perm is not None or self.after_perm is not None:
            line["perms"] = [self.before_perm, self.after_perm]
        return line

    @classmethod
    def from_disk(cls, raw: dict[str, Any]) -> Change:
        perms = raw.get("perms")
        before_perm = after_perm = None
        if isinstance(perms, list) and len(perms) == 2:
            before_perm, after_perm = (p if isinstance(p, int) else None for p in perms)
        return cls(
            str(raw["path"]),
            Entry.from_disk(raw.get("before")),
            Entry.from_disk(raw.get("after")),
            before_perm,
            after_perm,
        )

    @property
    def perm_changed(self) -> bool:
        """The permission bits moved (both known)."""
        return perms_differ(self.before_perm, self.after_perm)


def perms_differ(before: int | None, after: int | None) -> bool:
    return before is not None and after is not None and before != after


@dataclass
class Record:
    kind: Kind
    todo_id: str | None = None
    tree: str | None = None
    changes: list[Change] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """(path, reason) of files whose new state could not be stored."""
    tool: str | None = None
    tool_use_id: str | None = None
    """tool: the call's tool_use id (None: an old journal)."""
    command: str | None = None
    exit_code: int | None = None
    undo_id: str | None = None
    target: str | None = None
    """revert: what was reverted to, in words ("before plan item #2 "Tidy up"")."""
    anchor: int | None = None
    """revert to a checkpoint: the position of the record it went back to."""
    key: str | None = None
    """revert of one item alone (`only`): that item occurrence's key."""
    text: str | None = None
    """item, tool: the text of plan item `todo_id` at the time (None: no item, or an old
    journal)."""
    prompt: str | None = None
    """run: what the user asked (cut to PROMPT_CHARS)."""
    background: bool = False
    """tool: what a background command started by call `tool_use_id` wrote meanwhile."""
    plan: list[dict[str, str]] | None = None
    """run: the plan as the run found it, [{id, text, status}] (None: an old journal)."""
    unsure: dict[str, str] = field(default_factory=dict)
    """tool: changed files that may not all be the call's, and why (saved in the editor
    while its command ran): a revert asks before taking them back."""
    moved: list[tuple[str, str]] = field(default_factory=list)
    """revert, undo: (folder, where it went) for a folder that had to make room for the
    file it replaced and held what the step did not create."""
    at: float = field(default_factory=time.time)

    def to_disk(self) -> dict[str, Any]:
        """The record as one line of the session's .jsonl file holds it (not a wire
        payload)."""
        line: dict[str, Any] = {"kind": self.kind, "at": round(self.at, 3)}
        if self.kind in ("item", "tool"):
            line["todoId"] = self.todo_id
        for key, value in (
            ("text", self.text),
            ("prompt", self.prompt),
            ("plan", self.plan),
            ("tree", self.tree),
            ("tool", self.tool),
            ("toolUseId", self.tool_use_id),
            ("command", self.command),
            ("undoId", self.undo_id),
            ("target", self.target),
            ("anchor", self.anchor),
            ("key", self.key),
        ):
            if value is not None:
                line[key] = value
        if self.kind == "tool" and self.command is not None:
            line["exitCode"] = self.exit_code
        if self.background:
            line["background"] = True
        if self.changes:
            line["changes"] = [change.to_disk() for change in self.changes]
        if self.skipped:
            line["skipped"] = [list(pair) for pair in self.skipped]
        if self.unsure:
            line["unsure"] = self.unsure
        if self.moved:
            line["moved"] = [list(pair) for pair in self.moved]
        return line

    @classmethod
    def from_disk(cls, raw: dict[str, Any]) -> Record:
        kind = raw["kind"]
        if kind not in ("run", "item", "scan", "tool", "backup", "revert", "undo"):
            raise ValueError(f"unknown record kind {kind!r}")
        exit_code = raw.get("exitCode")
        plan = raw.get("plan")
        return cls(
            kind=kind,
            todo_id=raw.get("todoId"),
            tree=raw.get("tree"),
            changes=[Change.from_disk(c) for c in raw.get("changes", [])],
            skipped=[(str(p), str(r)) for p, r in raw.get("skipped", [])],
            tool=raw.get("tool"),
            tool_use_id=_optional_str(raw.get("toolUseId")),
            command=raw.get("command"),
            exit_code=int(exit_code) if exit_code is not None else None,
            undo_id=raw.get("undoId"),
            target=raw.get("target"),
            anchor=int(raw["anchor"]) if raw.get("anchor") is not None else None,
            key=_optional_str(raw.get("key")),
            text=_optional_str(raw.get("text")),
            prompt=_optional_str(raw.get("prompt")),
            plan=[_plan_item(entry) for entry in plan] if isinstance(plan, list) else None,
            unsure={str(k): str(v) for k, v in (raw.get("unsure") or {}).items()},
            moved=[(str(a), str(b)) for a, b in raw.get("moved", [])],
            background=raw.get("background") is True,
            at=float(raw.get("at", 0)),
        )


def background_starts(records: Sequence[Record]) -> dict[str, int]:
    """The position of each call that started a background command (its own `tool`
    record), by tool_use id: a revert to a checkpoint before it takes back what the
    command wrote, one to a checkpoint after it does not."""
    started = {r.tool_use_id for r in records if r.background and r.tool_use_id}
    found: dict[str, int] = {}
    for position, record in enumerate(records):
        call = record.tool_use_id
        if call in started and not record.background and record.kind == "tool":
            found.setdefault(call, position)
    return found


def taken_back(record: Record, anchor: int, starts: dict[str, int]) -> bool:
    """Whether a revert to the checkpoint at `anchor` takes back the agent's changes in
    `record`, a record after it: a tool call's are, a background command's only when the
    call that started it came after the checkpoint."""
    if record.kind != "tool":
        return False
    if not record.background:
        return True
    return starts.get(record.tool_use_id or "", -1) > anchor


PROMPT_CHARS = 500
"""A run's prompt is kept this long in the journal: enough to name the run."""


def _optional_str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _plan_item(raw: Any) -> dict[str, str]:
    if not isinstance(raw, dict):
        raise ValueError("a plan entry must be an object")
    return {key: str(raw.get(key, "")) for key in ("id", "text", "status")}


class Timeline:
    """The records of one session, loaded from and appended to its journal file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.records: list[Record] = []
        self.objects_kept = 0
        """How many records the session's keep-ref already covers."""
        self._size = 0
        self._fd: int | None = None
        self.derived: dict[str, Any] = {}
        """What readers compute from the records and keep up to date (history.py)."""
        self.refresh()

    def refresh(self) -> None:
        """Read the journal again if another process appended to it (the headless CLI
        reverting while the editor's server runs)."""
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            size = 0
        if size != self._size:
            self.close()  # the file may have been replaced (a pruned session)
            self.records = []
            self.objects_kept = 0
            if size:
                self._load()
            self._size = size

    def append(self, record: Record) -> int:
        """Add a record; it is on its way to disk (flushed) when this returns."""
        self.records.append(record)
        line = json.dumps(record.to_disk(), ensure_ascii=False, separators=(",", ":")) + "\n"
        # File names that are not UTF-8 keep their bytes (surrogateescape).
        data = line.encode("utf-8", "surrogateescape")
        if self._fd is None:
            make_folder(self.path.parent)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            if os.fstat(self._fd).st_size == 0:  # a new journal starts with its format
                data = journal_header() + data
        os.write(self._fd, data)  # one write: a crash leaves whole lines or a torn last one
        self._size += len(data)
        return len(self.records) - 1

    def sync(self) -> None:
        """Wait for the disk (end of a run)."""
        if self._fd is not None:
            os.fsync(self._fd)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def kept_objects(self) -> dict[str, tuple[str, str]]:
        """The objects this history needs, by a unique name: {name: (type, id)}.

        Versions a file went through in the middle of a plan item are never read again
        (diffs show an item's first and last version of a file, reverts go back to an
        item's or a run's start), so they are left out and packing or pruning drops them:
        a hundred edits of one file under one item keep two versions, not a hundred. Blob
        names end with the file's name, so packing pairs versions of a file as deltas.
        """
        kept: dict[str, tuple[str, str]] = {}
        current: dict[str, Entry | None] = {}
        """The latest version of each path in the current segment of the history."""

        def keep(entry: Entry | None, path: str) -> None:
            if entry is not None:
                kept[f"{entry.sha}-{path.rsplit('/', 1)[-1]}"] = ("blob", entry.sha)

        for record in self.records:
            if record.tree:
                kept[record.tree] = ("tree", record.tree)
            whole = record.kind in ("backup", "revert", "undo")
            if record.kind in ("run", "item") or whole:  # a point a revert can go back to
                for path, entry in current.items():
                    keep(entry, path)
                current.clear()
            for change in record.changes:
                if change.path not in current or whole:
                    keep(change.before, change.path)
                current[change.path] = change.after
                if whole:
                    keep(change.after, change.path)
        for path, entry in current.items():
            keep(entry, path)
        return kept

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
                if number == 1 and isinstance(raw, dict) and raw.get("kind") == HEADER_KIND:
                    self._check_format(raw.get("format"))
                    continue
                self.records.append(Record.from_disk(raw))
            except (ValueError, KeyError, TypeError) as exc:
                if number >= len(lines) - 1:  # a crash while writing the last record
                    log.warning("%s: dropped a half-written last record", self.path.name)
                    break
                log.warning("%s: unreadable record at line %d: %s", self.path.name, number, exc)

    def _check_format(self, found: Any) -> None:
        if found == JOURNAL_FORMAT:
            return
        self.records = []
        self._size = 0
        newer = isinstance(found, int) and found > JOURNAL_FORMAT
        what = f"format {found}" if newer else f"an unknown format ({found!r})"
        raise JournalFormatError(
            f"the checkpoints of session {self.path.stem} were recorded by a newer Workspace "
            f"Agent ({what}; this one reads format {JOURNAL_FORMAT}): update Workspace Agent "
            "to see or revert them; nothing was changed"
        )


def journal_header() -> bytes:
    """The first line of a new journal: its format."""
    header = {"kind": HEADER_KIND, "format": JOURNAL_FORMAT}
    return (json.dumps(header, separators=(",", ":")) + "\n").encode()
