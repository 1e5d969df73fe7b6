"""Putting files back, all or nothing: what a revert, an undo and an `only` revert share.

Before anything is written, every planned file is checked (`check_plans`, writable.py):
one that cannot be written (a read-only folder, an immutable file, a folder that is a
file now) is left alone and reported in `skipped`, and a dry run says the same. Then the
plans are applied in an order that works for type changes: deletions first (deepest
first, and the folders they leave empty), then the folders of a revert being undone come
back, then files are written (shallowest first): a folder that stands where a file comes
back is removed when the step's own files in it were its content, else moved aside
(`<name>.kept`, said in `skipped`). Each step is noted with its inverse; if one fails
(what no check foresees: a full disk, an editor that refuses), the ones done are taken
back in reverse order and the revert is refused with the reason: nothing changed. Only
when even that fails is the result what stands, with an undoId.

Every file gets its permission bits back (all of them, when the journal has them), not
only the executable bit.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from .. import names
from ..shared.documents import Buffer, Documents
from ..shared.errors import CheckpointError, ToolError
from ..tools.disk import atomic_write
from ..tools.textfile import NotText, decode
from .gitcmd import GitError
from .history import skipped_wire
from .live_content import Observed
from .objects import EXECUTABLE, SYMLINK, Entry
from .store import BuffersOf, CheckpointStore, no_buffers
from .timeline import Change, Record, Timeline
from .writable import delete_problem, write_problem

if TYPE_CHECKING:
    from .. import contract

Blocking = Callable[..., Awaitable[Any]]
KEPT = ".kept"
"""The suffix of a folder moved aside to make room for the file it replaced."""


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
        restored, deleted, skipped, nonUtf8Names (when a name is not UTF-8), conflicts
        (`only`), undoId (not for an undo; None for a dry run or a conflict: there is
        nothing to undo), dryRun. Names are in their wire form (names.py)."""
        return self.undo_wire() if self.undo else self.revert_wire()

    def wire_lists(self) -> dict[str, Any]:
        lists: dict[str, Any] = {
            "restored": [names.readable(p) for p in self.restored],
            "deleted": [names.readable(p) for p in self.deleted],
            "skipped": skipped_wire(self.skipped),
        }
        odd = names.non_utf8([*self.restored, *self.deleted])
        if odd:
            lists["nonUtf8Names"] = odd
        return lists

    def undo_wire(self) -> contract.UndoRevertResult:
        undone = self.wire_lists()
        if self.dry_run:
            undone["dryRun"] = True
        return cast("contract.UndoRevertResult", undone)

    def revert_wire(self) -> contract.RevertOutcome:
        outcome = self.wire_lists()
        if self.only or (self.undo_id is None and not self.dry_run):
            outcome["conflicts"] = skipped_wire(self.conflicts)  # an `only` that met one
        outcome["undoId"] = None if self.dry_run else self.undo_id
        if self.dry_run:
            outcome["dryRun"] = True
        return cast("contract.RevertOutcome", outcome)


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
    current_perm: int | None = None
    target_perm: int | None = None
    """The permission bits to put back (None: not known; the executable bit then follows
    the target's git mode)."""
    folder: bool = False
    """A folder stands at `path` now (the step turned the file into a folder)."""


def check_plans(root: Path, plans: list[Plan], result: RevertResult) -> list[Plan]:
    """The plans that can be carried out; the others go to `result.skipped` with why. A
    folder that will have to make way for a file and holds what the revert does not
    delete is said too (moved aside)."""
    usable = plans
    while True:  # a skipped deletion can leave a file where another plan needs a folder
        deleting = {p.path for p in usable if p.target is None}
        problems = {
            p.path: problem for p in usable if (problem := _problem(root, p, deleting)) is not None
        }
        if not problems:
            break
        result.skipped += sorted(problems.items())
        usable = [p for p in usable if p.path not in problems]
    deleting = {p.path for p in usable if p.target is None}
    for plan in usable:
        if plan.folder and plan.target is not None:
            others = _held(root, plan.path, deleting)
            if others:
                shown = ", ".join(names.readable(p) for p in others[:3])
                more = f" and {len(others) - 3} more" if len(others) > 3 else ""
                what = "would be moved" if result.dry_run else "will be moved"
                result.skipped.append(
                    (
                        plan.path + KEPT,
                        f"what the folder {names.readable(plan.path)} holds that the step "
                        f"did not create ({shown}{more}) {what} here, so the file can come back",
                    )
                )
    return usable


