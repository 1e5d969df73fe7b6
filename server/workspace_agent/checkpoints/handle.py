"""A workspace's checkpoint store as a run uses it: the store with the lock that keeps its
work in one thread at a time, editor buffers read from that thread, and what a run's
observer needs of the service (`RunCheckpoints`). Its own module so that the observer
(observer.py) and the service that creates it (service.py) need not import each other.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ..shared.documents import Buffer, Documents
from .folder_lock import FolderLock
from .history import Plan, StatsCache, changes_payload
from .live_content import editor_buffer
from .store import CheckpointStore

if TYPE_CHECKING:
    from .. import contract

T = TypeVar("T")


@dataclass
class StoreHandle:
    """A workspace's store with the lock that keeps its work in one thread at a time."""

    store: CheckpointStore
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    stats: StatsCache | None = None
    watched: bool = False
    """A file watcher was started for it (or tried): once per store."""

    def __post_init__(self) -> None:
        self.stats = StatsCache(self.store.objects.read_blob)

    async def run(self, func: Callable[..., T], *args: Any) -> T:
        async with self.lock:
            return await asyncio.to_thread(func, *args)

    def folder_lock(self) -> FolderLock:
        """A new hold on the workspace (folder_lock.py): one changing call at a time."""
        return FolderLock(self.store.folder)

    async def changes(self, session_id: str, plan: Plan) -> contract.Changes:
        """The session's workspaceAgent/changes payload as the store has it now, built in
        the store's thread; `plan`: the session's current plan, (id, text) rows."""

        def build() -> contract.Changes:
            assert self.stats is not None
            return changes_payload(self.store.timeline(session_id), self.stats, plan)

        return await self.run(build)


class RunCheckpoints(Protocol):
    """What the observer of a run uses of the checkpoint service (service.Checkpoints)."""

    active: set[str]
    """Sessions whose runs are going on or ending here: pruning never drops them."""

    def in_background(self, work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]: ...

    def take_notices(self) -> list[str]:
        """What the service has to say to the user (the file watcher's trouble), once."""
        ...

    async def handle(self, root: Path, watch: bool = False) -> StoreHandle: ...


def buffers_on_loop(
    loop: asyncio.AbstractEventLoop, documents: Documents, root: Path
) -> Callable[[Sequence[str]], dict[str, Buffer]]:
    """Read editor buffers from a worker thread: the documents live on the event loop."""

    def buffers_of(paths: Sequence[str]) -> dict[str, Buffer]:
        async def on_loop() -> dict[str, Buffer]:
            found = {p: await editor_buffer(documents, root / p) for p in paths}
            return {p: b for p, b in found.items() if b is not None}

        return asyncio.run_coroutine_threadsafe(on_loop(), loop).result(timeout=30)

    return buffers_of
