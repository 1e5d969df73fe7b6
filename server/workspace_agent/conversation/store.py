"""A session's history on disk: `<id>.history.jsonl` next to its session file, one entry
per line, appended as the runs go, and `<id>.outputs.jsonl` with the whole output of the
tool calls whose entry shows only its head and tail, and `<id>.images/` with the images the
prompts carried, one file each (`<seq>-<index>`, its bytes as they were sent), and those
tool results carried (`t-<toolUseId>-<index>`), so a view can show them again
(workspaceAgent/historyImage, workspaceAgent/toolImage) while a page carries only their
records.

Entries are never rewritten, so an entry's `seq` (its line number from 0) is stable and a
page is a range of lines. The byte offset of every line is kept in memory once the file
was read (a 10,000-message session is one scan of its file, then each page reads only its
own lines); a file that changed behind our back (its size is not what we wrote) is
scanned again. A half-written last line (a crash mid-write) is cut off before the next
append, and never served.
"""

from __future__ import annotations

import bisect
import itertools
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import names
from ..agent.store import FOLDER
from ..shared.local_state import make_folder

log = logging.getLogger(__name__)

HISTORY_SUFFIX = ".history.jsonl"
OUTPUTS_SUFFIX = ".outputs.jsonl"
IMAGES_SUFFIX = ".images"
RUN_START_KEY = b'"kind":"runStart"'
"""How a runStart entry's kind reads in its line (`_line`'s separators)."""


@dataclass
class _Index:
    """Where each complete line of a history file starts, and where the last one ends."""

    starts: list[int] = field(default_factory=list)
    end: int = 0
    size: int = 0
    """The file's size as last seen (more than `end` when the last line is torn)."""
    last_run: int = 0
    """The `run` of the last entry (the next runStart is run last_run + 1)."""
    run_starts: list[int] = field(default_factory=list)
    """The seqs of the lines that may be runStart entries (their bytes hold RUN_START_KEY;
    `run_start_before` parses one before it trusts it)."""


