"""What a revert can write, known before it writes anything: a file it cannot put back is
reported (and left alone) instead of failing half-way.

A file is written as a new file renamed over the old one, and deleted by unlinking it, so
what counts is its folder (writable, on a file system that is not read-only) and the file
itself only when it is immutable or append-only (`chattr +i`, `chflags uchg`), which no
rename or unlink passes, not even root's. A file whose folder is now a file (a step turned
`pkg/` into `pkg`) can come back only when that file goes too.
"""

from __future__ import annotations

import contextlib
import os
import stat
import struct
import sys
from pathlib import Path

from .. import names

FS_IOC_GETFLAGS = 0x80086601 if struct.calcsize("l") == 8 else 0x80046601
"""Linux's ioctl for a file's attributes (`lsattr`)."""
FS_IMMUTABLE_FL, FS_APPEND_FL = 0x10, 0x20
BSD_LOCKED = getattr(stat, "UF_IMMUTABLE", 0) | getattr(stat, "SF_IMMUTABLE", 0)
BSD_LOCKED |= getattr(stat, "UF_APPEND", 0) | getattr(stat, "SF_APPEND", 0)


def write_problem(root: Path, path: str, deleting: set[str], replacing: bool) -> str | None:
    """Why `path` (relative) cannot be written, or None. `deleting`: the paths the revert
    deletes first; `replacing`: something stands at `path` now (a file, a link, a folder)."""
    parts = path.split("/")
    folder = root
    for depth in range(1, len(parts)):
        ancestor = "/".join(parts[:depth])
        full = root / ancestor
        try:
            st = os.lstat(full)
        except (FileNotFoundError, NotADirectoryError):
            break  # made with the file
        if not stat.S_ISDIR(st.st_mode):
            if ancestor not in deleting:
                return f"cannot be written: its folder {names.readable(ancestor)} is a file now"
            break  # deleted first, then made a folder again
        folder = full
    problem = folder_problem(root, folder)
    if problem is None and replacing:
        problem = locked_problem(root / path)
    return problem


def delete_problem(root: Path, path: str) -> str | None:
    """Why `path` cannot be deleted, or None."""
    full = root / path
    return folder_problem(root, full.parent) or locked_problem(full)


def folder_problem(root: Path, folder: Path) -> str | None:
    if os.access(folder, os.W_OK | os.X_OK):
        return None
    shown = names.readable(folder.relative_to(root).as_posix()) if folder != root else "."
    with contextlib.suppress(OSError):
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return f"cannot be written: the folder {shown} is on a read-only file system"
    return f"cannot be written: the folder {shown} is read-only for you"


def locked_problem(full: Path) -> str | None:
    if is_locked(full):
        return "cannot be written: it is marked immutable or append-only (chattr +i, chflags)"
    return None


def is_locked(full: Path) -> bool:
    """Whether the file is immutable or append-only (then nobody may replace or delete it)."""
    try:
        st = os.lstat(full)
    except OSError:
        return False
    if stat.S_ISLNK(st.st_mode):
        return False
    flags: int | None = getattr(st, "st_flags", None)  # macOS, the BSDs
    if flags is not None:
        return bool(flags & BSD_LOCKED)
    if not sys.platform.startswith("linux"):
        return False
    import fcntl

    try:
        fd = os.open(full, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError:
        return False  # unreadable: the write itself will tell
    try:
        raw = fcntl.ioctl(fd, FS_IOC_GETFLAGS, bytes(8))
    except OSError:
        return False  # a file system without attributes
    finally:
        os.close(fd)
    flags = int.from_bytes(raw[:4], sys.byteorder)
    return bool(flags & (FS_IMMUTABLE_FL | FS_APPEND_FL))