def _problem(root: Path, plan: Plan, deleting: set[str]) -> str | None:
    if plan.target is None:
        return delete_problem(root, plan.path)
    replacing = plan.current is not None or plan.folder
    return write_problem(root, plan.path, deleting, replacing)


def _held(root: Path, folder: str, deleting: set[str]) -> list[str]:
    """The files (relative) under `folder` that no plan deletes."""
    held = []
    for top, dirs, files in os.walk(root / folder):
        dirs.sort()
        for name in sorted(files):
            path = (Path(top) / name).relative_to(root).as_posix()
            if path not in deleting:
                held.append(path)
    return held


async def apply_plans(
    ws: Workspace,
    plans: list[Plan],
    result: RevertResult,
    record: Record,
    timeline: Timeline,
    moves_back: list[tuple[str, str]] | None = None,
) -> RevertResult:
    """Carry out the (checked) plans, all or nothing; note each in `result` and in the
    revert's `record`, save the restored open documents and commit the record, which is
    what undoing the revert goes back to. `moves_back`: (where, folder) of folders an
    undone revert moved aside, put back after the deletions."""
    done: list[Undo] = []
    applied: list[Plan] = []
    at = ""
    try:
        for plan in sorted((p for p in plans if p.target is None), key=_deepest_first):
            at = plan.path
            removed = await ws.blocking(_delete, ws.root, plan.path)
            done.append(_undo_delete(ws, plan, removed))
            applied.append(plan)
        for where, folder in moves_back or []:
            at = folder
            if await ws.blocking(_move, ws.root, where, folder):
                done.append(_undo_move(ws, folder, where))
                record.moved.append((where, folder))
        for plan in sorted((p for p in plans if p.target is not None), key=_shallowest_first):
            at = plan.path
            if plan.folder:
                kept = await ws.blocking(_make_room, ws.root, plan.path)
                done.append(_undo_room(ws, plan.path, kept))
                if kept is not None:
                    record.moved.append((plan.path, kept))
            done.append(await _write(ws, plan))
            applied.append(plan)
    except (OSError, ToolError, GitError) as exc:
        failures = await _take_back(done)
        why = f"{names.readable(at)} could not be written ({_reason(exc)})"
        if not failures:
            undone = f"; the {len(done)} changes made before it were put back" if done else ""
            raise CheckpointError(f"nothing was reverted: {why}{undone}") from None
        return await _settle(ws, plans, result, record, timeline, [(at, why), *failures])
    for plan in sorted(applied, key=lambda p: p.path):
        (result.deleted if plan.target is None else result.restored).append(plan.path)
        record.changes.append(
            Change(plan.path, plan.current, plan.target, plan.current_perm, plan.target_perm)
        )
    await ws.documents.flush()  # restored open documents are saved, like agent edits
    record.skipped = list(result.skipped)
    await ws.blocking(commit_record, ws.store, timeline, record)
    return result


async def _settle(
    ws: Workspace,
    plans: list[Plan],
    result: RevertResult,
    record: Record,
    timeline: Timeline,
    failures: list[tuple[str, str]],
) -> RevertResult:
    """A revert that failed and could not be taken back whole: what stands changed is
    recorded as the revert (so it can be undone) and said; the rest is skipped."""
    buffers = {p.path: p.buffer for p in plans}
    now: dict[str, Observed] = await ws.blocking(observe_all, ws, buffers, True)
    for plan in plans:
        seen = now[plan.path]
        if seen.entry == plan.current:
            result.skipped.append((plan.path, "not reverted: the revert failed"))
            continue
        (result.deleted if seen.entry is None else result.restored).append(plan.path)
        record.changes.append(
            Change(plan.path, plan.current, seen.entry, plan.current_perm, seen.perm)
        )
    result.skipped += [(path, f"the revert failed: {why}") for path, why in failures]
    record.skipped = list(result.skipped)
    await ws.blocking(commit_record, ws.store, timeline, record)
    return result


