"""Read a window of lines from a text file of any size without loading the whole file.

The tail of a file is found by scanning backwards from the end in blocks; a window at a
positive line number is found by counting newlines in blocks. Memory stays at one block
plus the lines returned, whatever the file's size.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import BinaryIO

BLOCK = 1 << 20
COUNT_LIMIT = 256 << 20
"""Files up to this size get an exact line count; beyond it counting would dominate a read."""
LINE_CAP = 4000
"""Characters kept of one line; the rest is cut with a note (minified files, data dumps)."""


@dataclass
class LineWindow:
    lines: list[str]
    first: int
    """1-based number of the first line returned; negative (from the end) if total is unknown."""
    total: int | None
    """Lines in the file, or None for a file over COUNT_LIMIT read from the end."""
    long_lines_cut: int = 0


def read_window(f: BinaryIO, size: int, offset: int, limit: int) -> LineWindow:
    """Lines [offset, offset+limit) of an open binary file; offset < 0 counts from the end."""
    if offset < 0:
        start, total = _tail_start(f, size, -offset)
        if total is None and size <= COUNT_LIMIT:
            total = count_lines(f, size)
        first = offset if total is None else max(1, total + offset + 1)
    else:
        total = count_lines(f, size) if size <= COUNT_LIMIT else None
        if total is not None and offset > max(total, 1):
            return LineWindow([], offset, total)
        start = _line_start(f, offset)
        first = offset
    lines, cut = _read_lines(f, start, limit)
    return LineWindow(lines, first, total, cut)


def count_lines(f: BinaryIO, size: int) -> int:
    """Number of lines: newlines, plus one for a last line without a newline."""
    if size == 0:
        return 0
    f.seek(0)
    newlines = 0
    while block := f.read(BLOCK):
        newlines += block.count(b"\n")
    f.seek(size - 1)
    return newlines + (0 if f.read(1) == b"\n" else 1)


def _tail_start(f: BinaryIO, size: int, wanted: int) -> tuple[int, int | None]:
    """Byte offset where the `wanted`-th last line starts, and the line count if the scan
    reached the start of the file on the way."""
    if size == 0:
        return 0, 0
    f.seek(size - 1)
    end = size - 1 if f.read(1) == b"\n" else size  # the final newline ends the last line
    found = 0
    pos = end
    while pos > 0:
        block_start = max(0, pos - BLOCK)
        f.seek(block_start)
        block = f.read(pos - block_start)
        index = len(block)
        while (index := block.rfind(b"\n", 0, index)) >= 0:
            found += 1
            if found == wanted:
                return block_start + index + 1, None
        pos = block_start
    return 0, found + 1


def _line_start(f: BinaryIO, line: int) -> int:
    """Byte offset where 1-based `line` starts (the file size if the file is shorter)."""
    f.seek(0)
    to_skip = line - 1
    pos = 0
    while to_skip > 0:
        block = f.read(BLOCK)
        if not block:
            return pos
        newlines = block.count(b"\n")
        if newlines < to_skip:
            to_skip -= newlines
            pos += len(block)
            continue
        index = -1
        for _ in range(to_skip):
            index = block.index(b"\n", index + 1)
        return pos + index + 1
    return pos


def _read_lines(f: BinaryIO, start: int, limit: int) -> tuple[list[str], int]:
    f.seek(start)
    lines: list[str] = []
    cut = 0
    cap_bytes = LINE_CAP * 4
    while len(lines) < limit:
        raw = f.readline(cap_bytes)
        if not raw:
            break
        too_long = not raw.endswith(b"\n") and _skip_rest_of_line(f) > 0
        text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        if too_long or len(text) > LINE_CAP:
            text = text[:LINE_CAP] + " … [line cut]"
            cut += 1
        lines.append(text)
    return lines, cut


def _skip_rest_of_line(f: BinaryIO) -> int:
    """Skip to the next line; return how many bytes were skipped."""
    skipped = 0
    while chunk := f.readline(BLOCK):
        skipped += len(chunk)
        if chunk.endswith(b"\n"):
            break
    return skipped
