"""Offsets into a text and LSP positions, converted by the LSP rules (for every adapter).

In LSP a line ends only at "\\n", "\\r\\n" or "\\r", not at the other breaks that
`str.splitlines` knows (\\v, \\f, \\x1c-\\x1e, \\x85, U+2028, U+2029), and `character`
counts code units of the position encoding the client and server agreed on: UTF-16
unless it is utf-8 or utf-32. A character past the end of its line means the line's end,
a line past the last line means the end of the text. There is no position between the
"\\r" and the "\\n" of a "\\r\\n".

`LineIndex` keeps where every line starts (an array built at C speed), so a conversion
is a binary search plus the length of one line, and an edit updates the table instead
of scanning the whole text again.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from itertools import accumulate
from typing import NamedTuple

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"
ENCODINGS = (UTF16, UTF8, UTF32)
"""The position encodings LSP defines (UTF-16 is the default every client supports)."""


class Position(NamedTuple):
    line: int
    character: int


def _utf16_units(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-16-le", "surrogatepass")) // 2


def _utf8_units(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


_UNITS: dict[str, Callable[[str], int]] = {UTF8: _utf8_units, UTF16: _utf16_units, UTF32: len}
_CHUNK = 256
"""Characters whose code units are counted at once when walking a long line."""
_BLOCK = 2048
"""Line starts per block of a LineIndex."""


class LineIndex:
    """A text and where each of its lines starts, for conversions in one encoding.

    The line starts are kept in blocks of at most `_BLOCK` lines: an edit recomputes the
    blocks it touches and moves the later blocks by the change of length (one number per
    block), so typing into a large document costs about the copy of its text."""

    __slots__ = ("_bases", "_blocks", "_firsts", "_units", "encoding", "text")

    def __init__(self, text: str, encoding: str = UTF16) -> None:
        if encoding not in _UNITS:
            raise ValueError(f"unknown position encoding {encoding!r}")
        self.text = text
        self.encoding = encoding
        self._units = _UNITS[encoding]
        self._blocks: list[array[int]] = []
        """Line starts, block by block; block i's are off by _bases[i] - block[0]."""
        self._bases: list[int] = []
        """Where the first line of each block starts."""
        self._firsts: list[int] = []
        """The line number of each block's first line."""
        self._set_blocks(0, 0, 0, _line_starts(text), 0)

    @property
    def line_count(self) -> int:
        return self._firsts[-1] + len(self._blocks[-1])

    def line_starts(self) -> list[int]:
        """Every line start (for tests and diagnostics; conversions do not need it)."""
        return [s for index in range(len(self._blocks)) for s in self._absolute(index)]

    def offset(self, line: int, character: int) -> int:
        """The offset of a position (clamped as LSP says; inside a character: its start)."""
        if line >= self.line_count:
            return len(self.text)
        line = max(line, 0)
        start, end = self._line_start(line), self._line_end(line)
        if character <= 0:
            return start
        if self._units is len:
            return min(start + character, end)
        return start + _fitting(self.text[start:end], character, self._units)

    def position(self, offset: int) -> Position:
        """The position of an offset (0 <= offset <= len(text), not inside a "\\r\\n")."""
        text = self.text
        if not 0 <= offset <= len(text):
            raise ValueError(f"offset {offset} is outside the text (length {len(text)})")
        if 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n":
            raise ValueError(f"offset {offset} splits a \\r\\n line break")
        index = bisect_right(self._bases, offset) - 1
        block, base = self._blocks[index], self._bases[index]
        row = bisect_right(block, offset - base + block[0]) - 1
        start = block[row] - block[0] + base
        return Position(self._firsts[index] + row, self._units(text[start:offset]))

    def replace(self, start: int, end: int, new: str) -> None:
        """Replace text[start:end] with `new`. Only the line starts in the changed span
        are computed again (a start next to it can appear or vanish: "\\r" + "\\n"
        join); the ones after it move by the change of length."""
        self.text = self.text[:start] + new + self.text[end:]
        first = bisect_right(self._bases, start) - 1
        last = bisect_right(self._bases, end) - 1
        starts = array("q")
        for index in range(first, last + 1):
            starts.extend(self._absolute(index))
        high = start + len(new)
        window = max(start - 1, 0)
        middle = [
            s for s in _line_starts(self.text[window : high + 1], window) if start <= s <= high
        ]
        delta = len(new) - (end - start)
        updated = starts[: bisect_left(starts, start)]
        updated.extend(middle)
        updated.extend(map(delta.__add__, starts[bisect_right(starts, end) :]))
        self._set_blocks(first, last + 1, self._firsts[first], updated, delta)

    def _set_blocks(self, first: int, stop: int, line: int, starts: array[int], delta: int) -> None:
        """Blocks first..stop-1 become `starts` (absolute, from line number `line`); the
        blocks after them move by `delta` characters."""
        blocks = [starts[i : i + _BLOCK] for i in range(0, len(starts), _BLOCK)]
        lines = len(starts) - sum(len(block) for block in self._blocks[first:stop])
        self._blocks[first:stop] = blocks
        self._bases[first:stop] = [block[0] for block in blocks]
        self._firsts[first:stop] = range(line, line + len(starts), _BLOCK)
        after = first + len(blocks)
        if delta:
            self._bases[after:] = [base + delta for base in self._bases[after:]]
        if lines:
            self._firsts[after:] = [number + lines for number in self._firsts[after:]]

    def _absolute(self, index: int) -> Iterator[int]:
        """The line starts of block `index`, as offsets into the text."""
        block = self._blocks[index]
        return map((self._bases[index] - block[0]).__add__, block)

    def _line_start(self, line: int) -> int:
        index = bisect_right(self._firsts, line) - 1
        block = self._blocks[index]
        return block[line - self._firsts[index]] - block[0] + self._bases[index]

    def _line_end(self, line: int) -> int:
        """Where `line` ends, its line break excluded."""
        if line + 1 >= self.line_count:
            return len(self.text)
        end = self._line_start(line + 1) - 1  # the last character of the line break
        if self.text[end] == "\n" and self.text[end - 1 : end] == "\r":
            end -= 1
        return end


