"""Revert to a checkpoint, and undo a revert.

"Revert to before item N" restores every file the agent changed from that item's
checkpoint on (later items included) to its content at that checkpoint, and deletes the
files the agent created since. Files the agent never changed are never touched. A file
someone else changed after the agent's last change to it is left alone and reported as
skipped (unless forced). The state before the revert is recorded first, so the revert
itself can be undone. Open documents are changed through the editor, like every edit.

A dry run works out the same result (what would be restored, deleted and skipped) from
the same reading of the workspace, and stops there: nothing is written, recorded or
stored. Only what cannot be known before trying (a write that fails) can differ.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..shared.documents import Buffer, Documents
from ..shared.errors import CheckpointError, ToolError
from ..tools.disk import atomic_write
from ..tools.textfile import NotText, decode
from .live_content import Observed, editor_buffer
from .objects import EXECUTABLE, SYMLINK, Entry
from .store import BuffersOf, CheckpointStore, no_buffers
from .timeline import Change, Record, Timeline, background_starts, taken_back

if TYPE_CHECKING:
    from .. import contract

T = TypeVar("T")
Blocking = Callable[..., Awaitable[Any]]


@dataclass
class RevertResult:
    restored: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    undo_id: str | None = None
    undo: bool = False
    """The result of undoing a revert (it has no undoId of its own)."""
    dry_run: bool = False
    label: str = ""
    """What was reverted to, in words (not on the wire)."""
    only: bool = False
    """An `only` revert (only.py): one step's changes taken out, later ones kept."""
    conflicts: list[tuple[str, str]] = field(default_factory=list)
    """only: files where later changes overlap the step's (then nothing was written)."""

    def to_wire(self) -> contract.RevertOutcome | contract.UndoRevertResult:
        """The result of workspaceAgent.revert or undoRevert, its keys in this order:
        restored, deleted, skipped, conflicts (`only`), undoId (not for an undo; None
        for a dry run or a conflict: there is nothing to undo), dryRun."""
        return self.undo_wire() if self.undo else self.revert_wire()

    def undo_wire(self) -> contract.UndoRevertResult:
        undone: contract.UndoRevertResult = {
            "restored": self.restored,
            "deleted": self.deleted,
            "skipped": [{"path": p, "reason": r} for p, r in self.skipped],
        }
        if self.dry_run:
            undone["dryRun"] = True
        return undone

    def revert_wire(self) -> contract.RevertOutcome:
        restored, deleted = self.restored, self.deleted
        skipped: list[contract.SkippedFile] = [{"path": p, "reason": r} for p, r in self.skipped]
        conflicts: list[contract.SkippedFile] = [
            {"path": p, "reason": r} for p, r in self.conflicts
        ]
        if self.dry_run:
            if self.only:
                return {
                    "restored": restored,
                    "deleted": deleted,
                    "skipped": skipped,
                    "conflicts": conflicts,
                    "undoId": None,
                    "dryRun": True,
                }
            return {
                "restored": restored,
                "deleted": deleted,
                "skipped": skipped,
                "undoId": None,
                "dryRun": True,
            }
        if self.undo_id is None:  # an `only` revert that met conflicts wrote nothing
            return {
                "restored": restored,
                "deleted": deleted,
                "skipped": skipped,
                "conflicts": conflicts,
                "undoId": None,
            }
        if self.only:
            return {
                "restored": restored,
                "deleted": deleted,
                "skipped": skipped,
                "conflicts": conflicts,
                "undoId": self.undo_id,
            }
        return {
            "restored": restored,
            "deleted": deleted,
            "skipped": skipped,
            "undoId": self.undo_id,
        }


@dataclass
class Workspace:
    """What a revert works with: the store, the editor, and a way to run blocking work
    (a worker thread holding the store) from the event loop."""

    store: CheckpointStore
    documents: Documents
    max_bytes: int
    blocking: Blocking
    buffers_of: BuffersOf = no_buffers

    @property
    def root(self) -> Path:
        return self.store.root


@dataclass
class Plan:
    path: str
    current: Entry | None
    target: Entry | None
    buffer: Buffer | None


