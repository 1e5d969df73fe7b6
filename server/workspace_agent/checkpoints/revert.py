"""Revert to a checkpoint, and undo a revert: what to put back (applying.py puts it back).

"Revert to before item N" restores every file the agent changed from that item's
checkpoint on (later items included) to its content at that checkpoint, and deletes the
files the agent created since. Files the agent never changed are never touched. A file
someone else changed after the agent's last change to it is left alone and reported as
skipped (unless forced), and so is a change that may not all be the agent's (`unsure`: a
file saved in the editor while the step's command ran): the dry run lists it, so a client
asks before it forces the revert. The state before the revert is recorded first, so the
revert itself can be undone. Open documents are changed through the editor, like every
edit.

A dry run works out the same result (what would be restored, deleted and skipped, the
files that cannot be written included) from the same reading of the workspace, and stops
there: nothing is written, recorded or stored.
"""

from __future__ import annotations

import uuid

from ..shared.errors import CheckpointError
from .applying import (
    Plan,
    RevertResult,
    Workspace,
    apply_plans,
    check_plans,
    observe_all,
    record_backup,
)
from .live_content import Observed, editor_buffer
from .objects import Entry
from .timeline import Record, Timeline, background_starts, taken_back

__all__ = ["Plan", "RevertResult", "Workspace", "revert_to", "undo"]

Target = tuple[Entry | None, int | None]
"""A file's content to put back, and its permission bits (None: not known)."""


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
    unsure = _unsure_after(timeline, anchor)
    result = await _restore(
        ws, timeline, targets, expected, force, record, since, dry_run, unsure=unsure
    )
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
    targets: dict[str, Target] = {c.path: (c.before, c.before_perm) for c in reverted.changes}
    expected = {c.path: c.after for c in reverted.changes}
    record = Record("undo", undo_id=undo_id)
    moves_back = [(kept, folder) for folder, kept in reverted.moved]
    result = await _restore(
        ws, timeline, targets, expected, force, record, "after the revert", dry_run, moves_back
    )
    result.undo_id, result.undo = None, True
    return result


async def _restore(
    ws: Workspace,
    timeline: Timeline,
    targets: dict[str, Target],
    expected: dict[str, Entry | None],
    force: bool,
    record: Record,
    since: str,
    dry_run: bool,
    moves_back: list[tuple[str, str]] | None = None,
    unsure: dict[str, str] | None = None,
) -> RevertResult:
    result = RevertResult(undo_id=record.undo_id, dry_run=dry_run)
    buffers = {p: await editor_buffer(ws.documents, ws.root / p) for p in targets}
    observed: dict[str, Observed] = await ws.blocking(observe_all, ws, buffers, not dry_run)
    plans = []
    for path in sorted(targets):
        seen = observed[path]
        target, perm = targets[path]
        if seen.skipped is not None:
            result.skipped.append((path, f"{seen.skipped}; left as it is"))
        elif seen.entry == target and (target is None or perm in (None, seen.perm)):
            continue  # already as it was
        elif seen.entry != expected[path] and not force:
            result.skipped.append((path, _why(seen.entry, expected[path], since)))
        elif unsure and path in unsure and not force:
            result.skipped.append((path, f"{unsure[path]}: it may hold your edits"))
        else:
            plan = Plan(path, seen.entry, target, buffers.get(path), seen.perm, perm, seen.folder)
            plans.append(plan)
    plans = await ws.blocking(check_plans, ws.root, plans, result)
    if dry_run:
        for plan in plans:
            (result.deleted if plan.target is None else result.restored).append(plan.path)
        return result
    return await apply_plans(ws, plans, result, record, timeline, moves_back)


def _targets(timeline: Timeline, anchor: int, paths: list[str]) -> dict[str, Target]:
    """What each path held at the anchor: the `before` of the first record after it that
    changed the path. Every path here was changed by the agent after the anchor, so it has
    one; and a change someone else made before the agent's is kept (it came after)."""
    targets: dict[str, Target] = {}
    missing = set(paths)
    for record in timeline.records[anchor + 1 :]:
        for change in record.changes:
            if change.path in missing:
                targets[change.path] = (change.before, change.before_perm)
                missing.discard(change.path)
        if not missing:
            break
    return targets


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


def _unsure_after(timeline: Timeline, anchor: int) -> dict[str, str]:
    """The agent's changes from the anchor on that may not all be the agent's."""
    unsure: dict[str, str] = {}
    for record in timeline.records[anchor + 1 :]:
        if record.kind == "tool":
            unsure.update(record.unsure)
    return unsure


def _why(current: Entry | None, expected: Entry | None, since: str) -> str:
    """Why a file someone else changed is left alone."""
    if current is None:
        return f"deleted {since}"
    if expected is None:
        return f"created again {since}"
    return f"changed {since}"
