"""A file change as an ACP `diff`: the whole old and new text of the file, bounded.

The schema calls `oldText` the original content, and clients number a diff's lines from
the start of its texts: a diff of the replaced snippet alone would be labelled line 1
wherever it is. So a diff carries the file's whole text before and after (with "\\n" line
breaks), and its location names the first line that changed. Above DIFF_TEXT_CHARS a side
is not sent whole: both sides are cut to the same window of whole lines, from
CONTEXT_LINES before the first changed line to CONTEXT_LINES after the last, each at most
DIFF_TEXT_CHARS (a single longer line is cut), and the location names the window's first
line, where its texts start in the file.
"""

from __future__ import annotations

from dataclasses import dataclass

DIFF_TEXT_CHARS = 64 * 1024
CONTEXT_LINES = 20


@dataclass(frozen=True)
class ShownDiff:
    old: str | None
    """None: the file is new."""
    new: str
    line: int
    """1-based: the first changed line (whole texts), or the window's first line."""


def shown_diff(old: str | None, new: str) -> ShownDiff:
    old_lines = old.splitlines(keepends=True) if old is not None else []
    new_lines = new.splitlines(keepends=True)
    first = _common_prefix(old_lines, new_lines)
    if (old is None or len(old) <= DIFF_TEXT_CHARS) and len(new) <= DIFF_TEXT_CHARS:
        return ShownDiff(old, new, min(first, max(len(new_lines) - 1, 0)) + 1)
    tail = _common_suffix(old_lines, new_lines, first)
    start = max(first - CONTEXT_LINES, 0)
    old_end = min(len(old_lines) - tail + CONTEXT_LINES, len(old_lines))
    new_end = min(len(new_lines) - tail + CONTEXT_LINES, len(new_lines))
    return ShownDiff(
        _fit(old_lines[start:old_end]) if old is not None else None,
        _fit(new_lines[start:new_end]),
        start + 1,
    )


def _common_prefix(a: list[str], b: list[str]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _common_suffix(a: list[str], b: list[str], prefix: int) -> int:
    """Lines equal at the end of both, not counting into the common prefix."""
    n, most = 0, min(len(a), len(b)) - prefix
    while n < most and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


def _fit(lines: list[str]) -> str:
    """As many whole lines as DIFF_TEXT_CHARS holds (a first line longer than that, cut)."""
    kept: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) > DIFF_TEXT_CHARS:
            if not kept:
                kept.append(line[:DIFF_TEXT_CHARS])
            break
        kept.append(line)
        used += len(line)
    return "".join(kept)
