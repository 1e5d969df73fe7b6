"""The checkpoint service the session manager holds: one store per workspace (opened on
first use), an observer for every run, and the store's upkeep off the runs' path. What
front ends ask of a session's checkpoints is in requests.py.

All blocking work (git, files) runs in a worker thread, one piece at a time per store.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..shared.errors import CheckpointError
from ..shared.observers import RunObserver, RunScope
from .gitcmd import GitError, git_problem
from .handle import StoreHandle
from .store import FOLDER, CheckpointStore

if TYPE_CHECKING:
    from .changefeed import ChangeFeed

log = logging.getLogger(__name__)

VERIFY_EVERY = 180.0
"""Seconds between two verification scans of an idle store (a full scan beside the
watcher's: what it missed is logged and counted, and the next scan is full)."""

FeedFactory = Callable[[Path], Awaitable["ChangeFeed | None"]]
"""Where a store opened for a workspace learns what changes in it (None: nowhere)."""


async def inotify_feed(root: Path) -> ChangeFeed | None:
    """inotify in this process (Linux), set up in a thread: one watch per folder."""
    try:
        from .inotify_feed import InotifyFeed
    except (ImportError, OSError, AttributeError) as exc:  # no inotify here (macOS)
        log.info("checkpoints: no file watcher (%s): every scan looks at everything", exc)
        return None
    try:
        return await asyncio.to_thread(InotifyFeed, root)
    except OSError as exc:  # no inotify instance left (fs.inotify.max_user_instances)
        log.warning("checkpoints: no file watcher: %s", exc)
        return None


class Checkpoints:
    """The workspaces' checkpoint stores, shared by the runs of every session."""

    def __init__(self) -> None:
        self._handles: dict[Path, StoreHandle] = {}
        self._opening: dict[Path, asyncio.Lock] = {}
        self._background: set[asyncio.Task[Any]] = set()
        self.active: set[str] = set()
        """Sessions whose runs are going on or ending here: pruning never drops them."""
        self.feeds: FeedFactory = inotify_feed
        """What watches a workspace once its store opens: inotify, or the editor's own
        watcher when the client offers it (lsp/file_watch.py)."""
        self._notices: deque[str] = deque()
        self._verifying: dict[Path, asyncio.Task[None]] = {}

    def take_notices(self) -> list[str]:
        out = []
        while self._notices:
            out.append(self._notices.popleft())
        return out

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
        for task in self._verifying.values():
            task.cancel()
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

    async def handle(self, root: Path, watch: bool = False) -> StoreHandle:
        """The store of a workspace, created on first use (CheckpointError if git is
        unusable or the store cannot be made). `watch`: a run's (setting
        checkpoints.watchFiles): its scans learn what changed from a file watcher."""
        root = await asyncio.to_thread(root.resolve)
        if root in self._handles and not self.has_store(root):  # someone deleted it
            self._handles.pop(root).store.close()
            verifying = self._verifying.pop(root, None)
            if verifying is not None:
                verifying.cancel()
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
        handle = self._handles[root]
        if watch and not handle.watched:
            handle.watched = True
            await self._watch(handle)
        return handle

    async def _watch(self, handle: StoreHandle) -> None:
        """Nothing is watched until a store opens; then its scans ask the watcher."""
        feed = await self.feeds(handle.store.root)
        if feed is None:
            return
        feed.said = self._say
        if feed.problem is not None:  # said already, before `said` was ours
            self._notices.append(f"checkpoints: full scans in this workspace: {feed.problem}")
            return
        await handle.run(handle.store.watch, feed)
        root = handle.store.root
        self._verifying[root] = asyncio.ensure_future(self._verify_now_and_then(handle))

    def _say(self, message: str) -> None:
        log.warning("%s", message)
        self._notices.append(message)

    async def _verify_now_and_then(self, handle: StoreHandle) -> None:
        """While no run goes on: a full scan beside the watcher's, at most every few
        minutes (store.verify)."""
        while True:
            await asyncio.sleep(VERIFY_EVERY)
            if self.active or handle.lock.locked():
                continue
            try:
                await handle.run(handle.store.verify)
            except (GitError, OSError) as exc:
                log.warning("checkpoints: the verification scan failed: %s", exc)

    def has_store(self, root: Path) -> bool:
        return (root.resolve() / FOLDER / "repo" / "HEAD").is_file()
