"""What front ends ask of one session's checkpoints: its changes, a file as it was before
or after a plan item, a revert (to before an item, the last run's start, or of one item
only), and undoing a revert. Front ends get this object from the session manager
(`SessionManager.checkpoints(session_id)`) and call it directly; every refusal is a
CheckpointError, which each front end reports in its own way, in one place.

A revert or an undo that changed files is told to the conversation (notes.py), so the
model does not count on edits that are gone, and to the user (a `revert` event, which the
history keeps: the conversation shows it with Undo); the session is saved and its new
changes are sent to the front ends.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .. import names
from ..protocol import EVENT_REVERT, FileVersionParams, RevertParams, UndoRevertParams
from ..shared.documents import Documents
from ..shared.errors import CheckpointError
from ..shared.events import SessionEvents
from ..shared.session import Session
from ..tools.textfile import NotText, decode
from .folder_lock import FolderLock
from .gitcmd import GitError
from .handle import StoreHandle, buffers_on_loop
from .history import ItemHistory, find_item, item_name, last_run_anchor, plan_rows
from .notes import only_note, revert_note, undo_note
from .only import revert_only
from .revert import RevertResult, Workspace, revert_to, undo
from .service import Checkpoints
from .timeline import Timeline

if TYPE_CHECKING:
    from .. import contract

FOLDER_WAIT_SECONDS = 10.0
"""How long a revert waits for another task's changing call to end before it refuses."""


