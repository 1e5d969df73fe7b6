"""One tool call as ACP shows it: `tool_call` when it starts, `tool_call_update` when it ends.

Built from the core's event fields (live) or from a saved tool_use / tool_result (replay),
so a loaded session looks like the run did. Edits and writes end with `diff` content
(the whole file, see diffs.py), everything else with its output as text (commands in a
code block).
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

from .. import names
from ..tools import TOOLS, described
from .diffs import ShownDiff, shown_diff
from .edit_texts import WholeTexts

ACP_KINDS: dict[str, ToolKind] = {
    "read": "read",
    "edit": "edit",
    "execute": "execute",
    "plan": "think",
    "search": "search",
    "fetch": "fetch",
    "other": "other",
}
TITLE_LIMIT = 120
KIND_TITLES = {"search": "Search: {}", "fetch": "Fetch {}"}
"""Titles of the kinds that need nothing but a prefix."""


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
    if kind in KIND_TITLES:
        return KIND_TITLES[kind].format(summary)
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


def is_plan(call: ToolCallStart) -> bool:
    """A todo call: shown as the `plan` update it makes (updates.py), not as a call."""
    return call.kind == "think"


def failed_plan_call(call: ToolCallStart, fields: dict[str, Any]) -> ToolCallStart:
    """A todo call that failed, as one `tool_call`: its start was never sent."""
    output = str(fields.get("fullOutput", fields.get("output", "")))
    return call.model_copy(update={"status": "failed", "content": [_text(output, False, None)]})


def finished(
    fields: dict[str, Any], kind: str | None, texts: WholeTexts | None = None
) -> ToolCallProgress:
    """The closing `tool_call_update` for a core toolResult event of a call of `kind`;
    `texts`: the whole file before and after, when the call reported only a snippet."""
    ok = bool(fields.get("ok"))
    changes = fields.get("changes") or []
    output = str(fields.get("fullOutput", fields.get("output", "")))
    if ok and changes:
        shown = [_diff(change, str(fields.get("name", "")), texts) for change in changes]
        update = diff_update(str(fields["toolUseId"]), shown)
    else:
        update = update_tool_call(
            str(fields["toolUseId"]),
            status="completed" if ok else "failed",
            content=[_text(output, ok, kind)],
        )
    if "sandboxed" in fields:  # a command: whether it ran in the sandbox
        update.field_meta = {"workspaceAgent": {"sandboxed": bool(fields["sandboxed"])}}
    return update


def has_diffs(update: ToolCallProgress) -> bool:
    return any(isinstance(c, FileEditToolCallContent) for c in update.content or [])


def diff_update(tool_call_id: str, shown: list[tuple[str, ShownDiff]]) -> ToolCallProgress:
    """A completed call's `diff` content and locations, one per (path, diff)."""
    return update_tool_call(
        tool_call_id,
        status="completed",
        content=[tool_diff_content(path, diff.new, diff.old) for path, diff in shown],
        locations=[ToolCallLocation(path=path, line=diff.line) for path, diff in shown],
    )


def _diff(change: dict[str, Any], name: str, texts: WholeTexts | None) -> tuple[str, ShownDiff]:
    """The diff a client is shown for one FileChange: the whole file (a tool that reports
    it whole, `Tool.whole_file_changes`: write_file; edit_file's texts come from
    edit_texts.py), else the snippet at its line."""
    path = str(change["path"])
    if texts is not None and names.readable(str(texts[0])) == path:
        return path, shown_diff(texts[1], texts[2])
    tool = TOOLS.get(name)
    if tool is not None and tool.whole_file_changes:
        return path, shown_diff(change.get("oldText"), str(change["newText"]))
    return path, ShownDiff(change.get("oldText"), str(change["newText"]), change.get("line") or 1)


def replayed_call(block: dict[str, Any], root: Path) -> ToolCallStart:
    """The `tool_call` for a saved tool_use block (session/load)."""
    name, tool_input = str(block.get("name", "")), block.get("input")
    tool = described(name)
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


def replayed_result(
    block: dict[str, Any], name: str, logged: dict[str, Any] | None = None
) -> ToolCallProgress:
    """The closing `tool_call_update` for a saved tool_result block (session/load): the
    diffs the live run ended with when they were kept (`logged`, see diff_log.py), else
    the text the model got; with the `_meta` the live run's update had."""
    ok = not block.get("is_error", False)
    update: ToolCallProgress
    if ok and logged is not None and logged.get("content"):
        update = update_tool_call(
            str(block.get("tool_use_id", "")),
            status="completed",
            content=[FileEditToolCallContent.model_validate(c) for c in logged["content"]],
            locations=[ToolCallLocation.model_validate(p) for p in logged["locations"]],
        )
    else:
        tool = described(name)
        update = finished(
            {
                "toolUseId": block.get("tool_use_id", ""),
                "name": name,
                "ok": ok,
                "fullOutput": result_text(block),
            },
            ACP_KINDS.get(tool.kind if tool else "other"),
        )
    if logged is not None and logged.get("meta"):
        update.field_meta = logged["meta"]
    return update


def result_text(block: dict[str, Any]) -> str:
    """What the model got from a saved tool_result block."""
    raw = block.get("content", "")
    if isinstance(raw, str):
        return raw
    return "\n".join(str(b.get("text", "")) for b in raw if isinstance(b, dict))


def _location(place: dict[str, Any]) -> ToolCallLocation:
    return ToolCallLocation(path=str(place["path"]), line=place.get("line"))


def command_text(output: str) -> ContentToolCallContent:
    """A command's output, fenced (background_calls.py follows one as it runs)."""
    return _text(output, True, "execute")


def _text(output: str, ok: bool, kind: str | None) -> ContentToolCallContent:
    """Output as Markdown: a command's (or a file's) text in a fence that nothing inside
    it can close, anything else as it is."""
    if kind in ("execute", "read") and ok and output:
        fence = "```"
        while fence in output:
            fence += "`"
        output = f"{fence}\n{output}\n{fence}"
    return tool_content(text_block(output))
