"""The change feed from inotify (Linux), for front ends whose client does not watch files
for us (the CLI, ACP, an editor without dynamic `didChangeWatchedFiles`).

inotify_simple is a thin ctypes wrapper: we add one watch per folder, drain the queue in
a thread (so a burst between scans rarely overflows it) and, before a scan, once more in
the caller's thread: an event is queued by the kernel when the write happens, so every
change made before `sync` is in hand after it (commands in the sandbox write the same
file system). Chosen over watchdog, which delivers from its own thread with no such
barrier and hides queue overflows (measured: docs/benchmarks.md, issue 51's analysis).

What it cannot vouch for it says: a queue overflow makes the next scan full; the watch
limit, or a file system inotify does not see (network mounts), ends the feed.
"""

from __future__ import annotations

import errno
import os
import select
import threading
from pathlib import Path

from .changefeed import OWN, ChangeFeed

LEAF_COUNTS = {"ext2", "ext3", "ext4", "xfs", "tmpfs", "f2fs", "jfs"}
"""File systems where a folder's link count is 2 + its subfolders: a folder with 2 has
none, and the first walk need not read it (GNU find's leaf optimisation)."""
UNWATCHABLE = {"nfs", "nfs4", "cifs", "smb3", "smbfs", "ncpfs", "afs", "9p", "fuse.sshfs"}
"""File systems where another machine's writes reach no inotify watch."""
LIMIT_REASON = "the file watcher hit its limit — raise fs.inotify.max_user_watches"
OVERFLOW_REASON = "the file watcher's queue overflowed (fs.inotify.max_queued_events)"


