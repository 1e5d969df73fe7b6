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
from collections.abc import Callable, Iterable
from itertools import accumulate
from typing import NamedTuple

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"
ENCODINGS = (UTF16, UTF8, UTF32)
"""The position encodings offered, the LSP default first."""


class Position(NamedTuple):
    line: int
    character: int


def negotiate(offered: Iterable[str] | None) -> str:
    """The encoding for a client that offers `offered` (most preferred first): its first
    one we support; UTF-16, which every client must support, when none fits."""
    return next((encoding for encoding in offered or () if encoding in ENCODINGS), UTF16)


def _utf16_units(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-16-le", "surrogatepass")) // 2


def _utf8_units(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


_UNITS: dict[str, Callable[[str], int]] = {UTF8: _utf8_units, UTF16: _utf16_units, UTF32: len}
_CHUNK = 256
"""Characters whose code units are counted at once when walking a long line."""


class LineIndex:
    """A text and the start of each of its lines, for conversions in one encoding."""

    __slots__ = ("_starts", "_units", "encoding", "text")

    def __init__(self, text: str, encoding: str = UTF16, *, _starts: array[int] | None = None):
        if encoding not in _UNITS:
            raise ValueError(f"unknown position encoding {encoding!r}")
        self.text = text
        self.encoding = encoding
        self._units = _UNITS[encoding]
        self._starts = _line_starts(text) if _starts is None else _starts

    @property
    def line_count(self) -> int:
        return len(self._starts)

    def offset(self, line: int, character: int) -> int:
        """The offset of a position (clamped as LSP says; inside a character: its start)."""
        starts = self._starts
        if line >= len(starts):
            return len(self.text)
        start = starts[max(line, 0)]
        end = self._line_end(max(line, 0))
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
        line = bisect_right(self._starts, offset) - 1
        start = self._starts[line]
        return Position(line, self._units(text[start:offset]))

    def replace(self, start: int, end: int, new: str) -> LineIndex:
        """The index of the text with text[start:end] replaced by `new`. Only the line
        starts in the changed span are computed; the ones after it move by the change of
        length. (A start next to the span can appear or vanish: "\\r" + "\\n" join.)"""
        text = self.text[:start] + new + self.text[end:]
        starts = self._starts
        first, last = bisect_left(starts, start), bisect_right(starts, end)
        high = start + len(new)
        base = max(start - 1, 0)
        middle = [s for s in _line_starts(text[base : high + 1], base) if start <= s <= high]
        delta = len(new) - (end - start)
        tail = starts[last:] if delta == 0 else array("q", map(delta.__add__, starts[last:]))
        updated = starts[:first]
        updated.extend(middle)
        updated += tail
        return LineIndex(text, self.encoding, _starts=updated)

    def _line_end(self, line: int) -> int:
        """Where `line` ends, its line break excluded."""
        starts = self._starts
        if line + 1 >= len(starts):
            return len(self.text)
        end = starts[line + 1] - 1  # the last character of the line break
        if self.text[end] == "\n" and end > starts[line] and self.text[end - 1] == "\r":
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
