"""The change feed from the editor's own file watcher: the front end registers
`workspace/didChangeWatchedFiles` for the workspace and hands the events in here, so no
second watcher runs beside the editor's.

The editor's events come late (another process watches, batches and sends them), so a
scan first writes a cookie file into the store's folder and waits for its event: events
come in order, so everything written before the cookie is in hand once it is. A cookie
that does not come back in time makes that scan full (said, once the editor has answered
before: until then its watcher may still be starting); three in a row give the feed up
and every later scan is full (said once).

The events do not say whether a path is a folder: a deleted path is given to git both
ways, and a created or changed one that is a folder is read (what is in it may predate
any event).
"""

from __future__ import annotations

import os
import threading
import uuid
from pathlib import Path

from .changefeed import ChangeFeed

COOKIE_WAIT = 2.0
"""Seconds a scan waits for its cookie's event."""
MISSES_BEFORE_GIVING_UP = 3
"""Cookies in a row that may not come back before the feed is given up (one late batch
of a busy editor costs one full scan, not the session's)."""
COOKIES = Path(".workspace-agent") / "checkpoints" / "cookies"


class ClientFeed(ChangeFeed):
    kind = "editor"

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root
        self._cookies = root / COOKIES
        self._cookies.mkdir(parents=True, exist_ok=True)
        self._prefix = f"{COOKIES.as_posix()}/{uuid.uuid4().hex[:8]}-"
        self._count = 0
        self._arrived = threading.Condition()
        self._seen = 0
        self._raw: dict[str, bool] = {}
        """Paths the editor reported since the last sync, and whether deleted."""
        self._closed = False
        self._answered = False
        """Whether a cookie ever came back: the editor starts its watcher when it gets the
        registration, so the first cookies may be written before it watches."""
        self._misses = 0

    def events(self, changes: list[tuple[str, bool]]) -> None:
        """Events from the editor (on the event loop, so nothing is read here): (relative
        path, deleted)."""
        cookie = 0
        with self._arrived:
            for path, deleted in changes:
                if path.startswith(self._prefix):
                    number = path[len(self._prefix) :]
                    if number.isdigit():
                        cookie = max(cookie, int(number))
                else:
                    self._raw[path] = deleted
            if cookie:
                self._seen = max(self._seen, cookie)
                self._arrived.notify_all()

    def sync(self) -> None:
        if self._closed:
            return
        self._count += 1
        number = self._count
        cookie = self.root / f"{self._prefix}{number}"
        cookie.write_bytes(b"")
        try:
            with self._arrived:
                came = self._arrived.wait_for(lambda: self._seen >= number, COOKIE_WAIT)
        finally:
            cookie.unlink(missing_ok=True)
        self._take()
        if came:
            self._answered, self._misses = True, 0
            return
        # This scan cannot know what the late events hold: a full one. A watcher that never
        # answers is given up (a scan must not wait for it every time), said once.
        self._misses += 1
        reason = f"the editor's file watcher did not answer within {COOKIE_WAIT:g} s"
        if self._misses >= MISSES_BEFORE_GIVING_UP:
            self.give_up(reason)
        else:
            self.lost(reason, say=self._answered)

    def _take(self) -> None:
        with self._arrived:
            raw, self._raw = self._raw, {}
        paths: list[str] = []
        for path, deleted in raw.items():
            paths.append(path)
            if deleted:
                paths.append(path + "/")
            elif os.path.isdir(self.root / path) and not os.path.islink(self.root / path):
                paths.append(path + "/")
                paths += _inside(self.root, path)
        self.note(paths)

    def close(self) -> None:
        if self.problem is None:  # silently: nothing to tell, but nothing to trust either
            self.problem = "the editor's file watcher was stopped"
        self._closed = True


def _inside(root: Path, folder: str) -> list[str]:
    found: list[str] = []
    for top, dirs, files in os.walk(root / folder):
        dirs[:] = [d for d in dirs if d != ".git"]
        relative = os.path.relpath(top, root).replace(os.sep, "/")
        found += [f"{relative}/{d}/" for d in dirs] + [f"{relative}/{f}" for f in files]
    return found
