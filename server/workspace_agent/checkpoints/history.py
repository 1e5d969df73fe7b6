"""What each plan item changed, read from a session's timeline.

Plan item ids do not name one item over a session: models number every new plan from
"1", so the "1" of a second run's plan is usually another step than the first run's "1".
The history is therefore made of item *occurrences*, each with its own `key`. When an
item's first workspace-changing call is recorded (an `item` record), it continues the
latest occurrence of its id only if

- the texts agree (whitespace normalised; the latest text that occurrence had), and
- that occurrence went on in the same run, or the run began with the item still open in
  its plan (not completed, same text): a run that picks up an unfinished step (after a
  cancel, "continue") goes on with it, while a completed step whose id and text come
  back in a later run (a new plan with an identical step) is done again, separately.

Anything else starts a new occurrence, whose checkpoint is that record. Changes made
while no item was in progress ("before the plan", todoId None) form one occurrence per
run. Journals written before texts and plans were recorded have neither: there each id
is one occurrence, as it was then.

A file under an occurrence goes from its content before the occurrence's first change to
it, to its content after its last change to it; a file that ended where it started is
not listed. Commands are every bash call made under it, with their exit status.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from .. import names
from ..shared.observers import ChangedFile, ChangeKind
from ..shared.todo import TodoList
from .item_facts import Occurrence, display_name, revert_facts, row_facts, same_text
from .linediff import line_stats
from .objects import Entry
from .timeline import Record, Timeline, perms_differ

if TYPE_CHECKING:
    from .. import contract

BEFORE_PLAN = None
"""The todoId of changes made while no plan item was in progress."""


@dataclass
class FileHistory:
    path: str
    before: Entry | None
    after: Entry | None
    before_perm: int | None = None
    after_perm: int | None = None
    unsure: str | None = None
    """Why the change may not all be the item's (a revert asks before taking it back)."""

    @property
    def changed(self) -> bool:
        return self.before != self.after or perms_differ(self.before_perm, self.after_perm)

    @property
    def change(self) -> ChangeKind:
        if self.before is None:
            return "added"
        return "deleted" if self.after is None else "modified"


@dataclass
class ItemHistory:
    """One occurrence of a plan item (or of "before the plan" in one run)."""

    key: str
    todo_id: str | None
    anchor: int
    """The position of its checkpoint: the record taken before its first change."""
    text: str | None = None
    """The item's text when it first changed something (None: before the plan, or an
    old journal)."""
    last_text: str | None = None
    """Its text at its latest change (a step may be reworded while it is worked on)."""
    run: int | None = None
    """The run (RunHistory.number) of its first workspace-changing call."""
    last_run: int | None = None
    first_call: int | None = None
    """The position of its first workspace-changing call's record."""
    last_call: int | None = None
    files: dict[str, FileHistory] = field(default_factory=dict)
    commands: list[tuple[str, int | None, str | None]] = field(default_factory=list)
    """(command, exit status, tool_use id) of every bash call under it."""
    skipped: dict[str, str] = field(default_factory=dict)

    def changed_files(self) -> list[FileHistory]:
        return [f for f in self.files.values() if f.changed]

    @property
    def name(self) -> str:
        """How everything names it (item_facts.py): 'plan item #2 "Format the code"',
        with its latest text."""
        return display_name(self.todo_id, self.last_text or self.text)


@dataclass
class RunHistory:
    number: int
    """1, 2, ...: the session's runs in the journal's order."""
    position: int
    prompt: str | None
    started_at: float
    plan: dict[str, tuple[str, str]] | None
    """{id: (text, status)} as the run found the plan (None: an old journal)."""
    calls: bool = False
    """It recorded workspace-changing calls."""
    changed_files: bool = False


