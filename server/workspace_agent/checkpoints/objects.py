"""Blobs in the store's object database, written and read without a process per file.

A file the agent just wrote is hashed and stored here in Python (git's loose object
format: zlib of "blob <size>\\0<bytes>"), which costs microseconds where starting git
costs milliseconds. Reading falls back to one long-running `git cat-file --batch` for
objects that have been packed.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
import threading
import zlib
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from .gitcmd import Git, GitError

REGULAR, EXECUTABLE, SYMLINK = "100644", "100755", "120000"
BINARY_SNIFF = 8000
"""Git's rule: a NUL byte in the first 8000 bytes makes a file binary."""


@dataclass(frozen=True)
class Entry:
    """A file's content in the store: its git mode and blob id."""

    mode: str
    sha: str

    def to_disk(self) -> list[str]:
        return [self.mode, self.sha]

    @classmethod
    def from_disk(cls, raw: object) -> Entry | None:
        if raw is None:
            return None
        if not (isinstance(raw, list) and len(raw) == 2):
            raise ValueError(f"bad entry {raw!r}")
        return cls(str(raw[0]), str(raw[1]))


def _freshened(path: Path) -> bool:
    """Whether a loose object exists; its time is set to now, so a prune under way spares
    it (what git does when it finds an object it would have written)."""
    try:
        os.utime(path)
    except FileNotFoundError:
        return False
    except OSError:  # read-only, or not ours: it exists all the same
        return path.exists()
    return True


def blob_id(data: bytes) -> str:
    digest = hashlib.sha1(b"blob %d\0" % len(data))
    digest.update(data)
    return digest.hexdigest()


def is_binary(data: bytes) -> bool:
    return b"\0" in data[:BINARY_SNIFF]


def mode_of(st: os.stat_result) -> str | None:
    """The git mode for a file's lstat, or None for what git does not store (fifos...)."""
    if stat.S_ISLNK(st.st_mode):
        return SYMLINK
    if not stat.S_ISREG(st.st_mode):
        return None
    return EXECUTABLE if st.st_mode & 0o100 else REGULAR


class ObjectStore:
    def __init__(self, git: Git) -> None:
        self._git = git
        self._objects = git.git_dir / "objects"
        self._batch: _CatFile | None = None
        self._lock = threading.Lock()
        self._unwritten: dict[str, bytes] = {}
        """Blobs hashed but not yet on disk: a worker thread writes them (compressing and
        writing a file costs far more than hashing, and nothing needs it at once)."""
        self._writes: list[Future[None]] = []
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="checkpoint-objects")
        self.written = 0
        """Loose objects written since the last repack (drives packing)."""
        self.written_bytes = 0
        """Their content's size, uncompressed (big files: packing makes them deltas)."""
        self.unpruned_bytes = 0
        """Content written since the last prune of everything unreferenced (versions
        between a plan item's checkpoints become garbage at the run's end)."""

    def write_blob(self, data: bytes) -> str:
        """Store `data` as a blob; returns its id at once (see `settle`)."""
        sha = blob_id(data)
        if sha in self._unwritten or _freshened(self._objects / sha[:2] / sha[2:]):
            return sha
        self._unwritten[sha] = data
        with self._lock:
            self._writes.append(self._writer.submit(self._write, sha, data))
        self.written += 1
        self.written_bytes += len(data)
        self.unpruned_bytes += len(data)
        return sha

    def settle(self) -> None:
        """Wait until every blob handed to `write_blob` is on disk (before git reads the
        object database: trees, packing, pruning)."""
        with self._lock:
            writes, self._writes = self._writes, []
        for write in writes:
            write.result()

    def _write(self, sha: str, data: bytes) -> None:
        path = self._objects / sha[:2] / sha[2:]
        try:
            compressed = zlib.compress(b"blob %d\0" % len(data) + data, 1)
            fd, tmp = _temp_file_in(path.parent)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(compressed)
                os.chmod(tmp, 0o444)
                os.replace(tmp, path)
            except BaseException:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(tmp)
                raise
        finally:
            self._unwritten.pop(sha, None)

    def read_blob(self, sha: str) -> bytes:
        unwritten = self._unwritten.get(sha)
        if unwritten is not None:
            return unwritten
        path = self._objects / sha[:2] / sha[2:]
        try:
            raw = zlib.decompress(path.read_bytes())
        except FileNotFoundError:
            return self._read_packed(sha)
        header, _, body = raw.partition(b"\0")
        if not header.startswith(b"blob "):
            raise GitError(f"object {sha} is not a blob")
        return body

    def _read_packed(self, sha: str) -> bytes:
        with self._lock:
            if self._batch is None or not self._batch.alive():
                self._batch = _CatFile(self._git)
            return self._batch.read(sha)

    def close(self) -> None:
        self.settle()
        self._writer.shutdown()
        with self._lock:
            if self._batch is not None:
                self._batch.close()
                self._batch = None


class _CatFile:
    """`git cat-file --batch`: one process answers every read of a packed object."""

    def __init__(self, git: Git) -> None:
        self._proc = git.popen("cat-file", "--batch")

    def alive(self) -> bool:
        return self._proc.poll() is None

    def read(self, sha: str) -> bytes:
        stdin, stdout = self._proc.stdin, self._proc.stdout
        assert stdin is not None and stdout is not None
        try:
            stdin.write(sha.encode() + b"\n")
            stdin.flush()
            header = stdout.readline().split()
        except OSError as exc:
            raise GitError(f"git cat-file stopped: {exc}") from None
        if len(header) != 3:
            raise GitError(f"object {sha} is missing from the checkpoint store")
        if header[1] != b"blob":
            raise GitError(f"object {sha} is a {header[1].decode()}, not a blob")
        data = stdout.read(int(header[2]))
        stdout.read(1)  # the newline after the content
        return data

    def close(self) -> None:
        with contextlib.suppress(OSError):
            if self._proc.stdin:
                self._proc.stdin.close()
        try:
            self._proc.wait(5)
        except Exception:
            self._proc.kill()


def _temp_file_in(folder: Path) -> tuple[int, str]:
    """A temporary file in an object folder, made if missing. A `git prune` or `repack`
    running meanwhile (the upkeep does not hold the store) removes object folders it
    emptied, so the folder can vanish between making it and creating the file in it."""
    for _attempt in range(20):
        folder.mkdir(exist_ok=True)
        try:
            return tempfile.mkstemp(prefix="tmp_obj_", dir=folder)
        except FileNotFoundError:
            continue
    folder.mkdir(exist_ok=True)
    return tempfile.mkstemp(prefix="tmp_obj_", dir=folder)
