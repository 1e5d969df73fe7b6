"""A stat snapshot of a small work tree: when nothing in it changed since the last scan,
the scan need not start git.

Most commands an agent runs change no file (tests, searches, listings). In a small
workspace a few hundred `lstat` calls cost less than starting `git status`; past LIMIT
entries git's own scan is cheaper and this stays out of the way.

Why a matching snapshot proves nothing changed: writing a file changes its ctime (which no
tool can set back) and size or mtime; creating, deleting or renaming an entry changes its
folder's mtime and ctime. Everything is compared, ignored folders included (a change there
only costs a real scan); `.git` folders and the store's own folder are left out.
"""

from __future__ import annotations

import os
from pathlib import Path

LIMIT = 500
"""Entries (files, folders, links) above which the snapshot is not kept."""

Signature = tuple[int, ...]
Snapshot = dict[str, Signature]


def signature(st: os.stat_result) -> Signature:
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino, st.st_mode)


class QuickLook:
    def __init__(self, root: Path, skip: str) -> None:
        self._root = root
        self._skip = skip
        """The store's top-level folder (".workspace-agent"): our own writes go there."""
        self.snapshot: Snapshot | None = None
        """The tree as the last scan saw it (None: not known, or too large)."""

    def take(self) -> Snapshot | None:
        """The tree now, or None when it has more than LIMIT entries."""
        found: Snapshot = {}
        folders = [""]
        while folders:
            folder = folders.pop()
            try:
                entries = os.scandir(self._root / folder if folder else self._root)
            except OSError:
                continue
            with entries:
                for entry in entries:
                    if entry.name == ".git" or (not folder and entry.name == self._skip):
                        continue
                    path = f"{folder}/{entry.name}" if folder else entry.name
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    found[path] = signature(st)
                    if len(found) > LIMIT:
                        return None
                    if entry.is_dir(follow_symlinks=False):
                        folders.append(path)
        return found

    def unchanged(self, now: Snapshot | None) -> bool:
        return now is not None and now == self.snapshot

    def touched(self, path: str) -> None:
        """The agent wrote or removed `path` itself: its entry and its folders' entries
        follow, so the next look does not take that for a change made by someone else."""
        if self.snapshot is None:
            return
        parts = path.split("/")
        for end in range(len(parts), 0, -1):
            relative = "/".join(parts[:end])
            try:
                self.snapshot[relative] = signature(os.lstat(self._root / relative))
            except OSError:
                self.snapshot.pop(relative, None)
        if len(self.snapshot) > LIMIT:
            self.snapshot = None