async def _take_back(done: list[Undo]) -> list[tuple[str, str]]:
    """Undo the steps done, the last first; (path, why) of those that could not be."""
    failures: list[tuple[str, str]] = []
    for undo in reversed(done):
        try:
            await undo.run()
        except (OSError, ToolError, GitError) as exc:
            failures.append((undo.path, f"could not be put back: {_reason(exc)}"))
    return failures


@dataclass(frozen=True)
class Undo:
    """How to take back one step done to `path`."""

    path: str
    run: Callable[[], Awaitable[Any]]


def _undo(path: str, work: Callable[[], Awaitable[Any]]) -> Undo:
    return Undo(path, work)


def _deepest_first(plan: Plan) -> tuple[int, str]:
    return (-plan.path.count("/"), plan.path)


def _shallowest_first(plan: Plan) -> tuple[int, str]:
    return (plan.path.count("/"), plan.path)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc)


# -- the steps and their inverses ----------------------------------------------------------


def _delete(root: Path, path: str) -> list[Path]:
    """Delete a file, and the folders that leaves empty (the agent created them with it);
    returns those folders, the deepest first."""
    full = root / path
    with contextlib.suppress(FileNotFoundError):
        full.unlink()
    removed = []
    folder = full.parent
    while folder != root and root in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            break
        removed.append(folder)
        folder = folder.parent
    return removed


def _undo_delete(ws: Workspace, plan: Plan, removed: list[Path]) -> Undo:
    async def undo() -> None:
        for folder in reversed(removed):
            folder.mkdir(exist_ok=True)
        if plan.current is not None:
            await ws.blocking(_write_disk, ws, plan.path, plan.current, plan.current_perm)

    return _undo(plan.path, undo)


def _move(root: Path, where: str, folder: str) -> bool:
    """Put a folder moved aside back in its place (when both are as the move left them)."""
    source, target = root / where, root / folder
    if not source.is_dir() or os.path.lexists(target):
        return False
    os.rename(source, target)
    return True


def _undo_move(ws: Workspace, folder: str, where: str) -> Undo:
    async def undo() -> None:
        await ws.blocking(os.rename, ws.root / folder, ws.root / where)

    return _undo(folder, undo)


def _make_room(root: Path, path: str) -> str | None:
    """The folder at `path` goes: removed when empty, else moved aside to a free name
    (returned)."""
    full = root / path
    try:
        full.rmdir()
        return None
    except FileNotFoundError:
        return None  # the deletions emptied and removed it
    except OSError:
        pass
    kept, n = path + KEPT, 1
    while os.path.lexists(root / kept):
        n += 1
        kept = f"{path}{KEPT}-{n}"
    os.rename(full, root / kept)
    return kept


def _undo_room(ws: Workspace, path: str, kept: str | None) -> Undo:
    async def undo() -> None:
        full = ws.root / path
        if kept is None:
            full.mkdir(exist_ok=True)
        else:
            await ws.blocking(os.rename, ws.root / kept, full)

    return _undo(path, undo)


