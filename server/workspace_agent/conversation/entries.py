"""What a user-facing transcript gets of each event: the workspaceAgent/event payload.

The core's events carry more than a transcript needs (the raw input of a tool call, its
whole output, the text of every edit: TOOL_DETAIL_FIELDS). A transcript gets a card's
worth: the tool's kind and locations, the output's head and tail with its length, the
exit status, and the files the call changed with their line counts (the core's
`changedFiles`, sent as `changes`). A prompt's images are records (type, pixels, bytes):
the history keeps the images themselves apart (workspaceAgent/historyImage).
"""

from __future__ import annotations

from typing import Any

from .. import protocol as p

TOOL_EVENTS = frozenset({p.EVENT_TOOL_CALL, p.EVENT_TOOL_RESULT})


def user_fields(kind: str, fields: dict[str, Any]) -> dict[str, Any]:
    """The fields of a workspaceAgent/event of `kind` (without sessionId and kind)."""
    if kind == p.EVENT_RUN_START:
        return {k: v for k, v in fields.items() if k not in p.RUN_START_DETAIL_FIELDS}
    if kind not in TOOL_EVENTS:
        return fields
    shown = {k: v for k, v in fields.items() if k not in p.TOOL_DETAIL_FIELDS}
    changed = shown.pop("changedFiles", None)
    if kind == p.EVENT_TOOL_RESULT:
        shown["changes"] = changed or []
    return shown
