"""Many files stored at once (the first scan of a workspace that is not a git repository,
a huge untracked folder, what an install or a generator wrote): each file is read here and
handed to one `git fast-import`, which writes them all into one pack.

Why fast-import: `git hash-object -w` writes a loose object file per blob. On 20,000 small
files fast-import took 2.7 s where hash-object took 9.7 s, and its pack (with deltas) was
5.7 MB where the loose objects were 80 MB. Reading the files here also tells how far the
work is, for the progress the user sees (`Progress`).

A pack is safe from a concurrent `git repack -a -d` (another process's upkeep) only once the
index names its objects: until the caller has written the index, the pack carries a `.keep`
file, which every repack leaves alone (`BulkStore.release`).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

from .gitcmd import Git, GitError
from .live_content import Observed
from .objects import EXECUTABLE, REGULAR, Entry

Progress = Callable[[int, int], None]
"""Called with (files stored so far, files to store): at the start, now and then, and once
at the end."""
REPORT_EVERY = 0.25
"""Seconds between progress reports."""


class BulkStore:
    """Stores many regular files in one pack; `release` once the index names them."""

    def __init__(self, git: Git, root: Path) -> None:
        self._git = git
        self._root = root
        self._pack_folder = git.git_dir / "objects" / "pack"
        self._keeps: list[Path] = []

    def store(
        self, paths: list[str], max_bytes: int, progress: Progress | None = None
    ) -> dict[str, Observed]:
        """The entries of the paths (regular files up to `max_bytes` when listed); one
        that is something else by the time it is read is left out, for the caller to
        look at again."""
        self._pack_folder.mkdir(parents=True, exist_ok=True)
        packs_before = set(self._pack_folder.glob("*.pack"))
        observed: dict[str, Observed] = {}
        marks: dict[int, tuple[str, str, int]] = {}  # mark -> (path, mode, permission bits)
        with tempfile.TemporaryDirectory(dir=self._git.git_dir, prefix="bulk-") as tmp:
            marks_file, errors_file = Path(tmp) / "marks", Path(tmp) / "errors"
            with open(errors_file, "wb") as errors:
                marks_arg = f"--export-marks={marks_file}"
                proc = self._git.writer("fast-import", "--quiet", marks_arg, stderr=errors)
                assert proc.stdin is not None
                try:
                    self._feed(proc.stdin, paths, max_bytes, marks, progress)
                finally:
                    with contextlib.suppress(BrokenPipeError):
                        proc.stdin.close()
                    code = proc.wait()
            if code != 0:
                message = errors_file.read_text("utf-8", "replace").strip() or f"exit {code}"
                raise GitError(f"git fast-import failed: {message}")
            for line in marks_file.read_text("ascii").splitlines() if marks else ():
                mark, sha = line.split()
                path, mode, perm = marks[int(mark[1:])]
                observed[path] = Observed(Entry(mode, sha), perm=perm)
        for pack in set(self._pack_folder.glob("*.pack")) - packs_before:
            keep = pack.with_suffix(".keep")
            keep.write_bytes(b"")
            self._keeps.append(keep)
        return observed

    def release(self) -> None:
        """The index names the objects now: packing may take the pack in."""
        for keep in self._keeps:
            with contextlib.suppress(FileNotFoundError):
                keep.unlink()
        self._keeps.clear()

    def _feed(
        self,
        sink: IO[bytes],
        paths: list[str],
        max_bytes: int,
        marks: dict[int, tuple[str, str, int]],
        progress: Progress | None,
    ) -> None:
        write = sink.write
        total = len(paths)
        if progress is not None:
            progress(0, total)  # storing begins: how much there is
        reported = time.monotonic()
        for done, path in enumerate(paths, 1):
            read = _read_regular(self._root / path, max_bytes)
            if read is not None:
                data, mode, perm = read
                marks[done] = (path, mode, perm)
                write(b"blob\nmark :%d\ndata %d\n" % (done, len(data)))
                write(data)
                write(b"\n")
            if progress is not None and time.monotonic() - reported >= REPORT_EVERY:
                reported = time.monotonic()
                progress(done, total)
        if progress is not None:
            progress(total, total)


def _read_regular(path: Path, max_bytes: int) -> tuple[bytes, str, int] | None:
    """The content, git mode and permission bits of a regular file of at most
    `max_bytes`, read without following a symlink; None when it is not that (any more)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > max_bytes:
            return None
        chunks, size = [], 0
        while chunk := os.read(fd, max(st.st_size, 1 << 16)):
            chunks.append(chunk)
            size += len(chunk)
            if size > max_bytes:
                return None
        mode = EXECUTABLE if st.st_mode & 0o100 else REGULAR
        return b"".join(chunks), mode, stat.S_IMODE(st.st_mode)
    except OSError:
        return None
    finally:
        os.close(fd)
