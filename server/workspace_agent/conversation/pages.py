"""workspaceAgent/history, workspaceAgent/toolOutput, workspaceAgent/historyImage and
workspaceAgent/toolImage: pages of a session's history, newest first, through opaque
cursors, the whole output of one tool call, one image a prompt carried and one image a
tool's result carried."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from ..protocol import ProtocolError, _require_object
from ..shared import images
from .histories import Histories

DEFAULT_LIMIT = 200
MAX_LIMIT = 1000
CURSOR_PREFIX = "h"


@dataclass(frozen=True)
class HistoryParams:
    session_id: str
    before: str | None
    limit: int

    @classmethod
    def from_wire(cls, raw: Any) -> HistoryParams:
        obj = _require_object(raw, "workspaceAgent/history params")
        session_id = obj.get("sessionId")
        if not isinstance(session_id, str) or not session_id:
            raise ProtocolError("workspaceAgent/history needs 'sessionId' (a non-empty string)")
        before = obj.get("before")
        if before is not None and not isinstance(before, str):
            raise ProtocolError("'before' must be a cursor from an earlier page (a string)")
        limit = obj.get("limit", DEFAULT_LIMIT)
        if type(limit) is not int or not 1 <= limit <= MAX_LIMIT:
            raise ProtocolError(f"'limit' must be a whole number from 1 to {MAX_LIMIT}")
        return cls(session_id, before, limit)


@dataclass(frozen=True)
class ToolOutputParams:
    session_id: str
    tool_use_id: str

    @classmethod
    def from_wire(cls, raw: Any) -> ToolOutputParams:
        obj = _require_object(raw, "workspaceAgent/toolOutput params")
        return cls(*_call_ids(obj, "workspaceAgent/toolOutput"))


@dataclass(frozen=True)
class HistoryImageParams:
    session_id: str
    seq: int
    index: int

    @classmethod
    def from_wire(cls, raw: Any) -> HistoryImageParams:
        obj = _require_object(raw, "workspaceAgent/historyImage params")
        session_id = obj.get("sessionId")
        if not (isinstance(session_id, str) and session_id):
            raise ProtocolError(
                "workspaceAgent/historyImage needs 'sessionId' (a non-empty string)"
            )
        method = "workspaceAgent/historyImage"
        return cls(session_id, _count(obj, "seq", method), _count(obj, "index", method))


def history_image(histories: Histories, params: HistoryImageParams) -> dict[str, str] | None:
    """The result of workspaceAgent/historyImage; None when the history did not keep it."""
    history = histories.file(params.session_id)
    return _image_result(history.image(params.seq, params.index) if history is not None else None)


@dataclass(frozen=True)
class ToolImageParams:
    session_id: str
    tool_use_id: str
    index: int

    @classmethod
    def from_wire(cls, raw: Any) -> ToolImageParams:
        obj = _require_object(raw, "workspaceAgent/toolImage params")
        method = "workspaceAgent/toolImage"
        return cls(*_call_ids(obj, method), _count(obj, "index", method))


def tool_image(histories: Histories, params: ToolImageParams) -> dict[str, str] | None:
    """The result of workspaceAgent/toolImage; None when the history did not keep it."""
    history = histories.file(params.session_id)
    found = history.tool_image(params.tool_use_id, params.index) if history is not None else None
    return _image_result(found)


def _call_ids(obj: dict[str, Any], method: str) -> tuple[str, str]:
    """A request's 'sessionId' and 'toolUseId' (non-empty strings), or ProtocolError."""
    session_id, tool_use_id = obj.get("sessionId"), obj.get("toolUseId")
    if not (isinstance(session_id, str) and session_id) or not (
        isinstance(tool_use_id, str) and tool_use_id
    ):
        raise ProtocolError(f"{method} needs 'sessionId' and 'toolUseId' (non-empty strings)")
    return session_id, tool_use_id


def _count(obj: dict[str, Any], name: str, method: str) -> int:
    """A request's whole number from 0 named `name`, or ProtocolError."""
    value = obj.get(name)
    if type(value) is not int or value < 0:
        raise ProtocolError(f"{method} needs '{name}' (a whole number from 0)")
    return value


def _image_result(raw: bytes | None) -> dict[str, str] | None:
    """A kept image as the image requests give it; None when not kept or not an image."""
    media_type = images.sniff(raw[:12]) if raw is not None else None
    if raw is None or media_type is None:
        return None
    return {"mediaType": media_type, "data": base64.b64encode(raw).decode("ascii")}


def history_page(histories: Histories, params: HistoryParams) -> dict[str, Any]:
    """The result of workspaceAgent/history (the session is known to exist)."""
    history = histories.file(params.session_id)
    total = history.total if history is not None else 0
    before = total if params.before is None else _position(params.before, total)
    entries = history.page(before, params.limit) if history is not None else []
    first = before - len(entries)
    result: dict[str, Any] = {
        "sessionId": params.session_id,
        "entries": entries,
        "before": f"{CURSOR_PREFIX}{first}" if first > 0 else None,
        "total": total,
    }
    run_start = history.run_start_before(entries[0]) if history is not None and entries else None
    if run_start is not None:  # the page begins inside a run: its prompt goes above it
        result["runStart"] = run_start
    return result


def tool_output(histories: Histories, params: ToolOutputParams) -> str | None:
    history = histories.file(params.session_id)
    return history.output(params.tool_use_id) if history is not None else None


def _position(cursor: str, total: int) -> int:
    digits = cursor.removeprefix(CURSOR_PREFIX)
    if (
        cursor.startswith(CURSOR_PREFIX)
        and digits.isascii()
        and digits.isdigit()
        and 0 < int(digits) <= total
    ):
        return int(digits)
    raise ProtocolError(f"'before' is not a cursor of this session's history: {cursor!r}")
