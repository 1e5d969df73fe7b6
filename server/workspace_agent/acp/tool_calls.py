"""One tool call as ACP shows it: `tool_call` when it starts, `tool_call_update` when it ends.

Built from the core's event fields (live) or from a saved tool_use / tool_result (replay),
so a loaded session looks like the run did. Edits and writes end with `diff` content,
everything else with its output as text (commands in a code block).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp import start_tool_call, text_block, tool_content, tool_diff_content, update_tool_call
from acp.schema import (
    ContentToolCallContent,
    FileEditToolCallContent,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    ToolKind,
)

from ..tools import TOOLS

ACP_KINDS: dict[str, ToolKind] = {
    "read": "read",
    "edit": "edit",
    "execute": "execute",
    "plan": "think",
    "other": "other",
}
TITLE_LIMIT = 120


def title(name: str, kind: str, summary: str) -> str:
    """What the client shows for the call: "Read src/app.py", "`make test`"."""
    summary = summary if len(summary) <= TITLE_LIMIT else summary[: TITLE_LIMIT - 1] + "…"
    if kind == "execute":
        command = summary.replace("`", "'")
        return f"`{command}`"
    if kind == "read":
        return f"Read {summary}"
    if kind == "edit":
        return f"Edit {summary}"
    if kind == "plan":
        return f"Update the plan ({summary})"
    return f"{name} {summary}".strip()


def started(fields: dict[str, Any]) -> ToolCallStart:
    """The `tool_call` for a core toolCall event."""
    kind = str(fields.get("toolKind") or "other")
    return start_tool_call(
        str(fields["toolUseId"]),
        title(str(fields.get("name", "")), kind, str(fields.get("summary", ""))),
        kind=ACP_KINDS.get(kind, "other"),
        status="in_progress",
        locations=[_location(place) for place in fields.get("locations") or []],
        raw_input=fields.get("input"),
    )


def finished(fields: dict[str, Any], kind: str | None) -> ToolCallProgress:
    """The closing `tool_call_update` for a core toolResult event of a call of `kind`."""
    ok = bool(fields.get("ok"))
    changes = fields.get("changes") or []
    output = str(fields.get("fullOutput", fields.get("output", "")))
    content: list[ContentToolCallContent | FileEditToolCallContent]
    if ok and changes:
        content = [
            tool_diff_content(change["path"], change["newText"], change.get("oldText"))
            for change in changes
        ]
    else:
        content = [] if ok and kind == "think" else [_text(output, ok, kind)]
    update = update_tool_call(
        str(fields["toolUseId"]),
        status="completed" if ok else "failed",
        content=content,
        locations=[_location(change) for change in changes] if ok and changes else None,
    )
    if "sandboxed" in fields:  # a command: whether it ran in the sandbox
        update.field_meta = {"workspaceAgent": {"sandboxed": bool(fields["sandboxed"])}}
    return update


def replayed_call(block: dict[str, Any], root: Path) -> ToolCallStart:
    """The `tool_call` for a saved tool_use block (session/load)."""
    name, tool_input = str(block.get("name", "")), block.get("input")
    tool = TOOLS.get(name)
    return started(
        {
            "toolUseId": block.get("id", ""),
            "name": name,
            "summary": tool.summary(tool_input) if tool else "",
            "toolKind": tool.kind if tool else "other",
            "locations": [p.to_wire() for p in tool.locations(root, tool_input)] if tool else [],
            "input": tool_input,
        }
    )


def replayed_result(block: dict[str, Any], name: str) -> ToolCallProgress:
    """The closing `tool_call_update` for a saved tool_result block (session/load)."""
    raw = block.get("content", "")
    output = (
        raw
        if isinstance(raw, str)
        else "\n".join(str(b.get("text", "")) for b in raw if isinstance(b, dict))
    )
    tool = TOOLS.get(name)
    return finished(
        {
            "toolUseId": block.get("tool_use_id", ""),
            "name": name,
            "ok": not block.get("is_error", False),
            "fullOutput": output,
        },
        ACP_KINDS.get(tool.kind if tool else "other"),
    )


def _location(place: dict[str, Any]) -> ToolCallLocation:
    return ToolCallLocation(path=str(place["path"]), line=place.get("line"))


def _text(output: str, ok: bool, kind: str | None) -> ContentToolCallContent:
    """Output as Markdown: a command's (or a file's) text in a fence that nothing inside
    it can close, anything else as it is."""
    if kind in ("execute", "read") and ok and output:
        fence = "```"
        while fence in output:
            fence += "`"
        output = f"{fence}\n{output}\n{fence}"
    return tool_content(text_block(output))