class InotifyFeed(ChangeFeed):
    kind = "inotify"

    def __init__(self, root: Path, max_watches: int | None = None) -> None:
        super().__init__()
        from inotify_simple import INotify, flags  # only once a store opens

        self._root = root
        self._max_watches = max_watches
        """A cap of our own below the kernel's (tests: a watch limit of 10)."""
        self._flags = flags
        self._mask = (
            flags.CREATE
            | flags.DELETE
            | flags.MODIFY
            | flags.ATTRIB
            | flags.CLOSE_WRITE
            | flags.MOVED_FROM
            | flags.MOVED_TO
            | flags.DELETE_SELF
            | flags.MOVE_SELF
            | flags.ONLYDIR
            | flags.DONT_FOLLOW
            | flags.EXCL_UNLINK
        )
        self._paths: dict[int, str] = {}
        """Watched folders by watch descriptor: "" is the workspace, "a/b/" a folder."""
        self._wds: dict[str, int] = {}
        self._events = threading.RLock()
        self._stop = False
        self._leaves = False
        fstype = _fs_type(root)
        self._inotify = INotify(nonblocking=True)
        if fstype in UNWATCHABLE:
            self.give_up(f"the file watcher cannot see changes on this file system ({fstype})")
            return
        self._leaves = fstype in LEAF_COUNTS
        self._watch_tree("", collect=False)
        if self.usable:
            self._thread = threading.Thread(target=self._drain_loop, daemon=True)
            self._thread.start()

    @property
    def watches(self) -> int:
        return len(self._wds)

    def sync(self) -> None:
        with self._events:
            if self.usable:
                self._drain()

    def close(self) -> None:
        if self.problem is None:  # silently: nothing to tell, but nothing to trust either
            self.problem = "the file watcher was stopped"
        self._stop = True
        with self._events:
            if not self._inotify.closed:
                self._inotify.close()

    # -- internals -----------------------------------------------------------------------

    def _drain_loop(self) -> None:
        while not self._stop:
            try:
                ready, _, _ = select.select([self._inotify.fileno()], [], [], 0.5)
            except (OSError, ValueError):
                return  # closed
            if ready:
                with self._events:
                    if self._stop or not self.usable:
                        return
                    self._drain()

    def _drain(self) -> None:
        while True:
            try:
                events = self._inotify.read(timeout=0)
            except (OSError, ValueError):
                return
            if not events:
                return
            self._take(events)

    def _take(self, events: list) -> None:  # type: ignore[type-arg]
        flags = self._flags
        noted: list[str] = []
        for event in events:
            if event.mask & flags.Q_OVERFLOW:
                self.note(noted)
                noted = []
                self.lost(OVERFLOW_REASON)
                self._watch_tree("", collect=False)  # folders made meanwhile: watched
                continue
            folder = self._paths.get(event.wd)
            if folder is None:
                continue
            if event.mask & flags.IGNORED:
                self._unwatch(folder, event.wd)
                continue
            if event.mask & (flags.DELETE_SELF | flags.MOVE_SELF):
                if folder == "":
                    self.give_up("the workspace folder itself was moved or deleted")
                    return
                continue  # its parent says so
            path = folder + event.name
            if event.mask & flags.ISDIR:
                noted.append(path + "/")
                if event.mask & (flags.DELETE | flags.MOVED_FROM):
                    self._unwatch_under(path + "/")
                elif event.mask & (flags.CREATE | flags.MOVED_TO):
                    noted += self._watch_tree(path + "/")
                    if not self.usable:
                        return
            else:
                noted.append(path)
        self.note(noted)

    def _watch_tree(self, top: str, collect: bool = True) -> list[str]:
        """Watch `top` ("" or "a/b/") and every folder under it; returns what is in them
        when `collect` (a folder made or moved in: its files may predate its watch)."""
        found: list[str] = []
        folders = [top]
        while folders:
            folder = folders.pop()
            if folder in OWN or _is_git(folder):
                continue
            if not self._watch(folder):
                return found
            where = self._root / folder if folder else self._root
            if not collect and self._leaves and _no_subfolders(where):
                continue  # watched first: a folder made in it now has its event
            try:
                entries = os.scandir(where)
            except OSError:
                continue
            with entries:
                for entry in entries:
                    path = folder + entry.name
                    try:
                        is_dir = entry.is_dir(follow_symlinks=False)
                    except OSError:
                        continue
                    if is_dir:
                        folders.append(path + "/")
                        if collect:
                            found.append(path + "/")
                    elif collect:
                        found.append(path)
        return found

    def _watch(self, folder: str) -> bool:
        if self._max_watches is not None and len(self._wds) >= self._max_watches:
            self.give_up(LIMIT_REASON)
            return False
        try:
            wd = self._inotify.add_watch(self._root / folder if folder else self._root, self._mask)
        except OSError as exc:
            if exc.errno == errno.ENOSPC:
                self.give_up(LIMIT_REASON)
                return False
            return True  # gone already, or not a folder any more: its parent says so
        self._paths[wd] = folder
        self._wds[folder] = wd
        return True

    def _unwatch(self, folder: str, wd: int) -> None:
        if self._wds.get(folder) == wd:
            del self._wds[folder]
        self._paths.pop(wd, None)

    def _unwatch_under(self, prefix: str) -> None:
        """A folder deleted or moved away: its watches (and their names) are stale."""
        for folder in [f for f in self._wds if f.startswith(prefix)]:
            wd = self._wds.pop(folder)
            self._paths.pop(wd, None)
            try:
                self._inotify.rm_watch(wd)
            except OSError:
                pass


def _no_subfolders(folder: Path) -> bool:
    try:
        return os.lstat(folder).st_nlink == 2
    except OSError:
        return False


def _is_git(folder: str) -> bool:
    return folder == ".git/" or folder.endswith("/.git/")


def _fs_type(root: Path) -> str:
    """The type of the file system `root` is on (/proc/self/mounts: the longest mount
    point that contains it)."""
    best, kind = "", ""
    target = str(root)
    try:
        text = Path("/proc/self/mounts").read_text()
    except OSError:
        return ""
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 3:
            continue
        point = fields[1].replace("\\040", " ")
        if (target == point or target.startswith(point.rstrip("/") + "/")) and len(point) > len(
            best
        ):
            best, kind = point, fields[2]
    return kind
