"""The checkpoint service the session manager holds: one store per workspace (opened on
first use), an observer for every run, and the store's upkeep off the runs' path. What
front ends ask of a session's checkpoints is in requests.py.

All blocking work (git, files) runs in a worker thread, one piece at a time per store.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from ..shared.errors import CheckpointError
from ..shared.observers import RunObserver, RunScope
from .gitcmd import GitError, git_problem
from .handle import StoreHandle
from .store import FOLDER, CheckpointStore

log = logging.getLogger(__name__)


class Checkpoints:
    """The workspaces' checkpoint stores, shared by the runs of every session."""

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
