"""How full the context window is, said once for every front end (workspaceAgent/contextMeter).

The figure is the last request's input tokens (uncached, cache writes and reads: all of
the prompt the model read) against the window; it turns `near` some way before the
conversation is compacted (compaction.py COMPACT_AT), so the user sees it coming. It
goes to the listener beside the event stream (AgentListener.on_context), never into the
session's history: it is a gauge, not something that happened in the conversation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .compaction import COMPACT_AT

if TYPE_CHECKING:
    from .. import contract

NEAR_AT = 0.7
"""From this share of the window the meter warns (compaction starts at COMPACT_AT)."""


def tokens_short(n: int) -> str:
    """`800`, `62 k`, `200 k`, `1 M`, `1.5 M`: a count at a glance."""
    if n < 1000:
        return str(n)
    if n >= 1_000_000:
        return f"{n / 1_000_000:.3g} M"
    return f"{round(n / 1000)} k"


def context_meter(session_id: str, used: int, window: int) -> contract.ContextMeter:
    """workspaceAgent/contextMeter's payload for a request of `used` input tokens."""
    return {"sessionId": session_id, **context_fields(used, window)}  # type: ignore[typeddict-item]


def context_fields(used: int, window: int) -> dict[str, Any]:
    """The meter's fields (all but sessionId) for a request of `used` input tokens."""
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
