"""Checkpoints as the session manager uses them: one store per workspace, an observer for
every run, and the operations front ends offer (changes, file versions, revert, undo).

All blocking work (git, files) runs in a worker thread, one piece at a time per store.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..shared.documents import Documents
from ..shared.observers import RunObserver, RunScope
from ..tools.textfile import NotText, decode
from .gitcmd import GitError, git_problem
from .handle import StoreHandle, buffers_on_loop
from .history import (
    ItemHistory,
    find_item,
    item_name,
    last_run_anchor,
)
from .only import revert_only
from .revert import RevertError, RevertResult, Workspace, revert_to, undo
from .store import FOLDER, CheckpointStore
from .timeline import Timeline

if TYPE_CHECKING:
    from .. import contract

T = TypeVar("T")
log = logging.getLogger(__name__)


class CheckpointError(Exception):
    """A checkpoint operation that cannot be done; the message is for the user."""


class Checkpoints:
    def __init__(self) -> None:
        self._handles: dict[Path, StoreHandle] = {}
        self._opening: dict[Path, asyncio.Lock] = {}
        self._background: set[asyncio.Task[Any]] = set()
        self.active: set[str] = set()
        """Sessions whose runs are going on or ending here: pruning never drops them."""

    def in_background(self, work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Work off a run's critical path (a coalesced changes notification, store
        upkeep after a run: packing, pruning): started now, awaited by `idle`."""
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    async def idle(self) -> None:
        """Wait for the upkeep started so far."""
        while self._background:
            await asyncio.gather(*self._background, return_exceptions=True)

    async def shutdown(self) -> None:
        """Before the process exits: the upkeep done, every object on disk and named by
        the sessions; packed and pruned when many loose objects piled up."""
        await self.idle()
        for handle in list(self._handles.values()):
            try:
                await handle.run(handle.store.leave)
            except (GitError, OSError) as exc:
                log.warning("checkpoint store upkeep failed: %s", exc)

    # -- recording ------------------------------------------------------------------------

    def observer(self, scope: RunScope) -> RunObserver | None:
        """The checkpoint observer of a run (None when checkpoints are off)."""
        from .observer import CheckpointObserver

        if not scope.settings.checkpoints_enabled:
            return None
        return CheckpointObserver(self, scope)

    async def handle(self, root: Path) -> StoreHandle:
        """The store of a workspace, created on first use (CheckpointError if git is
        unusable or the store cannot be made)."""
        root = await asyncio.to_thread(root.resolve)
        if root in self._handles and not self.has_store(root):  # someone deleted it
            self._handles.pop(root).store.close()
        if root in self._handles:
            return self._handles[root]
        async with self._opening.setdefault(root, asyncio.Lock()):
            if root not in self._handles:
                problem = git_problem()
                if problem:
                    raise CheckpointError(f"Checkpoints are off: {problem}.")
                try:
                    store = await asyncio.to_thread(CheckpointStore, root)
                except (GitError, OSError) as exc:
                    raise CheckpointError(f"Checkpoints are off: {exc}") from None
                self._handles[root] = StoreHandle(store)
        return self._handles[root]

    def has_store(self, root: Path) -> bool:
        return (root.resolve() / FOLDER / "repo" / "HEAD").is_file()

    async def _store_of(self, root: Path, session_id: str) -> StoreHandle:
        """The store, for a request about a session that must have checkpoints."""
        if not self.has_store(root):
            raise CheckpointError(f"session {session_id} has no checkpoints")
        return await self.handle(root)

    # -- what front ends ask --------------------------------------------------------------

    async def changes(self, root: Path, session_id: str) -> contract.Changes:
        """workspaceAgent/changes: per plan item, the files and commands."""
        if not self.has_store(root):
            return {"items": [], "runs": [], "lastRun": None, "reverts": []}
        handle = await self.handle(root)
        return await handle.changes(session_id)

    async def file_version(
        self, root: Path, session_id: str, item: ItemRef, path: str, side: str
    ) -> str | None:
        """The text of `path` before or after a plan item (None: no file then)."""
        handle = await self._store_of(root, session_id)

        def read() -> bytes | None:
            found = _find(handle.store.timeline(session_id), item)
            history = found.files.get(path) if found else None
            if found is None or history is None:
                name = found.name if found else item_name(item.todo_id)
                raise CheckpointError(f"{path} was not changed under {name}")
            entry = history.before if side == "before" else history.after
            return None if entry is None else handle.store.objects.read_blob(entry.sha)

        data = await handle.run(read)
        if data is None:
            return None
        try:
            return decode(data)[0]
        except NotText:
            raise CheckpointError(
                f"{path} is a binary file: there is no text to show for it"
            ) from None

    async def revert(
        self,
        root: Path,
        session_id: str,
        item: ItemRef | None,
        *,
        force: bool,
        documents: Documents,
        max_bytes: int,
        dry_run: bool = False,
        only: bool = False,
    ) -> RevertResult:
        """Revert to before a plan item (`item`) or to the start of the last run (None);
        `only`: take out that item's changes alone (only.py)."""
        handle = await self._store_of(root, session_id)
        timeline = await handle.run(handle.store.timeline, session_id)
        found: ItemHistory | None = None
        if only and item is None:
            raise CheckpointError("undoing only one step needs a plan item, not the last run")
        if item is None:
            anchor, label = last_run_anchor(timeline), "the start of the last run"
            if anchor is None:
                raise CheckpointError("nothing to revert: no run of this session changed files")
        else:
            found = await handle.run(_find, timeline, item)
            if found is None:
                raise CheckpointError(
                    f"nothing to revert: {item_name(item.todo_id)} made no workspace changes"
                )
            anchor, label = found.anchor, f"before {found.name}"
        try:
            workspace = _workspace(handle, documents, max_bytes)
            if only:
                assert found is not None
                return await revert_only(workspace, timeline, found, f"only {found.name}", dry_run)
            return await revert_to(workspace, timeline, anchor, label, force, dry_run)
        except (RevertError, GitError) as exc:
            raise CheckpointError(str(exc)) from None

    async def undo_revert(
        self,
        root: Path,
        session_id: str,
        undo_id: str,
        *,
        force: bool,
        documents: Documents,
        max_bytes: int,
        dry_run: bool = False,
    ) -> RevertResult:
        handle = await self._store_of(root, session_id)
        timeline = await handle.run(handle.store.timeline, session_id)
        try:
            workspace = _workspace(handle, documents, max_bytes)
            return await undo(workspace, timeline, undo_id, force, dry_run)
        except (RevertError, GitError) as exc:
            raise CheckpointError(str(exc)) from None


def _workspace(handle: StoreHandle, documents: Documents, max_bytes: int) -> Workspace:
    buffers_of = buffers_on_loop(asyncio.get_running_loop(), documents, handle.store.root)
    return Workspace(handle.store, documents, max_bytes, handle.run, buffers_of)


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
