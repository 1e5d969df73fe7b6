"""A background command's output on disk: one file per command in its session's folder,
holding the last LOG_CAP bytes, and a small JSON file beside it with what is known of the
command (what it runs, when it started and ended, how, where its reader stands).

Offsets count every byte the command ever wrote, so a reader's place stays valid when
the start of the file is dropped; what was dropped before a reader got to it is said.
Both files outlive the process: after a reload, `bash_output` and the editor's Show
Output read them as they were left. A folder that cannot be written keeps the output in
memory instead (the last MEMORY_CAP bytes), and says so once.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..shared.local_state import make_folder
from .output_buffer import HeadTailBuffer

log = logging.getLogger(__name__)

LOG_CAP = 10 * 1024 * 1024
"""Bytes of output kept per command: the last ones."""
TRIM_AT = LOG_CAP + LOG_CAP // 4
"""The file is cut back to LOG_CAP once it grows this big (not on every write)."""
MEMORY_CAP = 1024 * 1024
READ_CHUNK = 65536
FOLDER = Path(".workspace-agent") / "sessions"
SUFFIX = ".background"


def background_folder(root: Path, session_id: str) -> Path:
    """Where a session's background commands keep their output."""
    safe = "".join(c for c in session_id if c.isalnum() or c in "-_") or "session"
    return root / FOLDER / f"{safe}{SUFFIX}"


class OutputLog:
    def __init__(self, folder: Path, command_id: str) -> None:
        self.path = folder / f"{command_id}.log"
        self.meta_path = folder / f"{command_id}.json"
        self.total = 0
        """Bytes the command wrote, all told (the end offset)."""
        self.dropped = 0
        """Bytes no longer kept, from the start."""
        self.problem: str | None = None
        """Why the output is kept in memory only (None: on disk)."""
        self._file: Any = None
        self._memory = bytearray()
        self._folder = folder

    @classmethod
    def existing(cls, folder: Path, command_id: str) -> OutputLog:
        """The log a command left (after a reload): its offsets from its meta file."""
        found = cls(folder, command_id)
        meta = found.load_meta() or {}
        found.dropped = int(meta.get("dropped", 0))
        try:
            found.total = found.dropped + found.path.stat().st_size
        except OSError:
            found.total = found.dropped
        return found

    def open(self) -> None:
        try:
            make_folder(self._folder)
            self._file = open(self.path, "ab", buffering=0)
        except OSError as exc:
            self.problem = f"its output is kept in memory only (the last 1 MB): {exc}"
            log.warning("background output: %s", self.problem)

    def append(self, data: bytes) -> None:
        if not data:
            return
        self.total += len(data)
        if self._file is None:
            self._memory += data
            if len(self._memory) > MEMORY_CAP:
                cut = len(self._memory) - MEMORY_CAP
                del self._memory[:cut]
                self.dropped += cut
            return
        try:
            self._file.write(data)
            if self.total - self.dropped > TRIM_AT:
                self._trim()
        except OSError as exc:  # a full disk: the rest in memory
            self.problem = f"its output is kept in memory only from here: {exc}"
            self._close_file()
            self.dropped = self.total - len(data)  # what the file holds is left behind
            self._memory = bytearray(data[-MEMORY_CAP:])
            self.dropped += len(data) - len(self._memory)

    def close(self) -> None:
        self._close_file()

    def read(self, since: int, cap: int) -> tuple[str, int, int]:
        """The output from offset `since` to the end, cut in the middle past `cap`
        characters: (text, the end offset, bytes dropped before the reader got there)."""
        start = max(since, self.dropped)
        lost = start - since if since < self.dropped else 0
        buffer = HeadTailBuffer(cap)
        for chunk in self._chunks(start - self.dropped):
            buffer.feed_bytes(chunk)
        buffer.feed_bytes(b"", final=True)
        return buffer.render(), self.total, lost

    def tail(self, lines: int, limit: int = 4096) -> list[str]:
        """The last `lines` lines that are not blank (from the last `limit` bytes)."""
        start = max(self.total - self.dropped - limit, 0)
        data = b"".join(self._chunks(start))
        text = data.decode("utf-8", errors="replace")
        return [line.rstrip() for line in text.splitlines() if line.strip()][-lines:]

    def save_meta(self, meta: dict[str, Any]) -> None:
        """Write what is known of the command (best effort: a full disk costs the reload)."""
        if self._file is None and self.problem:
            return
        meta = {**meta, "dropped": self.dropped}
        tmp = self.meta_path.with_suffix(".json.tmp")
        try:
            make_folder(self._folder)
            tmp.write_text(json.dumps(meta), encoding="utf-8")
            os.replace(tmp, self.meta_path)
        except OSError as exc:
            log.warning("background output: could not save %s: %s", self.meta_path, exc)

    def load_meta(self) -> dict[str, Any] | None:
        try:
            raw = json.loads(self.meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return raw if isinstance(raw, dict) else None

    def _chunks(self, position: int) -> Iterator[bytes]:
        if self._file is None and (self._memory or self.problem):
            yield bytes(self._memory[position:])
            return
        try:
            with open(self.path, "rb") as file:
                file.seek(position)
                while chunk := file.read(READ_CHUNK):
                    yield chunk
        except OSError:
            return

    def _trim(self) -> None:
        """Keep the last LOG_CAP bytes: the tail into a new file, which replaces the old."""
        size = self.total - self.dropped
        tmp = self.path.with_suffix(".log.tmp")
        with open(self.path, "rb") as old, open(tmp, "wb") as new:
            old.seek(size - LOG_CAP)
            while chunk := old.read(READ_CHUNK):
                new.write(chunk)
        os.replace(tmp, self.path)
        self._close_file()
        self._file = open(self.path, "ab", buffering=0)
        self.dropped += size - LOG_CAP

    def _close_file(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None