async def revert_to(
    ws: Workspace, timeline: Timeline, anchor: int, label: str, force: bool, dry_run: bool = False
) -> RevertResult:
    paths = _agent_paths_after(timeline, anchor)
    if not paths:
        raise CheckpointError(f"nothing to revert: the agent changed no files from {label} on")
    targets = _targets(timeline, anchor, paths)
    if not dry_run:
        await ws.blocking(record_backup, ws, timeline)
    expected = {p: timeline.last_agent_entry(p)[1] for p in paths}
    undo_id = None if dry_run else uuid.uuid4().hex[:12]
    record = Record("revert", undo_id=undo_id, target=label, anchor=anchor)
    since = "after the agent's last change to it"
    result = await _restore(ws, timeline, targets, expected, force, record, since, dry_run)
    result.label = label
    return result


async def undo(
    ws: Workspace, timeline: Timeline, undo_id: str, force: bool, dry_run: bool = False
) -> RevertResult:
    reverted = next(
        (r for r in timeline.records if r.kind == "revert" and r.undo_id == undo_id), None
    )
    if reverted is None:
        raise CheckpointError(f"there is no revert {undo_id!r} in this session")
    if any(r.kind == "undo" and r.undo_id == undo_id for r in timeline.records):
        raise CheckpointError(f"revert {undo_id} was already undone")
    if not dry_run:
        await ws.blocking(record_backup, ws, timeline)
    targets = {c.path: c.before for c in reverted.changes}
    expected = {c.path: c.after for c in reverted.changes}
    record = Record("undo", undo_id=undo_id)
    result = await _restore(
        ws, timeline, targets, expected, force, record, "after the revert", dry_run
    )
    result.undo_id, result.undo = None, True
    return result


async def _restore(
    ws: Workspace,
    timeline: Timeline,
    targets: dict[str, Entry | None],
    expected: dict[str, Entry | None],
    force: bool,
    record: Record,
    since: str,
    dry_run: bool,
) -> RevertResult:
    result = RevertResult(undo_id=record.undo_id, dry_run=dry_run)
    buffers = {p: await editor_buffer(ws.documents, ws.root / p) for p in targets}
    observed: dict[str, Observed] = await ws.blocking(observe_all, ws, buffers, not dry_run)
    plans = []
    for path in sorted(targets):
        seen = observed[path]
        if seen.skipped is not None:
            result.skipped.append((path, f"{seen.skipped}; left as it is"))
        elif seen.entry == targets[path]:
            continue  # already as it was
        elif seen.entry != expected[path] and not force:
            result.skipped.append((path, _why(seen.entry, expected[path], since)))
        else:
            plans.append(Plan(path, seen.entry, targets[path], buffers.get(path)))
    if dry_run:
        for plan in plans:
            (result.deleted if plan.target is None else result.restored).append(plan.path)
        return result
    return await apply_plans(ws, plans, result, record, timeline)


async def apply_plans(
    ws: Workspace, plans: list[Plan], result: RevertResult, record: Record, timeline: Timeline
) -> RevertResult:
    """Put the planned files back, each noted in `result` and in the revert's `record`
    (what was skipped too), save the restored open documents and commit the record, which
    is what undoing the revert goes back to."""
    for plan in plans:
        problem = await apply_plan(ws, plan)
        if problem:
            result.skipped.append((plan.path, problem))
            continue
        (result.deleted if plan.target is None else result.restored).append(plan.path)
        record.changes.append(Change(plan.path, plan.current, plan.target))
    await ws.documents.flush()  # restored open documents are saved, like agent edits
    record.skipped = list(result.skipped)
    await ws.blocking(commit_record, ws.store, timeline, record)
    return result


