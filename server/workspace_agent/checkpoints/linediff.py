"""Lines added and removed between two versions of a file, as a diff would count them.

Edits usually touch a small region, so the common head and tail are cut off first (fast
comparisons of whole lines) and only the middle is matched line by line. A middle too
large to match in reasonable time counts as replaced wholesale.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from .objects import is_binary

MATCH_LIMIT = 2000
"""Lines on each side of the changed middle above which it is not matched line by line."""


def line_stats(before: bytes | None, after: bytes | None) -> tuple[int, int, bool]:
    """(additions, deletions, binary) from `before` to `after` (None: no file)."""
    if (before is not None and is_binary(before)) or (after is not None and is_binary(after)):
        return 0, 0, True
    old, new = _lines(before), _lines(after)
    head = 0
    limit = min(len(old), len(new))
    while head < limit and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < limit - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    old_mid, new_mid = old[head : len(old) - tail], new[head : len(new) - tail]
    if not old_mid or not new_mid or max(len(old_mid), len(new_mid)) > MATCH_LIMIT:
        return len(new_mid), len(old_mid), False
    additions = deletions = 0
    matcher = SequenceMatcher(None, old_mid, new_mid, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            deletions += i2 - i1
            additions += j2 - j1
    return additions, deletions, False


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
