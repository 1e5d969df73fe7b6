"""Lines added and removed between two versions of a file, as a diff would count them.

Edits usually touch a small region, so the common head and tail are cut off first (found
with C-speed comparisons of blocks, then rounded to whole lines) and only the middle is
matched line by line. A middle too
large to match in reasonable time counts as replaced wholesale.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from .objects import is_binary

BLOCK = 1 << 16
MATCH_LIMIT = 2000
"""Lines on each side of the changed middle above which it is not matched line by line."""


def line_stats(before: bytes | None, after: bytes | None) -> tuple[int, int, bool]:
    """(additions, deletions, binary) from `before` to `after` (None: no file)."""
    if (before is not None and is_binary(before)) or (after is not None and is_binary(after)):
        return 0, 0, True
    a, b = before or b"", after or b""
    start = _line_start(a, _common_prefix(a, b))
    end_a, end_b = _common_tail(a, b, start)
    old, new = _lines(a[start:end_a]), _lines(b[start:end_b])
    if not old or not new or max(len(old), len(new)) > MATCH_LIMIT:
        return len(new), len(old), False
    additions = deletions = 0
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            deletions += i2 - i1
            additions += j2 - j1
    return additions, deletions, False


def _common_prefix(a: bytes, b: bytes) -> int:
    """Length of the common start: block by block, then by halving inside the first block
    that differs (slice comparisons are memcmp; memoryview ones are not)."""
    limit = min(len(a), len(b))
    low = 0
    while low < limit and a[low : low + BLOCK] == b[low : low + BLOCK]:
        low += BLOCK
    low, high = min(low, limit), min(low + BLOCK, limit)
    while low < high:
        middle = (low + high + 1) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _line_start(data: bytes, offset: int) -> int:
    """The start of the line that holds `offset` (the common start, in whole lines)."""
    return data.rfind(b"\n", 0, offset) + 1


def _common_tail(a: bytes, b: bytes, start: int) -> tuple[int, int]:
    """Where the common end, in whole lines and after `start`, begins in `a` and in `b`."""
    tail = _common_prefix(a[start:][::-1], b[start:][::-1])
    newline = a.find(b"\n", len(a) - tail)  # the first line that starts inside the tail
    if newline < 0:
        return len(a), len(b)
    return newline + 1, newline + 1 - len(a) + len(b)


def _lines(data: bytes | None) -> list[bytes]:
    """Lines with their "\\n" (a last line without one differs from the same with one)."""
    if not data:
        return []
    lines = data.split(b"\n")
    last = lines.pop()
    out = [line + b"\n" for line in lines]
    if last:
        out.append(last)
    return out