async def apply_plan(ws: Workspace, plan: Plan) -> str | None:
    """Put one file back; a reason when it could not be done."""
    full = ws.root / plan.path
    if plan.target is not None and plan.buffer is not None and plan.target.mode != SYMLINK:
        data: bytes = await ws.blocking(ws.store.objects.read_blob, plan.target.sha)
        text = _text(data)
        if text is not None:
            try:
                if await ws.documents.replace(full, plan.buffer, 0, len(plan.buffer.text), text):
                    ws.store.editor_paths.add(plan.path)
                    return None
            except ToolError as exc:
                return f"the editor refused the change: {exc}"
    try:
        await ws.blocking(_write_disk, ws, plan)
    except OSError as exc:
        return f"could not be written: {exc.strerror or exc}"
    return None


def _write_disk(ws: Workspace, plan: Plan) -> None:
    full = ws.root / plan.path
    if plan.target is None:
        with contextlib.suppress(FileNotFoundError):
            full.unlink()
        _remove_empty_parents(ws.root, full.parent)
        return
    if full.is_dir() and not full.is_symlink():
        raise IsADirectoryError(f"{plan.path} is a folder now")
    data = ws.store.objects.read_blob(plan.target.sha)
    if plan.target.mode == SYMLINK:
        full.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            full.unlink()
        os.symlink(os.fsdecode(data), full)
        return
    if full.is_symlink():
        full.unlink()
    atomic_write(full, data)
    mode = os.stat(full).st_mode
    executable = plan.target.mode == EXECUTABLE
    if bool(mode & 0o100) != executable:
        bits = mode | ((mode & 0o444) >> 2) if executable else mode & ~0o111
        os.chmod(full, bits & 0o7777)


def _remove_empty_parents(root: Path, folder: Path) -> None:
    """Folders a deleted file leaves empty go too (the agent created them with it)."""
    while folder != root and root in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


def record_backup(ws: Workspace, timeline: Timeline) -> None:
    """Record the workspace as it is, before anything is restored."""
    with ws.store.lock:
        scan = ws.store.scan(ws.max_bytes, ws.buffers_of)
        tree = ws.store.write_tree()
        timeline.append(Record("backup", tree=tree, changes=scan.changes, skipped=scan.skipped))


def _targets(timeline: Timeline, anchor: int, paths: list[str]) -> dict[str, Entry | None]:
    """What each path held at the anchor: the `before` of the first record after it that
    changed the path. Every path here was changed by the agent after the anchor, so it has
    one; and a change someone else made before the agent's is kept (it came after)."""
    targets: dict[str, Entry | None] = {}
    missing = set(paths)
    for record in timeline.records[anchor + 1 :]:
        for change in record.changes:
            if change.path in missing:
                targets[change.path] = change.before
                missing.discard(change.path)
        if not missing:
            break
    return targets


def observe_all(
    ws: Workspace, buffers: dict[str, Buffer | None], keep: bool
) -> dict[str, Observed]:
    return {p: ws.store.observe(p, ws.max_bytes, b, keep=keep) for p, b in buffers.items()}


def commit_record(store: CheckpointStore, timeline: Timeline, record: Record) -> None:
    with store.lock:
        for change in record.changes:
            store.record_written(change)
        timeline.append(record)
        store.keep(timeline.path.stem)  # what an undo needs is kept from now on


def _agent_paths_after(timeline: Timeline, anchor: int) -> list[str]:
    """The files the agent changed after the anchor; not those only a background command
    started before it wrote (they are an earlier step's: timeline.taken_back)."""
    paths: dict[str, None] = {}
    starts = background_starts(timeline.records)
    for record in timeline.records[anchor + 1 :]:
        if taken_back(record, anchor, starts):
            for change in record.changes:
                paths[change.path] = None
    return list(paths)


def _why(current: Entry | None, expected: Entry | None, since: str) -> str:
    """Why a file someone else changed is left alone."""
    if current is None:
        return f"deleted {since}"
    if expected is None:
        return f"created again {since}"
    return f"changed {since}"


def _text(data: bytes) -> str | None:
    try:
        return decode(data)[0]
    except NotText:
        return None


async def in_thread(lock: asyncio.Lock, func: Callable[..., T], *args: Any) -> T:
    """Run blocking store work in a worker thread, one piece at a time per store."""
    async with lock:
        return await asyncio.to_thread(func, *args)
