"""Read a window of lines from a text file of any size without loading the whole file.

The tail of a file is found by scanning backwards from the end in blocks; a window at a
positive line number is found by counting newlines in blocks. Memory stays at one block
plus the lines returned, whatever the file's size.

Lines end at "\\n" (a "\\r" before it belongs to the line break). The file's format (from
textfile.py) says where its text starts (after a BOM) and how "\\n" is stored: one byte in
UTF-8 and latin-1, where the scans are plain byte searches; two or four bytes in UTF-16 and
UTF-32, where a match counts only at a code-unit boundary (the bytes `0A 00` can also span
two UTF-16 characters).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import BinaryIO

from .textfile import NEW_FILE, TextFormat

BLOCK = 1 << 20
"""Bytes per scan; a multiple of every code unit, so blocks start at unit boundaries."""
COUNT_LIMIT = 256 << 20
"""Files up to this size get an exact line count; beyond it counting would dominate a read."""
LINE_CAP = 4000
"""Characters kept of one line; the rest is cut with a note (minified files, data dumps)."""
LINE_CAP_BYTES = LINE_CAP * 4
"""Bytes read of one line: at least LINE_CAP characters in every encoding."""
WIDE_CHUNK = 4096


@dataclass
class LineWindow:
    raw: list[bytes]
    """The lines as stored, each with its line break, cut to LINE_CAP_BYTES."""
    first: int
    """1-based number of the first line returned; negative (from the end) if total is unknown."""
    total: int | None
    """Lines in the file, or None for a file over COUNT_LIMIT read from the end."""
    too_long: list[bool]
    """Per line: it went on past LINE_CAP_BYTES."""

    def texts(self, encoding: str) -> tuple[list[str], int]:
        """The lines decoded, without line breaks, each at most LINE_CAP characters (plus a
        mark), and how many were cut."""
        lines: list[str] = []
        cut = 0
        for raw, too_long in zip(self.raw, self.too_long, strict=True):
            text = raw.decode(encoding, errors="replace").rstrip("\r\n")
            if too_long or len(text) > LINE_CAP:
                text = text[:LINE_CAP] + " … [line cut]"
                cut += 1
            lines.append(text)
        return lines, cut


def read_window(
    f: BinaryIO, size: int, offset: int, limit: int, fmt: TextFormat = NEW_FILE
) -> LineWindow:
    """Lines [offset, offset+limit) of an open binary file; offset < 0 counts from the end."""
    if offset < 0:
        start, total = _tail_start(f, size, -offset, fmt)
        if total is None and size <= COUNT_LIMIT:
            total = count_lines(f, size, fmt)
        first = offset if total is None else max(1, total + offset + 1)
    else:
        total = count_lines(f, size, fmt) if size <= COUNT_LIMIT else None
        if total is not None and offset > max(total, 1):
            return LineWindow([], offset, total, [])
        start = _line_start(f, size, offset, fmt)
        first = offset
    raw, too_long = _read_lines(f, start, limit, fmt)
    return LineWindow(raw, first, total, too_long)


def count_lines(f: BinaryIO, size: int, fmt: TextFormat = NEW_FILE) -> int:
    """Number of lines: newlines, plus one for a last line without a newline."""
    base, end = _span(size, fmt)
    if end == base:
        return 0
    f.seek(base)
    newlines = 0
    pos = base
    while pos < end and (block := f.read(min(BLOCK, end - pos))):
        newlines += _count_newlines(block, fmt)
        pos += len(block)
    return newlines + (0 if _ends_with_newline(f, end, fmt) else 1)


def _span(size: int, fmt: TextFormat) -> tuple[int, int]:
    """Where the text starts (after the BOM) and ends (at the last whole code unit)."""
    base = min(len(fmt.bom), size)
    return base, base + (size - base) // fmt.unit * fmt.unit


def _ends_with_newline(f: BinaryIO, end: int, fmt: TextFormat) -> bool:
    f.seek(end - fmt.unit)
    return f.read(fmt.unit) == fmt.line_feed


def _count_newlines(block: bytes, fmt: TextFormat) -> int:
    if fmt.unit == 1:
        return block.count(b"\n")
    # Decoding counts only whole code units, at C speed; a replaced malformed unit is
    # never "\n", and no malformed unit swallows the "\n" after it.
    return block.decode(fmt.encoding, errors="replace").count("\n")


def _find_newline(block: bytes, start: int, fmt: TextFormat) -> int:
    """Index of the first "\\n" at or after `start` (a unit boundary), or -1."""
    index = block.find(fmt.line_feed, start)
    while index > 0 and index % fmt.unit:  # the bytes span two code units: not a newline
        index = block.find(fmt.line_feed, index + 1)
    return index


def _tail_start(f: BinaryIO, size: int, wanted: int, fmt: TextFormat) -> tuple[int, int | None]:
    """Byte offset where the `wanted`-th last line starts, and the line count if the scan
    reached the start of the file on the way."""
    base, end = _span(size, fmt)
    if end == base:
        return base, 0
    # The final newline ends the last line; it does not start another one.
    pos = end - fmt.unit if _ends_with_newline(f, end, fmt) else end
    found = 0
    line_feed, unit = fmt.line_feed, fmt.unit
    while pos > base:
        block_start = max(base, pos - BLOCK)
        f.seek(block_start)
        block = f.read(pos - block_start)
        index = len(block)
        while (index := block.rfind(line_feed, 0, index)) >= 0:
            if index % unit:  # the bytes span two code units: not a newline
                index += unit - 1  # look again for one that starts before this match
                continue
            found += 1
            if found == wanted:
                return block_start + index + unit, None
        pos = block_start
    return base, found + 1


def _line_start(f: BinaryIO, size: int, line: int, fmt: TextFormat) -> int:
    """Byte offset where 1-based `line` starts (the end of the text if the file is shorter)."""
    base, end = _span(size, fmt)
    f.seek(base)
    to_skip = line - 1
    pos = base
    while to_skip > 0:
        block = f.read(min(BLOCK, end - pos))
        if not block:
            return pos
        newlines = _count_newlines(block, fmt)
        if newlines < to_skip:
            to_skip -= newlines
            pos += len(block)
            continue
        index = -fmt.unit
        if fmt.unit == 1:  # the common case, one C-speed search per line
            for _ in range(to_skip):
                index = block.index(b"\n", index + 1)
        else:
            for _ in range(to_skip):
                index = _find_newline(block, index + fmt.unit, fmt)
        return pos + index + fmt.unit
    return pos


def _read_lines(
    f: BinaryIO, start: int, limit: int, fmt: TextFormat
) -> tuple[list[bytes], list[bool]]:
    f.seek(start)
    lines: list[bytes] = []
    too_long: list[bool] = []
    while len(lines) < limit:
        raw = _readline(f, LINE_CAP_BYTES, fmt)
        if not raw:
            break
        lines.append(raw)
        too_long.append(not raw.endswith(fmt.line_feed) and _skip_rest_of_line(f, fmt) > 0)
    return lines, too_long


def _readline(f: BinaryIO, cap: int, fmt: TextFormat) -> bytes:
    """The bytes from the current position through the next "\\n", at most `cap` of them."""
    if fmt.unit == 1:
        return f.readline(cap)
    parts: list[bytes] = []
    got = 0
    step = WIDE_CHUNK  # short lines read little; a long one in growing steps
    while got < cap and (chunk := f.read(min(step, cap - got))):
        index = _find_newline(chunk, 0, fmt)
        if index >= 0:
            keep = index + fmt.unit
            f.seek(keep - len(chunk), io.SEEK_CUR)  # give back what follows the line
            parts.append(chunk[:keep])
            break
        parts.append(chunk)
        got += len(chunk)
        step = min(step * 2, BLOCK)
    return b"".join(parts)


def _skip_rest_of_line(f: BinaryIO, fmt: TextFormat) -> int:
    """Skip to the next line; return how many bytes were skipped."""
    skipped = 0
    while chunk := _readline(f, BLOCK, fmt):
        skipped += len(chunk)
        if chunk.endswith(fmt.line_feed):
            break
    return skipped
