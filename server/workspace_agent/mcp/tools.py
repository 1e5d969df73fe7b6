"""An MCP server's tools as entries of the agent's dispatch map.

Each call is asked about first (approval kind `mcp`, per server: "Allow this tool for this
session" allows that tool until the session ends, "Allow this server for this session"
every tool of that server; the `approvals` setting's `mcp` policy can allow or deny them
all). The server's tool annotations (`readOnlyHint`, `destructiveHint`) change the
question's wording, never whether it is asked: they come from the server. `readOnlyHint`
also lets the tool run in plan mode and side by side with the answer's other read-only
calls (agent/concurrency.py). A denied call never reaches the server.

The result goes through the same cap as a command's output (HeadTailBuffer, 50,000
characters); images become image blocks, at most MAX_IMAGES of at most MAX_IMAGE_BYTES;
`structuredContent` is given as JSON when there is no text; resource links are listed,
never fetched; `isError` makes the result a tool error.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from ..tools.base import Tool, ToolContext, ToolError, ToolResult
from ..tools.bash import OUTPUT_CAP
from ..tools.output_buffer import HeadTailBuffer
from .connection import Connection

MAX_IMAGES = 4
MAX_IMAGE_BYTES = 1_000_000
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
DESCRIPTION_CHARS = 2000
ARGUMENTS_SHOWN = 300


def build_tool(connection: Connection, definition: Any, name: str) -> Tool:
    server = connection.name
    tool = str(definition.name)
    described = f"[MCP server {server}, tool {tool}] {definition.description or ''}".strip()
    schema = definition.input_schema if isinstance(definition.input_schema, dict) else {}
    schema = {k: v for k, v in schema.items() if k != "$schema"} or {"type": "object"}
    annotations = definition.annotations
    read_only = bool(annotations is not None and getattr(annotations, "read_only_hint", None))

    async def handler(ctx: ToolContext, tool_input: dict[str, Any]) -> ToolResult:
        await _approve(ctx, server, tool, tool_input, annotations)
        result = await connection.call(tool, tool_input)
        return render_result(result)

    return Tool(
        name=name,
        description=described[:DESCRIPTION_CHARS],
        input_schema=schema,
        handler=handler,
        summarize=lambda tool_input: f"{server} {tool} {_arguments(tool_input, 120)}",
        kind="other" if connection.config.read_only else "execute",
        plan_safe=read_only,
        read_only=read_only,
        # the server's readOnlyHint, or the user's readOnly for the whole server
        reach="nothing" if read_only or connection.config.read_only else "workspace",
    )


async def _approve(
    ctx: ToolContext, server: str, tool: str, tool_input: dict[str, Any], annotations: Any
) -> None:
    mode = ctx.approvals.policy.get("mcp", "ask")
    if mode == "deny":
        raise ToolError(
            "not allowed: the workspaceAgent.approvals setting denies MCP tools (mcp: deny)"
        )
    if mode == "allow":
        return
    action = f"call the tool {tool} of the MCP server {server} with {_arguments(tool_input)}"
    if annotations is not None and getattr(annotations, "destructive_hint", None):
        action += " (the server says this tool may delete or overwrite data)"
    elif annotations is not None and getattr(annotations, "read_only_hint", None):
        action += " (the server says this tool only reads)"
    await ctx.approvals.require(f"mcp:{server}", action, tool=tool)


def render_result(result: Any) -> ToolResult:
    output = HeadTailBuffer(OUTPUT_CAP)
    images: list[dict[str, Any]] = []
    notes: list[str] = []
    for block in result.content or []:
        kind = getattr(block, "type", None)
        if kind == "text":
            output.feed(block.text + "\n")
        elif kind == "image":
            note = _image(block, images)
            if note:
                notes.append(note)
        elif kind == "resource_link":
            output.feed(f"[resource link: {block.uri} ({block.name})]\n")
        elif kind == "resource":
            resource = block.resource
            text = getattr(resource, "text", None)
            if text is not None:
                output.feed(f"[resource {resource.uri}]\n{text}\n")
            else:
                notes.append(f"[binary resource {resource.uri} not shown]")
        else:
            notes.append(f"[{kind or 'unknown'} content not shown]")
    text = output.render().rstrip("\n")
    structured = getattr(result, "structured_content", None)
    if not text and structured is not None:
        capped = HeadTailBuffer(OUTPUT_CAP)
        capped.feed(json.dumps(structured, ensure_ascii=False, indent=2))
        text = capped.render()
    text = "\n".join(part for part in (text, *notes) if part) or "(no output)"
    return ToolResult(text=text, is_error=bool(result.is_error), images=tuple(images))


def _image(block: Any, images: list[dict[str, Any]]) -> str | None:
    mime = block.mime_type
    data = block.data if isinstance(block.data, str) else base64.b64encode(block.data).decode()
    size = len(data) * 3 // 4
    if mime not in IMAGE_TYPES:
        return f"[image of type {mime} not shown]"
    if size > MAX_IMAGE_BYTES:
        return f"[image of {size:,} bytes not shown: the limit is {MAX_IMAGE_BYTES:,}]"
    if len(images) >= MAX_IMAGES:
        return f"[more than {MAX_IMAGES} images: this one is not shown]"
    images.append({"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}})
    return None


def _arguments(tool_input: dict[str, Any], limit: int = ARGUMENTS_SHOWN) -> str:
    text = json.dumps(tool_input, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"