async def _write(ws: Workspace, plan: Plan) -> Undo:
    """Put one file back (an open document through the editor); its inverse."""
    assert plan.target is not None
    full = ws.root / plan.path
    if plan.buffer is not None and plan.target.mode != SYMLINK:
        data: bytes = await ws.blocking(ws.store.objects.read_blob, plan.target.sha)
        text = _text(data)
        if text is not None:
            try:
                applied = await ws.documents.replace(
                    full, plan.buffer, 0, len(plan.buffer.text), text
                )
            except ToolError as exc:
                raise ToolError(f"the editor refused the change: {exc}") from None
            if applied:
                ws.store.editor_paths.add(plan.path)
                await ws.blocking(_set_perm, full, plan.target_perm)
                return _undo_editor(ws, plan, full)
    made = await ws.blocking(_write_disk, ws, plan.path, plan.target, plan.target_perm)
    return _undo_write(ws, plan, made)


def _undo_editor(ws: Workspace, plan: Plan, full: Path) -> Undo:
    async def undo() -> None:
        assert plan.buffer is not None
        now = await ws.documents.buffer(full)
        if now is not None:
            await ws.documents.replace(full, now, 0, len(now.text), plan.buffer.text)
        await ws.blocking(_set_perm, full, plan.current_perm)

    return _undo(plan.path, undo)


def _undo_write(ws: Workspace, plan: Plan, made: list[Path]) -> Undo:
    async def undo() -> None:
        if plan.current is None:
            await ws.blocking(_delete_made, ws.root / plan.path, made)
        else:
            await ws.blocking(_write_disk, ws, plan.path, plan.current, plan.current_perm)

    return _undo(plan.path, undo)


def _delete_made(full: Path, made: list[Path]) -> None:
    with contextlib.suppress(FileNotFoundError):
        full.unlink()
    for folder in reversed(made):
        with contextlib.suppress(OSError):
            folder.rmdir()


def _write_disk(ws: Workspace, path: str, entry: Entry, perm: int | None) -> list[Path]:
    """Write one file's content (a link, or a file with its permission bits); returns the
    folders it had to make, the outermost first."""
    full = ws.root / path
    made = _missing_folders(ws.root, full.parent)
    data = ws.store.objects.read_blob(entry.sha)
    full.parent.mkdir(parents=True, exist_ok=True)
    if os.path.islink(full):
        full.unlink()
    if entry.mode == SYMLINK:
        with contextlib.suppress(FileNotFoundError):
            full.unlink()
        os.symlink(os.fsdecode(data), full)
        return made
    atomic_write(full, data)
    if perm is None:
        mode = stat.S_IMODE(os.stat(full).st_mode)
        executable = entry.mode == EXECUTABLE
        if bool(mode & 0o100) != executable:
            perm = mode | ((mode & 0o444) >> 2) if executable else mode & ~0o111
    _set_perm(full, perm)
    return made


def _set_perm(full: Path, perm: int | None) -> None:
    if perm is not None and stat.S_IMODE(os.lstat(full).st_mode) != perm:
        os.chmod(full, perm)


def _missing_folders(root: Path, folder: Path) -> list[Path]:
    missing = []
    while folder != root and not folder.exists():
        missing.append(folder)
        folder = folder.parent
    return list(reversed(missing))


def _text(data: bytes) -> str | None:
    try:
        return decode(data)[0]
    except NotText:
        return None


# -- what every revert does before and after -----------------------------------------------


def record_backup(ws: Workspace, timeline: Timeline) -> None:
    """Record the workspace as it is, before anything is restored."""
    with ws.store.lock:
        scan = ws.store.scan(ws.max_bytes, ws.buffers_of)
        tree = ws.store.write_tree()
        timeline.append(Record("backup", tree=tree, changes=scan.changes, skipped=scan.skipped))


def observe_all(
    ws: Workspace, buffers: dict[str, Buffer | None], keep: bool
) -> dict[str, Observed]:
    return {p: ws.store.observe(p, ws.max_bytes, b, keep=keep) for p, b in buffers.items()}


def commit_record(store: CheckpointStore, timeline: Timeline, record: Record) -> None:
    with store.lock:
        for change in record.changes:
            store.record_written(change)
        if record.moved:
            store.forget_look()  # whole folders moved: the next scan asks git
        timeline.append(record)
        store.keep(timeline.path.stem)  # what an undo needs is kept from now on