@dataclass
class History:
    """Everything derived from a timeline's records, brought up to date incrementally
    (a changes notification follows every tool call: it must not cost the whole history
    each time)."""

    records: list[Record]
    seen: int = 0
    runs: list[RunHistory] = field(default_factory=list)
    items: dict[str, ItemHistory] = field(default_factory=dict)
    listed: list[ItemHistory] = field(default_factory=list)
    """Occurrences in the order of their first workspace-changing call."""
    latest: dict[str | None, ItemHistory] = field(default_factory=dict)
    by_call: dict[str, ItemHistory] = field(default_factory=dict)
    """The occurrence each tool call was made under, by tool_use id (a background
    command's writes go to the step of the call that started it)."""
    current: ItemHistory | None = None
    now: dict[str, Entry | None] = field(default_factory=dict)
    """What each path changed in the journal holds after its latest record."""
    reverts: list[Record] = field(default_factory=list)
    """Every revert record, with its position (`at` aside, records carry none)."""
    revert_positions: list[int] = field(default_factory=list)
    undone: set[str | None] = field(default_factory=set)

    def update(self) -> History:
        for position in range(self.seen, len(self.records)):
            record = self.records[position]
            for change in record.changes:
                self.now[change.path] = change.after
            if record.kind == "revert":
                self.reverts.append(record)
                self.revert_positions.append(position)
            elif record.kind == "undo":
                self.undone.add(record.undo_id)
            if record.kind == "run":
                self._run(position, record)
            elif record.kind == "item":
                self._item(position, record)
            elif record.kind == "tool" and record.background:
                self._background(record)
            elif record.kind == "tool":
                self._tool(position, record)
        self.seen = len(self.records)
        return self

    @property
    def run(self) -> RunHistory | None:
        return self.runs[-1] if self.runs else None

    def _run(self, position: int, record: Record) -> None:
        plan = None
        if record.plan is not None:
            plan = {e["id"]: (e["text"], e["status"]) for e in record.plan}
        number = len(self.runs) + 1
        self.runs.append(RunHistory(number, position, record.prompt, record.at, plan))
        self.current = None

    def _item(self, position: int, record: Record) -> None:
        known = self.latest.get(record.todo_id)
        if known is not None and _continues(known, record.text, self.run):
            item = known
        else:
            item = ItemHistory(f"i{position}", record.todo_id, position, record.text)
            item.last_text = record.text
            self.items[item.key] = item
            self.latest[record.todo_id] = item
        item.last_run = self.run.number if self.run else None
        self.current = item

    def _tool(self, position: int, record: Record) -> None:
        item = self.current
        if item is None or item.todo_id != record.todo_id:
            # No item record before it (a journal cut short): the latest occurrence of
            # its id, else one whose checkpoint is the state just before this call.
            item = self.latest.get(record.todo_id)
            if item is None:
                item = ItemHistory(f"t{position}", record.todo_id, position - 1, record.text)
                self.items[item.key] = item
                self.latest[record.todo_id] = item
            self.current = item
        run = self.run
        item.last_call = position
        if item.first_call is None:
            item.first_call = position
            item.run = run.number if run else None
            self.listed.append(item)
        if run is not None:
            run.calls = True
            run.changed_files = run.changed_files or bool(record.changes)
        if record.text is not None:
            item.text = item.text or record.text
            item.last_text = record.text
        if record.tool_use_id is not None:
            self.by_call[record.tool_use_id] = item
        _add_files(item, record)
        if record.command is not None:
            item.commands.append((record.command, record.exit_code, record.tool_use_id))
        for path, reason in record.skipped:
            item.skipped[path] = reason

    def _background(self, record: Record) -> None:
        """What a background command wrote: its starting call's step's, whichever step is
        in progress (it is not that step's latest call, nor the run's)."""
        item = self.by_call.get(record.tool_use_id or "") or self.latest.get(record.todo_id)
        if item is not None:
            _add_files(item, record)
            for path, reason in record.skipped:
                item.skipped[path] = reason


def _add_files(item: ItemHistory, record: Record) -> None:
    """A record's changes into the item's files (a tool call's, or a background command's
    it started)."""
    for change in record.changes:
        known = item.files.get(change.path)
        if known is None:
            known = item.files[change.path] = FileHistory(
                change.path, change.before, change.after, change.before_perm
            )
        known.after, known.after_perm = change.after, change.after_perm
        if change.path in record.unsure:
            known.unsure = record.unsure[change.path]


def _continues(item: ItemHistory, text: str | None, run: RunHistory | None) -> bool:
    """Whether an item record of `item`'s id with `text`, in `run`, goes on with it."""
    if not same_text(item.last_text, text):
        return False
    if run is None or run.plan is None:  # an old journal: one occurrence per id
        return True
    if item.last_run == run.number:
        return True
    if item.todo_id is None:  # "before the plan": one per run
        return False
    found = run.plan.get(item.todo_id)
    return found is not None and found[1] != "completed" and same_text(found[0], text)


def history_of(timeline: Timeline) -> History:
    """The timeline's history, kept with it and brought up to date."""
    cached = timeline.derived.get("history")
    if not isinstance(cached, History) or cached.records is not timeline.records:
        cached = History(timeline.records)  # new, or the journal was read again
        timeline.derived["history"] = cached
    return cached.update()


def find_item(
    timeline: Timeline, todo_id: str | None, key: str | None = None
) -> ItemHistory | None:
    """The occurrence named by `key`, else the latest occurrence of `todo_id` that changed
    something."""
    listed = history_of(timeline).listed
    if key is not None:
        return next((item for item in listed if item.key == key), None)
    return next((item for item in reversed(listed) if item.todo_id == todo_id), None)


def last_run_anchor(timeline: Timeline) -> int | None:
    """The start of the latest run that changed files."""
    runs = [run for run in history_of(timeline).runs if run.changed_files]
    return runs[-1].position if runs else None


def item_name(todo_id: str | None) -> str:
    """The name of an id no occurrence of which is known."""
    return display_name(todo_id, None)