class HistoryFile:
    """The history of one session."""

    def __init__(self, folder: Path, session_id: str) -> None:
        self.path = folder / f"{session_id}{HISTORY_SUFFIX}"
        self.outputs_path = folder / f"{session_id}{OUTPUTS_SUFFIX}"
        self.images_path = folder / f"{session_id}{IMAGES_SUFFIX}"
        self._index: _Index | None = None

    def exists(self) -> bool:
        return self.path.is_file()

    @property
    def total(self) -> int:
        return len(self._indexed().starts)

    @property
    def last_run(self) -> int:
        return self._indexed().last_run

    def append(self, entries: list[dict[str, Any]]) -> None:
        """Add entries (each with its `seq` and `run` set by the caller)."""
        index = self._indexed()
        lines = [_line(entry) for entry in entries]
        make_folder(self.path.parent)
        with self.path.open("ab") as f:
            if f.tell() != index.end:  # a torn last line, or a file shorter than we knew
                f.truncate(index.end)
                f.seek(index.end)
            f.write(b"".join(lines))
            f.flush()
        offset = index.end
        for entry, line in zip(entries, lines, strict=True):
            if entry.get("kind") == "runStart":
                index.run_starts.append(len(index.starts))
            index.starts.append(offset)
            offset += len(line)
        index.end = index.size = offset
        index.last_run = int(entries[-1].get("run", index.last_run)) if entries else index.last_run

    def add_output(self, tool_use_id: str, text: str) -> None:
        make_folder(self.outputs_path.parent)
        with self.outputs_path.open("ab") as f:
            f.write(_line({"toolUseId": tool_use_id, "text": text}))

    def add_image(self, seq: int, index: int, raw: bytes) -> None:
        """Keep the `index`-th image of entry `seq` (written whole, then renamed: a crash
        leaves no half an image)."""
        self.images_path.mkdir(parents=True, exist_ok=True)
        path = self.images_path / f"{seq}-{index}"
        part = path.with_name(f"{path.name}.part")
        part.write_bytes(raw)
        part.replace(path)

    def add_tool_image(self, tool_use_id: str, index: int, raw: bytes) -> None:
        """Keep the `index`-th image of the result of `tool_use_id` (`t-<id>-<index>`)."""
        self.images_path.mkdir(parents=True, exist_ok=True)
        path = self.images_path / _tool_image_name(tool_use_id, index)
        part = path.with_name(f"{path.name}.part")
        part.write_bytes(raw)
        part.replace(path)

    def tool_image(self, tool_use_id: str, index: int) -> bytes | None:
        """The bytes of the `index`-th image of the result of `tool_use_id`; None when the
        history did not keep it."""
        try:
            return (self.images_path / _tool_image_name(tool_use_id, index)).read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            return None

    def image(self, seq: int, index: int) -> bytes | None:
        """The bytes of the `index`-th image of entry `seq`; None when it was not kept."""
        try:
            return (self.images_path / f"{seq}-{index}").read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            return None

    def page(self, before: int, limit: int) -> list[dict[str, Any]]:
        """Entries seq max(0, before - limit) .. before - 1, in order."""
        index = self._indexed()
        first = max(0, before - limit)
        if first >= before:
            return []
        start = index.starts[first]
        end = index.starts[before] if before < len(index.starts) else index.end
        with self.path.open("rb") as f:
            f.seek(start)
            data = f.read(end - start)
        return [json.loads(line) for line in data.splitlines()]

    def run_start_before(self, entry: dict[str, Any]) -> dict[str, Any] | None:
        """The runStart entry of the run `entry` (a page's first) is part of, when it comes
        before it; None when `entry` is a runStart, comes between runs (a revert) or has none.
        Found through the index (no scan back over a long run's entries)."""
        if entry.get("kind") in ("runStart", "revert") or not isinstance(entry.get("seq"), int):
            return None
        index = self._indexed()
        at = bisect.bisect_left(index.run_starts, entry["seq"])
        for seq in reversed(index.run_starts[:at]):
            (candidate,) = self.page(seq + 1, 1)
            if candidate.get("kind") == "runStart":  # not a tool's input that reads the same
                return candidate if candidate.get("run") == entry.get("run") else None
        return None

    def output(self, tool_use_id: str) -> str | None:
        """The whole output of a tool call: from the outputs file, else its entry (whose
        output was short enough to be shown whole); None when no call has that id."""
        needle = json.dumps(tool_use_id).encode("utf-8")
        for path in (self.outputs_path, self.path):
            try:
                data = path.read_bytes()
            except FileNotFoundError:
                continue
            for line in reversed(data.splitlines()):
                if needle not in line:
                    continue
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if record.get("toolUseId") != tool_use_id:
                    continue
                if path == self.outputs_path:
                    return str(record["text"])
                if record.get("kind") == "toolResult":
                    return str(record.get("output", ""))
        return None

    def _indexed(self) -> _Index:
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            size = 0
        if self._index is None or size != self._index.size:  # new to us, or changed
            self._index = _scan(self.path)
        return self._index


def history_folder(root: Path) -> Path:
    """Where the session files (and so the histories) of a workspace live."""
    return root / FOLDER


def _tool_image_name(tool_use_id: str, index: int) -> str:
    """A file name for any id (the model's ids are `toolu_...`; others are hex-escaped)."""
    safe = "".join(
        c if c.isascii() and (c.isalnum() or c in "_-") else f".{ord(c):x}." for c in tool_use_id
    )
    return f"t-{safe}-{index}"


def _line(entry: dict[str, Any]) -> bytes:
    """One history line (a name that is not UTF-8 in its readable form, names.py)."""
    text = json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n"
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _line(names.scrubbed(entry))


def _scan(path: Path) -> _Index:
    """The index of a history file: one pass over its bytes."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return _Index()
    end = data.rfind(b"\n") + 1  # a torn last line is not part of the history
    lengths = [len(line) + 1 for line in data[: end - 1].split(b"\n")] if end else []
    starts = [0, *itertools.accumulate(lengths)][:-1]
    index = _Index(starts, end, len(data))
    at = data.find(RUN_START_KEY, 0, end)
    while at != -1:  # each line that may be a runStart, once
        seq = bisect.bisect_right(starts, at) - 1
        if not index.run_starts or index.run_starts[-1] != seq:
            index.run_starts.append(seq)
        at = data.find(RUN_START_KEY, at + len(RUN_START_KEY), end)
    if starts:
        try:
            index.last_run = int(json.loads(data[starts[-1] : end]).get("run", 0))
        except ValueError:
            log.warning("%s: the last entry does not parse", path.name)
    return index
