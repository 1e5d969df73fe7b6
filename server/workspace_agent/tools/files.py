"""read_file, write_file and edit_file: file access that needs no shell quoting.

Blocking file I/O runs in a worker thread so the server keeps answering (and publishing
notifications) while a large file is read.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from .base import Tool, ToolContext, ToolError
from .disk import atomic_write
from .line_reader import read_window
from .paths import display_path, safe_path

DEFAULT_READ_LIMIT = 2000
OUTPUT_CAP = 50_000
SNIFF_BYTES = 8192


async def read_file(ctx: ToolContext, args: dict[str, Any]) -> str:
    path = safe_path(ctx.root, args["path"])
    offset = args.get("offset", 1) or 1
    limit = args.get("limit", DEFAULT_READ_LIMIT)
    if limit < 1:
        raise ToolError("limit must be at least 1")
    return await asyncio.to_thread(_read, display_path(ctx.root, path), path, offset, limit)


def _read(shown: str, path: Path, offset: int, limit: int) -> str:
    _require_file(shown, path)
    with path.open("rb") as f:
        size = path.stat().st_size
        head = f.read(SNIFF_BYTES)
        if b"\x00" in head:
            return f"{shown} is a binary file ({_size(size)}); its contents are not shown."
        window = read_window(f, size, offset, limit)
    if window.total == 0:
        return f"{shown}: empty file (0 lines)"
    if not window.lines:
        length = f" ({window.total} lines)" if window.total is not None else ""
        raise ToolError(f"offset {offset} is past the end of {shown}{length}")
    out: list[str] = []
    used = 0
    number = window.first
    for text in window.lines:
        line = f"{number:>6}\t{text}"
        if used + len(line) > OUTPUT_CAP and out:
            break
        out.append(line)
        used += len(line) + 1
        number += 1
    last = window.first + len(out) - 1
    if window.total is None:
        header = (
            f"{shown}: lines {window.first} to {last} counted from the end "
            f"(-1 is the last line; a {_size(size)} file is too large to count its lines)"
        )
    else:
        header = f"{shown}: lines {window.first}-{last} of {window.total}"
    notes = []
    if window.long_lines_cut:
        notes.append(f"{window.long_lines_cut} long line(s) were cut")
    if window.total is not None and last < window.total:
        notes.append(f"more lines follow: read with offset={last + 1} to continue")
    footer = f"\n({'; '.join(notes)})" if notes else ""
    return header + "\n" + "\n".join(out) + footer


async def write_file(ctx: ToolContext, args: dict[str, Any]) -> str:
    path = safe_path(ctx.root, args["path"])
    content: str = args["content"]
    return await asyncio.to_thread(_write, display_path(ctx.root, path), path, content)


def _write(shown: str, path: Path, content: str) -> str:
    if path.is_dir():
        raise ToolError(f"{shown} is a directory")
    existed = path.exists()
    data = content.encode("utf-8")
    atomic_write(path, data)
    lines = content.count("\n") + (1 if content and not content.endswith("\n") else 0)
    verb = "Overwrote" if existed else "Created"
    return f"{verb} {shown} ({lines} lines, {_size(len(data))})"


async def edit_file(ctx: ToolContext, args: dict[str, Any]) -> str:
    path = safe_path(ctx.root, args["path"])
    shown = display_path(ctx.root, path)
    return await asyncio.to_thread(_edit, shown, path, args["old_text"], args["new_text"])


def _edit(shown: str, path: Path, old_text: str, new_text: str) -> str:
    if old_text == "":
        raise ToolError("old_text must not be empty; use write_file to create or replace a file")
    _require_file(shown, path)
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolError(f"{shown} is not UTF-8 text; edit_file only edits text files") from exc
    count = text.count(old_text)
    if count == 0 and "\r\n" in text and "\r\n" not in old_text:
        # The model writes "\n"; a CRLF file keeps its own line endings.
        old_text, new_text = _crlf(old_text), _crlf(new_text)
        count = text.count(old_text)
    if count == 0:
        raise ToolError(
            f"old_text was not found in {shown}; read the file and copy the text exactly, "
            "including whitespace. The file was not changed."
        )
    if count > 1:
        raise ToolError(
            f"old_text occurs {count} times in {shown}; it must occur exactly once. "
            "Include more surrounding lines to make it unique. The file was not changed."
        )
    at = text.index(old_text)
    atomic_write(path, (text[:at] + new_text + text[at + len(old_text) :]).encode("utf-8"))
    first_line = text.count("\n", 0, at) + 1
    last_line = first_line + new_text.count("\n")
    return f"Edited {shown}: replaced 1 occurrence (now lines {first_line}-{last_line})"


def _crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def _require_file(shown: str, path: Path) -> None:
    if not path.exists():
        raise ToolError(f"{shown} does not exist")
    if path.is_dir():
        raise ToolError(f"{shown} is a directory, not a file; use bash (ls) to list it")


def _size(n: int) -> str:
    size = float(n)
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{n} bytes" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} bytes"


def _path_summary(args: dict[str, Any]) -> str:
    return str(args.get("path", ""))


def _read_summary(args: dict[str, Any]) -> str:
    extra = []
    if "offset" in args:
        extra.append(f"offset={args['offset']}")
    if "limit" in args:
        extra.append(f"limit={args['limit']}")
    return f"{args.get('path', '')} {' '.join(extra)}".strip()


READ_FILE = Tool(
    name="read_file",
    description=(
        "Read lines of a text file in the workspace. Lines come numbered; the first line of "
        "the result says which lines of how many are shown. `offset` is the 1-based first "
        "line (negative counts from the end: -50 = the last 50 lines); `limit` is how many "
        f"lines to return (default {DEFAULT_READ_LIMIT}). Works on files of any size."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Path relative to the workspace root."},
            "offset": {
                "type": "integer",
                "description": "1-based first line; negative counts from the end.",
            },
            "limit": {"type": "integer", "minimum": 1, "description": "Number of lines."},
        },
        "required": ["path"],
        "additionalProperties": False,
    },
    handler=read_file,
    summarize=_read_summary,
)

WRITE_FILE = Tool(
    name="write_file",
    description=(
        "Create or overwrite a file in the workspace with the given content. Parent folders "
        "are created as needed."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Path relative to the workspace root."},
            "content": {"type": "string", "description": "The complete new file content."},
        },
        "required": ["path", "content"],
        "additionalProperties": False,
    },
    handler=write_file,
    summarize=_path_summary,
)

EDIT_FILE = Tool(
    name="edit_file",
    description=(
        "Replace one exact piece of text in a file. `old_text` must occur exactly once in the "
        "file (include surrounding lines to make it unique); it is replaced by `new_text`. "
        "No shell quoting is involved."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Path relative to the workspace root."},
            "old_text": {"type": "string", "description": "Exact text to replace."},
            "new_text": {"type": "string", "description": "Replacement text."},
        },
        "required": ["path", "old_text", "new_text"],
        "additionalProperties": False,
    },
    handler=edit_file,
    summarize=_path_summary,
)
