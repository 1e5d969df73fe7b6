"""read_file, write_file and edit_file: file access that needs no shell quoting.

A file open in the editor is read from its buffer (unsaved changes included) and changed
through the editor, so the user sees the change at once and can undo it. Other files are
read in blocks and written atomically, keeping their encoding, BOM, line endings and mode.
Blocking disk I/O runs in a worker thread so the server keeps answering meanwhile.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .base import Tool, ToolContext
from .disk import atomic_write, atomic_write_parts
from .documents import Buffer
from .errors import ToolError
from .line_reader import LineWindow, read_window
from .paths import display_path, safe_path
from .textfile import (
    NEW_FILE,
    SNIFF_BYTES,
    NotText,
    TextFormat,
    encode,
    format_of,
    is_binary,
    newline_of,
    sniff_format,
)
from .textfile import to_file_newlines as in_file_newlines

NL, NL_BYTES = "\n", b"\n"
DEFAULT_READ_LIMIT = 2000
OUTPUT_CAP = 50_000


# -- read_file -------------------------------------------------------------------------


async def read_file(ctx: ToolContext, args: dict[str, Any]) -> str:
    path = safe_path(ctx.root, args["path"])
    shown = display_path(ctx.root, path)
    offset = args.get("offset", 1) or 1
    limit = args.get("limit", DEFAULT_READ_LIMIT)
    buffer = ctx.documents.buffer(path)
    if buffer is not None:
        data = buffer.text.encode("utf-8")
        window = read_window(io.BytesIO(data), len(data), offset, limit)
        return _render_window(shown, window, offset, len(data), " (open in the editor)")
    return await asyncio.to_thread(_read_disk, shown, path, offset, limit)


def _read_disk(shown: str, path: Path, offset: int, limit: int) -> str:
    _require_file(shown, path)
    with path.open("rb") as f:
        size = path.stat().st_size
        if is_binary(f.read(SNIFF_BYTES)):
            return f"{shown} is a binary file ({_size(size)}); its contents are not shown."
        window = read_window(f, size, offset, limit)
    return _render_window(shown, window, offset, size, "")


def _render_window(shown: str, window: LineWindow, offset: int, size: int, where: str) -> str:
    if window.total == 0:
        return f"{shown}: empty file (0 lines){where}"
    if not window.lines:
        length = f" ({window.total} lines)" if window.total is not None else ""
        raise ToolError(f"offset {offset} is past the end of {shown}{length}")
    out: list[str] = []
    used = 0
    for number, text in enumerate(window.lines, start=window.first):
        line = f"{number:>6}\t{text}"
        if used + len(line) > OUTPUT_CAP and out:
            break
        out.append(line)
        used += len(line) + 1
    last = window.first + len(out) - 1
    if window.total is None:
        header = (
            f"{shown}: lines {window.first} to {last} counted from the end "
            f"(-1 is the last line; a {_size(size)} file is too large to count its lines)"
        )
    else:
        header = f"{shown}: lines {window.first}-{last} of {window.total}{where}"
    notes = []
    if window.long_lines_cut:
        notes.append(f"{window.long_lines_cut} long line(s) were cut")
    if window.total is not None and last < window.total:
        notes.append(f"more lines follow: read with offset={last + 1} to continue")
    footer = f"\n({'; '.join(notes)})" if notes else ""
    return header + "\n" + "\n".join(out) + footer


# -- write_file ------------------------------------------------------------------------


async def write_file(ctx: ToolContext, args: dict[str, Any]) -> str:
    path = safe_path(ctx.root, args["path"])
    shown = display_path(ctx.root, path)
    content: str = args["content"]
    _check_size(shown, len(content.encode("utf-8")), ctx.settings.max_file_bytes)
    lines = _count_lines(content)
    buffer = ctx.documents.buffer(path)
    if buffer is not None:
        text = in_file_newlines(content, _buffer_format(buffer))
        await ctx.approvals.require(
            "write", f"Overwrite {shown} ({lines} lines, open in the editor)"
        )
        if await ctx.documents.replace(path, buffer, 0, len(buffer.text), text):
            return f"Wrote {shown} in the editor ({lines} lines)"
    if path.is_dir():
        raise ToolError(f"{shown} is a directory")
    existed = path.exists()
    fmt = await asyncio.to_thread(_disk_format, shown, path, ctx.settings.max_file_bytes)
    await ctx.approvals.require(
        "write", f"{'overwrite' if existed else 'create'} {shown} ({lines} lines)"
    )
    verb = "Overwrote" if existed else "Created"
    try:
        data = encode(in_file_newlines(content, fmt), fmt)
    except NotText as exc:
        raise ToolError(f"cannot write {shown}: {exc}") from None
    await asyncio.to_thread(atomic_write, path, data)
    return f"{verb} {shown} ({lines} lines, {_size(len(data))})"


def _disk_format(shown: str, path: Path, limit: int) -> TextFormat:
    """How an existing file is stored (a new file gets UTF-8 and "\\n")."""
    if not path.exists():
        return NEW_FILE
    _check_size(shown, path.stat().st_size, limit)
    try:
        return sniff_format(path)
    except NotText:
        raise _not_text(shown) from None


def _format_of(shown: str, data: bytes) -> TextFormat:
    try:
        return format_of(data)
    except NotText:
        raise _not_text(shown) from None


def _not_text(shown: str) -> ToolError:
    return ToolError(f"{shown} is a binary file; write_file and edit_file only change text files")


# -- edit_file -------------------------------------------------------------------------


async def edit_file(ctx: ToolContext, args: dict[str, Any]) -> str:
    path = safe_path(ctx.root, args["path"])
    shown = display_path(ctx.root, path)
    old_text: str = args["old_text"]
    new_text: str = args["new_text"]
    if old_text == "":
        raise ToolError("old_text must not be empty; use write_file to create or replace a file")
    question = (
        f"edit {shown}: replace {_count_lines(old_text)} line(s) "
        f"with {_count_lines(new_text)} line(s)"
    )
    buffer = ctx.documents.buffer(path)
    if buffer is not None:
        return await _edit_buffer(ctx, path, shown, buffer, old_text, new_text, question)
    _require_file(shown, path)
    _check_size(shown, path.stat().st_size, ctx.settings.max_file_bytes)
    data = await asyncio.to_thread(path.read_bytes)  # once: the format is read from it too
    fmt = _format_of(shown, data)
    if fmt.encoding.startswith("utf-16"):
        text = data[len(fmt.bom) :].decode(fmt.encoding)
        start, end, new = _locate(shown, text, old_text, new_text, fmt)
        await ctx.approvals.require("write", question)
        await asyncio.to_thread(atomic_write, path, encode(text[:start] + new + text[end:], fmt))
        return f"Edited {shown}: {_where(text.count(NL, 0, start) + 1, new)}"
    # UTF-8 and latin-1 are searched as bytes: no decoded copy of a large file is made.
    start, end, new_b = _locate(shown, data, old_text, new_text, fmt, lambda t: _in_format(t, fmt))
    await ctx.approvals.require("write", question)
    view = memoryview(data)
    await asyncio.to_thread(atomic_write_parts, path, (view[:start], new_b, view[end:]))
    return f"Edited {shown}: {_where(data.count(NL_BYTES, 0, start) + 1, new_b)}"


async def _edit_buffer(
    ctx: ToolContext,
    path: Path,
    shown: str,
    buffer: Buffer,
    old_text: str,
    new_text: str,
    question: str,
) -> str:
    """Edit the text the user has open; through the editor when it takes edits."""
    start, end, new = _locate(shown, buffer.text, old_text, new_text, _buffer_format(buffer))
    await ctx.approvals.require("write", question + " (open in the editor)")
    where = _where(buffer.text.count("\n", 0, start) + 1, new)
    if await ctx.documents.replace(path, buffer, start, end, new):
        return f"Edited {shown} in the editor: {where}"
    # An editor that cannot apply edits: the edited text goes to disk.
    fmt = await asyncio.to_thread(_disk_format, shown, path, ctx.settings.max_file_bytes)
    data = encode(buffer.text[:start] + new + buffer.text[end:], fmt)
    await asyncio.to_thread(atomic_write, path, data)
    return f"Edited {shown}: {where}"


def _locate(
    shown: str,
    haystack: Any,
    old_text: str,
    new_text: str,
    fmt: TextFormat,
    piece: Callable[[str], Any] = lambda text: text,
) -> tuple[int, int, Any]:
    """Where the single occurrence of `old_text` is, and the replacement in the file's line
    endings (and as bytes when `piece` encodes); ToolError unless there is exactly one."""
    old = piece(old_text)
    start = haystack.find(old)
    if start < 0 and fmt.newline == "\r\n":
        old = piece(in_file_newlines(old_text, fmt))  # the model writes "\n"
        start = haystack.find(old)
    if start < 0:
        raise ToolError(
            f"old_text was not found in {shown}; read the file and copy the text exactly, "
            "including whitespace. The file was not changed."
        )
    if haystack.find(old, start + len(old)) >= 0:  # one pass in all when the text is unique
        raise ToolError(
            f"old_text occurs {haystack.count(old)} times in {shown}; it must occur exactly "
            "once. Include more surrounding lines to make it unique. The file was not changed."
        )
    return start, start + len(old), piece(in_file_newlines(new_text, fmt))


def _in_format(text: str, fmt: TextFormat) -> bytes:
    try:
        return text.encode(fmt.encoding)
    except UnicodeEncodeError:
        raise ToolError(
            f"the new text has characters that the file's encoding ({fmt.encoding}) cannot store"
        ) from None


def _where(first_line: int, new: str | bytes) -> str:
    last_line = first_line + (new.count(NL_BYTES) if isinstance(new, bytes) else new.count(NL))
    return f"replaced 1 occurrence (now lines {first_line}-{last_line})"


# -- shared ----------------------------------------------------------------------------


def _buffer_format(buffer: Buffer) -> TextFormat:
    return TextFormat(newline=newline_of(buffer.text))


def _check_size(shown: str, size: int, limit: int) -> None:
    if size > limit:
        raise ToolError(
            f"{shown} is too large to write or edit as a whole ({_size(size)}; the limit is "
            f"{_size(limit)}, setting workspaceAgent.maxFileBytes)"
        )


def _count_lines(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


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
    extra = [f"{key}={args[key]}" for key in ("offset", "limit") if key in args]
    return " ".join([str(args.get("path", "")), *extra])


READ_FILE = Tool(
    name="read_file",
    description=(
        "Read lines of a text file in the workspace. Lines come numbered; the first line of "
        "the result says which lines of how many are shown. `offset` is the 1-based first "
        "line (negative counts from the end: -50 = the last 50 lines); `limit` is how many "
        f"lines to return (default {DEFAULT_READ_LIMIT}). Works on files of any size. A file "
        "open in the editor is read as the user has it, unsaved changes included."
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
        "are created as needed; an existing file keeps its encoding and line endings."
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
    changes_workspace=True,
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
    changes_workspace=True,
)
