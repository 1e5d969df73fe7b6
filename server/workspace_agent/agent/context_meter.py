"""How full the context window is, said once for every front end (the `context` event).

The figure is the last request's input tokens (uncached, cache writes and reads: all of
the prompt the model read) against the window; it turns `near` some way before the
conversation is compacted (compaction.py COMPACT_AT), so the user sees it coming.
"""

from __future__ import annotations

from typing import Any

from .compaction import COMPACT_AT

NEAR_AT = 0.7
"""From this share of the window the meter warns (compaction starts at COMPACT_AT)."""


def tokens_short(n: int) -> str:
    """`800`, `62 k`, `200 k`, `1 M`, `1.5 M`: a count at a glance."""
    if n < 1000:
        return str(n)
    if n >= 1_000_000:
        return f"{n / 1_000_000:.3g} M"
    return f"{round(n / 1000)} k"


def context_fields(used: int, window: int) -> dict[str, Any]:
    """The `context` event's fields for a request of `used` input tokens."""
    compact_at = int(window * COMPACT_AT)
    share = round(100 * used / window) if window else 0
    detail = (
        f"Context: {used:,} of {window:,} tokens ({share}%), as the last request used. "
        f"From {round(100 * COMPACT_AT)}% ({compact_at:,} tokens) the conversation is "
        "compacted before the next request: old tool results become short stubs, then the "
        "oldest turns one summary. /compact does it now."
    )
    return {
        "used": used,
        "window": window,
        "compactAt": compact_at,
        "near": used >= NEAR_AT * window,
        "label": f"{tokens_short(used)} / {tokens_short(window)}",
        "detail": detail,
    }