def reverts_of(timeline: Timeline) -> list[contract.RevertRecord]:
    undone = {r.undo_id for r in timeline.records if r.kind == "undo"}
    return [  # a revert record always has its undo id and target
        {
            "undoId": cast(str, r.undo_id),
            "target": cast(str, r.target),
            "undone": r.undo_id in undone,
        }
        for r in timeline.records
        if r.kind == "revert"
    ]


Stats = Callable[[Entry | None, Entry | None], tuple[int, int, bool]]


Plan = Sequence[tuple[str, str]]
"""The session's current plan as (id, text) rows."""


def plan_rows(todos: TodoList) -> Plan:
    """A session's current plan as the changes payload tells its rows against."""
    return [(item.id, item.text) for item in todos.items]


def changes_payload(timeline: Timeline, stats: Stats, plan: Plan = ()) -> contract.Changes:
    """The wire form of workspaceAgent/changes (without sessionId); `plan` is the
    session's current plan, which the rows are told against (item_facts.py)."""
    history = history_of(timeline)
    listed: list[tuple[ItemHistory, list[contract.ChangedFile]]] = []
    for item in history.listed:
        files = _files_of(history, item, stats)
        if files or item.commands or item.skipped:
            listed.append((item, files))
    # What the view shows of each listed occurrence (item_facts.py): whether a revert to
    # before it has something to take back (and why not), and which plan row shows it.
    reverts = revert_facts(timeline.records, (item.anchor for item, _ in listed))
    rows = row_facts([Occurrence(i.todo_id, i.text, i.last_text) for i, _ in listed], plan)
    items: list[contract.ItemChanges] = []
    for (item, files), row in zip(listed, rows, strict=True):
        reason = reverts[item.anchor].reason(item.name)
        entry: contract.ItemChanges = {
            "todoId": item.todo_id,
            "key": item.key,
            "text": item.text,
            "displayName": item.name,
            "run": item.run,
            "reverted": _reverted(history, item),
            "revertible": reason is None,
            "planRow": row.plan_row,
            "shown": row.shown,
            "files": files,
            "commands": [
                {"command": c, "exitCode": code, "toolUseId": tool_use_id}
                for c, code, tool_use_id in item.commands
            ],
        }
        if reason is not None:
            entry["notRevertibleReason"] = reason
        if item.last_text is not None and not same_text(item.last_text, item.text):
            entry["lastText"] = item.last_text
        if item.skipped:
            entry["skipped"] = skipped_wire(list(item.skipped.items()))
        items.append(entry)
    changed = [run.number for run in history.runs if run.changed_files]
    last_run = changed[-1] if changed else None
    runs = {entry["run"] for entry in items} | {last_run}
    return {
        "items": items,
        "runs": [
            {"run": run.number, "prompt": run.prompt, "startedAt": _iso(run.started_at)}
            for run in history.runs
            if run.number in runs
        ],
        "lastRun": last_run,
        "reverts": reverts_of(timeline),
    }


def skipped_wire(pairs: list[tuple[str, str]]) -> list[contract.SkippedFile]:
    """(path, reason) pairs as SkippedFile, names in their wire form."""
    return [
        cast("contract.SkippedFile", {**names.path_fields(path), "reason": reason})
        for path, reason in pairs
    ]


def _files_of(history: History, item: ItemHistory, stats: Stats) -> list[contract.ChangedFile]:
    files: list[contract.ChangedFile] = []
    for change in item.changed_files():
        additions, deletions, binary = stats(change.before, change.after)
        wire: contract.ChangedFile = {
            **names.path_fields(change.path),  # type: ignore[typeddict-item]
            "change": change.change,
            "additions": additions,
            "deletions": deletions,
            "reverted": history.now.get(change.path, change.after) == change.before,
        }
        if binary:
            wire["binary"] = True
        if change.unsure is not None:
            wire["unsure"] = change.unsure
        files.append(wire)
    return files


def _reverted(history: History, item: ItemHistory) -> bool:
    """Whether a revert not undone since has taken all of the item's changes back (a
    rewind to before it, or an `only` revert of it, that left none of its files as they
    were) and the item changed nothing after it."""
    if item.first_call is None or item.last_call is None:
        return False
    for position, revert in zip(history.revert_positions, history.reverts, strict=True):
        if position < item.last_call or revert.undo_id in history.undone:
            continue
        targets_it = revert.key == item.key or (
            revert.anchor is not None and revert.anchor < item.first_call
        )
        left = {path for path, _reason in revert.skipped}
        if targets_it and not left & set(item.files):
            return True
    return False


def _iso(at: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))


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


def record_files(record: Record, stats: Stats) -> list[ChangedFile]:
    """What one tool record changed, with its lines added and removed, for the call's
    other observers and the transcript."""
    out = []
    for change in record.changes:
        history = FileHistory(
            change.path, change.before, change.after, change.before_perm, change.after_perm
        )
        if history.changed:
            additions, deletions, _binary = stats(change.before, change.after)
            out.append(ChangedFile(change.path, history.change, additions, deletions))
    return out