def expressible_edit(text: str, start: int, end: int, new: str) -> tuple[int, int, str]:
    """The edit text[start:end] -> new with ends at positions LSP can name: an end that
    falls between "\\r" and "\\n" takes in the whole "\\r\\n", and the new text keeps
    the half it took in, so the result is the same text."""
    if 0 < start < len(text) and text[start - 1] == "\r" and text[start] == "\n":
        start, new = start - 1, "\r" + new
    if 0 < end < len(text) and text[end - 1] == "\r" and text[end] == "\n":
        end, new = end + 1, new + "\n"
    return start, end, new


def _line_starts(text: str, base: int = 0) -> array[int]:
    """base + the offset of every line start in `text` (the first is base itself)."""
    if "\r" in text:
        # Same length, and a "\n" exactly where an LSP line break ends.
        text = text.replace("\r\n", " \n").replace("\r", "\n")
    starts = array("q", accumulate(map((1).__add__, map(len, text.split("\n"))), initial=base))
    starts.pop()  # one past the end of the text
    return starts


def _fitting(line: str, character: int, units: Callable[[str], int]) -> int:
    """How many characters of `line` fit in `character` code units. Whole chunks are
    measured at C speed; only the chunk where the position falls is walked."""
    if line.isascii():
        return min(character, len(line))
    index = used = 0
    while index < len(line):
        chunk = line[index : index + _CHUNK]
        size = units(chunk)
        if used + size <= character:
            used += size
            index += len(chunk)
            continue
        for char in chunk:
            used += units(char)
            if used > character:
                return index
            index += 1
    return index