@dataclass(frozen=True)
class SessionCheckpoints:
    """One session's checkpoints in its workspace, as front ends use them."""

    service: Checkpoints
    session: Session
    root: Path
    documents: Documents
    """The files as the editor has them: reverts read and restore through it."""
    max_bytes: Callable[[], int]
    """The settings' largest file checkpoints keep (read when a revert needs it)."""
    events: SessionEvents
    save: Callable[[], None]
    """Save the session now, durably (after a revert told the conversation)."""

    async def changes(self) -> contract.Changes:
        """workspaceAgent/changes (without sessionId): per plan item, the files and
        commands, told against the session's current plan (which row shows which item)."""
        if not self.service.has_store(self.root):
            return {"items": [], "runs": [], "lastRun": None, "reverts": []}
        handle = await self.service.handle(self.root)
        return await handle.changes(self.session.id, plan_rows(self.session.todos))

    async def file_version(self, params: FileVersionParams) -> str | None:
        """The text of a file before or after a plan item (None: no file then)."""
        handle = await self._store()
        item = ItemRef(params.todo_id, params.key, params.todo_id_given)
        path, session_id = params.path, self.session.id

        def read() -> bytes | None:
            found = _find(handle.store.timeline(session_id), item)
            history = found.files.get(path) if found else None
            if found is not None and history is None:  # a name given in its readable form
                history = found.files.get(names.from_readable(path) or path)
            if found is None or history is None:
                name = found.name if found else item_name(item.todo_id)
                raise CheckpointError(f"{names.readable(path)} was not changed under {name}")
            entry = history.before if params.side == "before" else history.after
            return None if entry is None else handle.store.objects.read_blob(entry.sha)

        data = await handle.run(read)
        if data is None:
            return None
        try:
            return decode(data)[0]
        except NotText:
            raise CheckpointError(
                f"{names.readable(path)} is a binary file: there is no text to show for it"
            ) from None

    async def revert(self, params: RevertParams) -> contract.RevertOutcome:
        """Restore the files the agent changed from a plan item (or the last run) on, or
        (`only`) take out that item's changes alone (only.py). A dry run only says what
        would be done."""
        self._idle()
        handle = await self._store()
        timeline = await handle.run(handle.store.timeline, self.session.id)
        found: ItemHistory | None = None
        if params.only and params.last_run:
            raise CheckpointError("undoing only one step needs a plan item, not the last run")
        if params.last_run:
            anchor, label = last_run_anchor(timeline), "the start of the last run"
            if anchor is None:
                raise CheckpointError("nothing to revert: no run of this session changed files")
        else:
            item = ItemRef(params.todo_id, params.key, params.todo_id_given)
            found = await handle.run(_find, timeline, item)
            if found is None:
                raise CheckpointError(
                    f"nothing to revert: {item_name(item.todo_id)} made no workspace changes"
                )
            anchor, label = found.anchor, f"before {found.name}"
        folder = await self._hold(handle, params.dry_run)
        try:
            workspace = self._workspace(handle)
            if params.only:
                assert found is not None
                result = await revert_only(
                    workspace, timeline, found, f"only {found.name}", params.dry_run
                )
            else:
                result = await revert_to(
                    workspace, timeline, anchor, label, params.force, params.dry_run
                )
        except GitError as exc:  # the reason, for the user
            raise CheckpointError(str(exc)) from None
        finally:
            folder.release()
        if not params.dry_run and not result.conflicts:  # a conflict: nothing was changed
            note = only_note if params.only else revert_note
            self._tell_user(
                "only" if params.only else "revert",
                result.label,
                found.todo_id if found else None,
                result,
                result.undo_id,
            )
            await self._tell_conversation(note(result.label, result))
        return result.revert_wire()

    async def undo_revert(self, params: UndoRevertParams) -> contract.UndoRevertResult:
        """Put back what a revert took out (`undoId` from its result)."""
        self._idle()
        handle = await self._store()
        timeline = await handle.run(handle.store.timeline, self.session.id)
        folder = await self._hold(handle, params.dry_run)
        try:
            result: RevertResult = await undo(
                self._workspace(handle), timeline, params.undo_id, params.force, params.dry_run
            )
        except GitError as exc:  # the reason, for the user
            raise CheckpointError(str(exc)) from None
        finally:
            folder.release()
        if not params.dry_run:
            target = next(
                (r.target for r in timeline.records if r.undo_id == params.undo_id and r.target),
                "",
            )
            self._tell_user("undo", target, None, result, params.undo_id)
            await self._tell_conversation(undo_note(result))
        return result.undo_wire()

    def _idle(self) -> None:
        if self.session.busy:
            raise CheckpointError(
                f"session {self.session.id} has a run going on; cancel it or wait for it to "
                "finish before reverting (nothing was changed)"
            )

    async def _hold(self, handle: StoreHandle, dry_run: bool) -> FolderLock:
        """The workspace, for a revert that writes (not while another task's command runs:
        its files would read as ours, ours as its)."""
        folder = handle.folder_lock()
        if not dry_run and not await folder.take(timeout=FOLDER_WAIT_SECONDS):
            raise CheckpointError(
                "another task is changing this folder right now (a command of another session "
                "or window runs); revert once it is done (nothing was changed)"
            )
        return folder

    async def _store(self) -> StoreHandle:
        """The store, for a request that needs the session to have checkpoints."""
        if not self.service.has_store(self.root):
            raise CheckpointError(f"session {self.session.id} has no checkpoints")
        return await self.service.handle(self.root)

    def _workspace(self, handle: StoreHandle) -> Workspace:
        loop = asyncio.get_running_loop()
        buffers_of = buffers_on_loop(loop, self.documents, handle.store.root)
        return Workspace(handle.store, self.documents, self.max_bytes(), handle.run, buffers_of)

    def _tell_user(
        self,
        action: contract.RevertAction,
        target: str,
        todo_id: str | None,
        result: RevertResult,
        undo_id: str | None,
    ) -> None:
        """The `revert` event: the conversation shows what was taken back (or put back),
        live and in its history, with Undo while the revert stands."""
        lists = result.wire_lists()
        self.events.emit(
            EVENT_REVERT,
            action=action,
            target=target,
            todoId=todo_id,
            restored=lists["restored"],
            deleted=lists["deleted"],
            skipped=lists["skipped"],
            **({"nonUtf8Names": lists["nonUtf8Names"]} if "nonUtf8Names" in lists else {}),
            undoId=undo_id or "",
        )

    async def _tell_conversation(self, note: str) -> None:
        self.session.add_note(note)
        self.save()
        self.events.changes(await self.changes())


@dataclass(frozen=True)
class ItemRef:
    """A plan item as a front end names it: the `key` of one occurrence (from the changes
    payload), else its `todo_id` (the latest occurrence of that id)."""

    todo_id: str | None
    key: str | None = None
    todo_id_given: bool = True
    """With a key: whether `todo_id` was given too (then it must be the key's)."""


def _find(timeline: Timeline, ref: ItemRef) -> ItemHistory | None:
    found = find_item(timeline, ref.todo_id, ref.key)
    if ref.key is None:
        return found
    if found is None:
        raise CheckpointError(
            f"there is no plan item with key {ref.key!r} in this session "
            "(keys come from workspaceAgent/changes)"
        )
    if ref.todo_id_given and found.todo_id != ref.todo_id:
        raise CheckpointError(f"item key {ref.key!r} is {found.name}, not {item_name(ref.todo_id)}")
    return found
