"""A file's content as the user sees it right now: the editor's buffer when the file is
open with text that differs from the disk, else the disk.

The agent's edits to open documents go through the editor and reach the disk only when
the document is saved, so a checkpoint that read the disk alone would miss them (and
later see the save as a change made by someone else).
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from ..shared.documents import Buffer, Documents, UserEdit
from ..tools.textfile import NotText, decode, encode
from .objects import SYMLINK, Entry, ObjectStore, blob_id, mode_of


@dataclass(frozen=True)
class Observed:
    """What a path holds now: an entry, nothing (None), or a reason it cannot be stored."""

    entry: Entry | None
    skipped: str | None = None
    size: int = 0
    signature: tuple[int, ...] | None = None
    """The disk file's stat when `entry` was read from it (None: not read from disk)."""
    perm: int | None = None
    """A regular file's permission bits (all of them: git keeps only the executable one)."""
    folder: bool = False
    """A folder is where the file was (a file the step turned into a folder)."""


def observe(
    root: Path,
    path: str,
    max_bytes: int,
    objects: ObjectStore,
    buffer: Buffer | None = None,
    *,
    keep: bool = True,
) -> Observed:
    """Store the current content of `path` (relative, posix) and say what it is; with
    `keep` False the content is only hashed (a dry run stores nothing)."""
    full = root / path
    try:
        st = os.lstat(full)
    except OSError as exc:
        if exc.errno not in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):
            raise
        return Observed(None, signature=ABSENT)
    if "/" in path and through_link(root, path):
        return Observed(None, signature=ABSENT)  # its folder is a link now: not in here
    mode = mode_of(st)
    if mode is None:
        if stat.S_ISDIR(st.st_mode):
            return Observed(None, folder=True)  # a file replaced by a folder: it is gone
        return Observed(None, "not a regular file or symlink")
    if st.st_size > max_bytes:
        return Observed(
            None,
            f"larger than maxFileBytes ({st.st_size:,} bytes > {max_bytes:,}); not checkpointed",
            st.st_size,
        )
    signature: tuple[int, ...] | None = disk_signature(st)
    if mode == SYMLINK:
        data = os.fsencode(os.readlink(full))
    else:
        try:
            data = full.read_bytes()
        except OSError as exc:
            return Observed(None, f"cannot be read: {exc.strerror or exc}")
        if buffer is not None:
            data = _as_in_editor(data, buffer)
            signature = None  # the editor's text may change without the disk changing
    sha = objects.write_blob(data) if keep else blob_id(data)
    perm = None if mode == SYMLINK else stat.S_IMODE(st.st_mode)
    return Observed(Entry(mode, sha), size=st.st_size, signature=signature, perm=perm)


def through_link(root: Path, path: str) -> bool:
    """Whether a folder on the way to `path` is a symbolic link (then `path` is not in the
    workspace's tree: git does not follow links, and neither do reads and writes here)."""
    parts = path.split("/")
    for depth in range(1, len(parts)):
        try:
            if stat.S_ISLNK(os.lstat(root.joinpath(*parts[:depth])).st_mode):
                return True
        except OSError:
            return False
    return False


ABSENT: tuple[int, ...] = ()
"""The signature of a path where no file is."""


def disk_signature(st: os.stat_result) -> tuple[int, ...]:
    """What changes whenever a file's content can have changed (git's stat check)."""
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino, st.st_mode)


def signature_of(path: Path) -> tuple[int, ...]:
    try:
        return disk_signature(os.lstat(path))
    except OSError:  # gone, or its folder is a file or a link loop now
        return ABSENT


async def editor_buffer(documents: Documents, path: Path) -> Buffer | None:
    """The editor's text for a file it holds open, else None (the disk is what counts)."""
    return await documents.buffer(path) if documents.is_open(path) else None


def holds(data: bytes, edit: UserEdit) -> bool:
    """Whether a file's content is the text of the user's edit (line endings aside)."""
    try:
        text, _fmt = decode(data)
    except NotText:
        return False
    return _same_text(text, edit.text)


def _as_in_editor(data: bytes, buffer: Buffer) -> bytes:
    """The bytes the file will have once the editor saves it, when its buffer differs
    from the disk (line endings aside: editors normalise those on load)."""
    try:
        text, fmt = decode(data)
    except NotText:
        return data
    if _same_text(text, buffer.text):
        return data
    try:
        return encode(buffer.text, fmt)
    except NotText:
        return data


def _same_text(a: str, b: str) -> bool:
    return a == b or a.replace("\r\n", "\n") == b.replace("\r\n", "\n")
