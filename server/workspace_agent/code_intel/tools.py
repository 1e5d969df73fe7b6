"""The `code_intel` and `rename_symbol` tools over one source of answers (the editor or the
configured language servers). They are made per run, only when a source can answer, so a
run without one carries neither (agent/sessions.py).
"""

from __future__ import annotations

from typing import Any

from ..shared.code_intel import OPERATIONS, CodeIntel
from ..shared.errors import ToolError
from ..tools.base import Tool, ToolContext, ToolResult
from ..tools.paths import display_path, safe_path
from . import render
from .positions import lines_of, position_in
from .source_text import LineTexts, current_text

CODE_INTEL_DESCRIPTION = (
    "Ask the language server about code (read-only). operation: definition, references, "
    "implementations, hover (type and docs), incoming_calls, outgoing_calls (these need path, "
    "line, column: the symbol's place, counted from 1), document_symbols (path), "
    "workspace_symbols (query). Prefer it to grep for symbols: it knows scopes and imports. "
    "Results: path:line:col with the line, grouped by file."
)
RENAME_DESCRIPTION = (
    "Rename a symbol everywhere the language server finds it (every file, one step). "
    "path, line, column (from 1) point at the symbol; new_name is its new name."
)
POSITION = {
    "path": {"type": "string", "description": "File, relative to the workspace."},
    "line": {"type": "integer", "minimum": 1},
    "column": {"type": "integer", "minimum": 1},
}
NEEDS_POSITION = {
    "definition",
    "references",
    "implementations",
    "hover",
    "incoming_calls",
    "outgoing_calls",
}
WHAT = {
    "definition": "definitions",
    "references": "references",
    "implementations": "implementations",
    "document_symbols": "symbols",
    "workspace_symbols": "symbols",
    "incoming_calls": "calls",
    "outgoing_calls": "callees",
}


def code_intel_tools(source: CodeIntel) -> dict[str, Tool]:
    """Both tools, answered by `source`."""

    async def ask(ctx: ToolContext, args: dict[str, Any]) -> str:
        return await _ask(ctx, args, source)

    async def rename(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
        from .rename import rename_symbol

        return await rename_symbol(ctx, args, source)

    code_intel = Tool(
        name="code_intel",
        description=CODE_INTEL_DESCRIPTION,
        input_schema={
            "type": "object",
            "properties": {
                "operation": {"type": "string", "enum": list(OPERATIONS)},
                **POSITION,
                "query": {"type": "string", "description": "workspace_symbols: name or part."},
            },
            "required": ["operation"],
            "additionalProperties": False,
        },
        handler=ask,
        summarize=_summary,
        kind="read",
        targets=_targets,
        plan_safe=True,
        read_only=True,
        reach="nothing",
        aliases=("LSP",),  # Claude Code's: its hooks' matchers name it so
    )
    rename_symbol = Tool(
        name="rename_symbol",
        description=RENAME_DESCRIPTION,
        input_schema={
            "type": "object",
            "properties": {**POSITION, "new_name": {"type": "string", "minLength": 1}},
            "required": ["path", "line", "column", "new_name"],
            "additionalProperties": False,
        },
        handler=rename,
        summarize=lambda a: f"{a['path']}:{a['line']}:{a['column']} → {a['new_name']}",
        kind="edit",
        targets=_targets,
        reach="workspace",
        whole_file_changes=True,
    )
    return {tool.name: tool for tool in (code_intel, rename_symbol)}


def _summary(args: dict[str, Any]) -> str:
    operation = args["operation"]
    if operation == "workspace_symbols":
        return f"workspace_symbols {args.get('query', '')!r}"
    where = ":".join(str(args[key]) for key in ("path", "line", "column") if key in args)
    return f"{operation} {where}"


def _targets(args: dict[str, Any]) -> list[tuple[str, int | None]]:
    return [(args["path"], args.get("line"))] if "path" in args else []


async def _ask(ctx: ToolContext, args: dict[str, Any], source: CodeIntel) -> str:
    operation = args["operation"]
    query = args.get("query")
    if operation == "workspace_symbols":
        if not query or not str(query).strip():
            raise ToolError("workspace_symbols needs a query: a symbol's name or part of it")
        if "path" not in args:
            answer = await source.ask(operation, ctx.root, None, str(query), "")
            places = render.symbols(answer, "")
            return await _listing(ctx, places, operation)
    if "path" not in args:
        raise ToolError(f"{operation} needs path (the file, relative to the workspace)")
    path = safe_path(ctx.root, args["path"])
    shown = display_path(ctx.root, path)
    if not source.handles(path):
        raise ToolError(
            f"no language server answers for {shown} ({source.name}); use search or read_file"
        )
    text = await current_text(ctx.root, ctx.documents, path, ctx.settings.max_file_bytes)
    lines = lines_of(text)
    position = None
    if operation in NEEDS_POSITION:
        missing = [key for key in ("line", "column") if key not in args]
        if missing:
            raise ToolError(
                f"{operation} needs line and column (from 1) of the symbol; missing: "
                f"{', '.join(missing)}"
            )
        position = position_in(lines, args["line"], args["column"], shown)
    answer = await source.ask(operation, path, position, query, text)
    texts = LineTexts(ctx.root, ctx.documents)
    texts.know(path, lines)
    if operation == "hover":
        said = render.hover_text(answer)
        return (
            said
            or f"{source.name} has nothing to say about {shown}:{args['line']}:{args['column']}"
        )
    if operation in ("document_symbols", "workspace_symbols"):
        from .uris import to_uri

        return await _listing(ctx, render.symbols(answer, to_uri(path)), operation, texts)
    if operation in ("incoming_calls", "outgoing_calls"):
        places = render.calls(answer, operation == "incoming_calls")
        return await _listing(ctx, places, operation, texts)
    return await _listing(ctx, render.locations(answer), operation, texts)


async def _listing(
    ctx: ToolContext, places: list[render.Place], operation: str, texts: LineTexts | None = None
) -> str:
    narrow = (
        "narrow the query"
        if operation == "workspace_symbols"
        else "read the files listed, or ask about a narrower symbol"
    )
    texts = texts or LineTexts(ctx.root, ctx.documents)
    return await render.listing(places, ctx.root, texts, WHAT[operation], narrow)
