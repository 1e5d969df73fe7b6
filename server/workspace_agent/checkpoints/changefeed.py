"""What changed in a workspace since a point in time, as a file watcher reported it: the
store's scan asks git about those paths only (fsmonitor.py) instead of `lstat`-ing every
tracked file.

A feed is never trusted blindly. Whatever it cannot vouch for (its queue overflowed, it
hit the watch limit, it cannot watch the file system, a sync that did not come back)
makes the next answer "everything" (None), and a problem that lasts is said once.

The sources: inotify in this process (inotify_feed.py), or the editor's own watcher
through the front end (client_feed.py). Paths are relative to the workspace, with "/";
a folder's own event ends in "/" (git then looks at everything under it).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable

log = logging.getLogger(__name__)

OWN = (".workspace-agent/checkpoints/", ".workspace-agent/sessions/", ".workspace-agent/acp/")
"""The agent's own state (the store's objects and index, the sessions' journals, histories
and outputs, ACP's diffs), written on every run and ignored by git (the folder's own
`.gitignore`): its churn is nobody's change, and no scan need look because of it."""


def own(path: str) -> bool:
    return path.startswith(OWN) or f"{path}/" in OWN or "/.git/" in f"/{path}/"


class ChangeFeed:
    """Paths noted by a watcher, each with the sequence number of its last change."""

    kind = "feed"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seq = 0
        self._changed: dict[str, int] = {}
        self._unknown_before = 1
        """Answers for positions before this are "everything" (an overflow happened, or
        what changed then was forgotten)."""
        self.problem: str | None = None
        """Why this feed cannot be used at all any more (the scans are full)."""
        self.said: Callable[[str], None] = lambda message: log.warning("%s", message)
        """Where a problem is said (once); the service points it at the user."""
        self._told: set[str] = set()

    # -- the watcher's side ---------------------------------------------------------------

    def note(self, paths: Iterable[str]) -> None:
        with self._lock:
            self._seq += 1
            for path in paths:
                if path and not own(path):
                    self._changed[path] = self._seq

    def lost(self, reason: str, say: bool = True) -> None:
        """Changes went unseen (an overflow): the next scan is a full one, said once
        (unless `say` is false: a watcher still starting has nothing to own up to)."""
        with self._lock:
            self._seq += 1
            self._unknown_before = self._seq + 1
        if say:
            self.tell(f"checkpoints: a full scan of this workspace: {reason}")

    def give_up(self, reason: str) -> None:
        """The feed cannot vouch for anything any more: full scans from now on, said once."""
        if self.problem is None:
            self.problem = reason
            self.tell(f"checkpoints: full scans in this workspace: {reason}")
        self.close()

    def tell(self, message: str) -> None:
        if message not in self._told:
            self._told.add(message)
            self.said(message)

    # -- the store's side ---------------------------------------------------------------

    def sync(self) -> None:
        """Take in every event of what happened before this call (subclasses)."""

    def position(self) -> int:
        """Now, as a position that `since` takes later."""
        with self._lock:
            self._seq += 1
            return self._seq

    def since(self, position: int) -> list[str] | None:
        """The paths changed after `position`, or None when that cannot be known."""
        with self._lock:
            if self.problem is not None or position < self._unknown_before:
                return None
            return sorted(p for p, seq in self._changed.items() if seq > position)

    def forget_before(self, position: int) -> None:
        """Nobody will ask about anything before `position` again (keeps memory small)."""
        with self._lock:
            self._changed = {p: s for p, s in self._changed.items() if s > position}
            self._unknown_before = max(self._unknown_before, position)

    @property
    def usable(self) -> bool:
        return self.problem is None

    def close(self) -> None:
        """Stop watching (subclasses)."""
