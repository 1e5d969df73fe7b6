"""Positions as the model gives and reads them (lines and columns from 1, counted in
characters) and as the protocol has them (0-based lines, UTF-16 code units).

The protocol's lines end at "\\n", "\\r\\n" or "\\r" (nothing else), so its line numbers
and ours agree on every file, and a column past an astral character (an emoji) is one
character for the model but two code units on the wire.
"""

from __future__ import annotations

import re

from ..shared.errors import ToolError

LINE_BREAK = re.compile(r"\r\n|\r|\n")


def lines_of(text: str) -> list[str]:
    """The text's lines as the protocol counts them, without their line breaks."""
    return LINE_BREAK.split(text)


def utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def to_wire(text: str, line: int, column: int, shown: str) -> dict[str, int]:
    """The protocol's position of 1-based `line` and `column` (characters) in `text`;
    ToolError saying what is there when the place is not in the file."""
    return position_in(lines_of(text), line, column, shown)


def position_in(lines: list[str], line: int, column: int, shown: str) -> dict[str, int]:
    """`to_wire` on the text's lines (`lines_of`)."""
    if line < 1 or line > len(lines):
        raise ToolError(
            f"line {line} is not in {shown}: it has {len(lines)} lines (lines count from 1)"
        )
    content = lines[line - 1]
    if column < 1 or column > len(content) + 1:
        raise ToolError(
            f"column {column} is not on line {line} of {shown}: the line has "
            f"{len(content)} characters (columns count from 1): {content[:120]!r}"
        )
    return {"line": line - 1, "character": utf16_length(content[: column - 1])}


def column_of(line_text: str, character: int) -> int:
    """The 1-based character column of the protocol's `character` (UTF-16) on a line."""
    units = 0
    for index, char in enumerate(line_text):
        if units >= character:
            return index + 1
        units += 2 if ord(char) > 0xFFFF else 1
    return len(line_text) + 1


def offset_of(lines: list[str], starts: list[int], position: dict[str, int]) -> int:
    """The string offset of a protocol position in the text whose `lines` begin at
    `starts` (a position past a line's end is its end, as the protocol says)."""
    line = position["line"]
    if line >= len(lines):
        return starts[-1] + len(lines[-1]) if lines else 0
    content = lines[line]
    return starts[line] + column_of(content, position["character"]) - 1


def line_starts(text: str) -> tuple[list[str], list[int]]:
    """The text's lines and the offset each begins at."""
    lines, starts, at = [], [], 0
    for match in LINE_BREAK.finditer(text):
        lines.append(text[at : match.start()])
        starts.append(at)
        at = match.end()
    lines.append(text[at:])
    starts.append(at)
    return lines, starts
