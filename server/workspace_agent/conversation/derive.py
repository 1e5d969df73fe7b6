"""The history of a session saved before histories were recorded, worked out from its
messages: each prompt starts a run, assistant text and tool calls follow, each tool result
after its call. What the messages do not hold is not made up: there are no `runEnd`,
`approval`, `retry` or `error` entries, no plan item ids, and what compaction folded
into a summary is that summary. A command's exit status, which a live run carries as data
(ToolResult.exit_code), is here read back from the text the model got, the only record of
it such old sessions have: by the tool that wrote it (`Tool.exit_status_in`, bash's
status line), so no one else parses that text. The images a prompt carried
become its runStart's records, with their base64 as `imageData` for the history to keep
apart (histories.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .. import protocol as p
from ..agent.editor_context import OPEN as CONTEXT_OPENING
from ..agent.loop import REMINDER, head_and_tail
from ..shared import images
from ..shared.session import content_text

NOTE_OPENING = "[Workspace Agent]"


def derived_entries(
    messages: list[dict[str, Any]], root: Path
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The entries (with seq and run) and the whole outputs of the tool results whose
    entry shows only part of it, by tool_use id."""
    from ..tools import TOOLS

    entries: list[dict[str, Any]] = []
    outputs: dict[str, str] = {}
    names: dict[str, str] = {}
    places = _Places(root)
    run = 0

    def add(kind: str, **fields: Any) -> None:
        entries.append({"kind": kind, **fields, "seq": len(entries), "run": max(run, 1)})

    for message in messages:
        blocks = message.get("content")
        if isinstance(blocks, str):
            blocks = [{"type": "text", "text": blocks}]
        if not isinstance(blocks, list):
            continue
        if message.get("role") == "assistant":
            texts = [b.get("text", "") for b in blocks if b.get("type") == "text"]
            if any(texts):
                add(p.EVENT_TEXT, text="".join(texts))
            for block in blocks:
                if block.get("type") != "tool_use":
                    continue
                name, tool_input = str(block.get("name", "")), block.get("input")
                names[str(block.get("id"))] = name
                tool = TOOLS.get(name)
                add(
                    p.EVENT_TOOL_CALL,
                    toolUseId=block.get("id"),
                    name=name,
                    summary=tool.summary(tool_input) if tool else str(tool_input)[:200],
                    todoId=None,
                    toolKind=tool.kind if tool else "other",
                    locations=places.of(tool, tool_input) if tool else [],
                )
            continue
        carried: list[images.Image] = []
        for block in blocks:
            kind = block.get("type")
            if kind == "image":
                carried += _image(block)
            elif kind == "tool_result":
                tool_use_id = str(block.get("tool_use_id"))
                output = content_text(block.get("content"))
                shown = head_and_tail(output)
                if shown != output:
                    outputs[tool_use_id] = output
                name = names.get(tool_use_id, "")
                tool = TOOLS.get(name)
                read_back = tool.exit_status_in if tool is not None else None
                add(
                    p.EVENT_TOOL_RESULT,
                    toolUseId=tool_use_id,
                    name=name,
                    ok=not block.get("is_error", False),
                    output=shown,
                    todoId=None,
                    exitCode=read_back(output) if read_back is not None else None,
                    outputChars=len(output),
                    changes=[],
                )
            elif kind == "text":
                text = str(block.get("text", ""))
                if text.startswith(CONTEXT_OPENING) or text == REMINDER:
                    continue
                if text.startswith(NOTE_OPENING):
                    add(p.EVENT_NOTICE, message=text)
                    continue
                run += 1
                with_images: dict[str, Any] = {}
                if carried:
                    with_images["images"] = [image.record() for image in carried]
                    with_images["imageData"] = [image.data for image in carried]
                    carried = []
                add(p.EVENT_RUN_START, prompt=text, **with_images)
    return entries, outputs


def _image(block: dict[str, Any]) -> list[images.Image]:
    source = block.get("source")
    if not isinstance(source, dict) or source.get("type") != "base64":
        return []
    try:
        data = str(source.get("data", ""))
        return [images.from_base64(data, str(source.get("media_type", "")), "image")]
    except images.ImageError:
        return []


class _Places:
    """Tool call locations, each path checked once (a long session reads the same files
    again and again)."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._seen: dict[str, list[dict[str, Any]]] = {}

    def of(self, tool: Any, tool_input: Any) -> list[dict[str, Any]]:
        key = json.dumps([tool.name, tool_input], sort_keys=True, default=str)
        if key not in self._seen:
            self._seen[key] = [place.to_wire() for place in tool.locations(self._root, tool_input)]
        return self._seen[key]
