"""read_file, write_file and edit_file: file access that needs no shell quoting.

A file open in the editor is read from its buffer (unsaved changes included) and changed
through the editor, so the user sees the change at once and can undo it. Other files are
read in blocks and written atomically, keeping their encoding, BOM, line endings and mode
(textfile.py decides the format, for reads and writes alike). Blocking disk I/O runs in a
worker thread so the server keeps answering meanwhile.

A change is planned before the user is asked: where it will land (the editor's buffer, or
the disk) is decided first, so the one question per tool call says what will happen.
"""

from __future__ import annotations

import asyncio
import io
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..guard.approvals import Details
from ..shared import images
from ..shared.documents import Buffer
from ..shared.errors import ToolError
from .base import FileChange, Tool, ToolContext, ToolResult
from .disk import atomic_write_parts
from .line_reader import LineWindow, read_window
from .paths import display_path, readable_path, safe_path
from .textfile import (
    NEW_FILE,
    SNIFF_BYTES,
    NotText,
    TextFormat,
    decode,
    encode,
    format_of,
    head_format,
    newline_of,
    shown_encoding,
    sniff_format,
)
from .textfile import to_file_newlines as in_file_newlines

NL, NL_BYTES = "\n", b"\n"
DEFAULT_READ_LIMIT = 2000
OUTPUT_CAP = 50_000
ENCODING_NAMES = {
    "latin-1": "latin-1",
    "utf-16-le": "UTF-16 LE",
    "utf-16-be": "UTF-16 BE",
    "utf-32-le": "UTF-32 LE",
    "utf-32-be": "UTF-32 BE",
}
"""How read_file names an encoding other than UTF-8 in its header."""

DIFF_CHARS = 200_000
"""The longest side of a proposed change a question shows as a diff."""


# -- read_file -------------------------------------------------------------------------


async def read_file(ctx: ToolContext, args: dict[str, Any]) -> str | ToolResult:
    path = readable_path(ctx.root, args["path"], ctx.read_roots)
    shown = display_path(ctx.root, path)
    offset = args.get("offset", 1) or 1
    limit = args.get("limit", DEFAULT_READ_LIMIT)
    buffer = await ctx.documents.buffer(path)
    if buffer is not None:
        data = buffer.text.encode("utf-8")
        window = read_window(io.BytesIO(data), len(data), offset, limit)
        return _render_window(shown, window, "utf-8", offset, len(data), " (open in the editor)")
    return await asyncio.to_thread(_read_disk, shown, path, offset, limit)


def _read_disk(shown: str, path: Path, offset: int, limit: int) -> str | ToolResult:
    _require_file(shown, path)
    with path.open("rb") as f:
        size = os.fstat(f.fileno()).st_size
        if images.sniff(f.read(12)) is not None:
            return _read_image(shown, f, size)
        f.seek(0)
        try:
            fmt = head_format(f.read(SNIFF_BYTES))
        except NotText:
            return f"{shown} is a binary file ({_size(size)}); its contents are not shown."
        window = read_window(f, size, offset, limit, fmt)
        encoding = shown_encoding(f, size, fmt, window.raw)
    where = f" ({ENCODING_NAMES[encoding]})" if encoding in ENCODING_NAMES else ""
    return _render_window(shown, window, encoding, offset, size, where)


def _read_image(shown: str, f: io.BufferedReader, size: int) -> ToolResult:
    """An image file as an image block the model sees, after a line saying what it is;
    one too large is refused from its size, unread."""
    try:
        images.check_size(size, shown)
        f.seek(0)
        image = images.checked(f.read(), shown)
    except images.ImageError as exc:
        raise ToolError(f"{exc}. Its contents are not shown.") from None
    return ToolResult(
        text=f"{shown}: image ({image.describe()}), shown below.", images=(image.block(),)
    )


def _render_window(
    shown: str, window: LineWindow, encoding: str, offset: int, size: int, where: str
) -> str:
    if window.total == 0:
        return f"{shown}: empty file (0 lines){where}"
    if not window.raw:
        length = f" ({window.total} lines)" if window.total is not None else ""
        raise ToolError(f"offset {offset} is past the end of {shown}{length}")
    texts, long_lines_cut = window.texts(encoding)
    out: list[str] = []
    used = 0
    for number, text in enumerate(texts, start=window.first):
        line = f"{number:>6}\t{text}"
        if used + len(line) > OUTPUT_CAP and out:
            break
        out.append(line)
        used += len(line) + 1
    last = window.first + len(out) - 1
    uncounted = f"a {_size(size)} file is too large to count its lines"
    if window.total is None and window.first < 0:
        header = (
            f"{shown}: lines {window.first} to {last} counted from the end "
            f"(-1 is the last line; {uncounted}){where}"
        )
    elif window.total is None:
        header = f"{shown}: lines {window.first}-{last} ({uncounted}){where}"
    else:
        header = f"{shown}: lines {window.first}-{last} of {window.total}{where}"
    notes = []
    if long_lines_cut:
        notes.append(f"{long_lines_cut} long line(s) were cut")
    if window.total is not None and last < window.total:
        notes.append(f"more lines follow: read with offset={last + 1} to continue")
    footer = f"\n({'; '.join(notes)})" if notes else ""
    return header + "\n" + "\n".join(out) + footer


# -- changing files: plan, ask once, apply -----------------------------------------------


@dataclass(frozen=True)
class _Change:
    """A change decided before the user is asked: `question` says what `apply` will do;
    `changes` describes it for front ends that show diffs."""

    question: str
    apply: Callable[[], Awaitable[str]]
    changes: tuple[FileChange, ...] = ()


async def _ask_and_apply(ctx: ToolContext, change: _Change) -> ToolResult:
    await ctx.approvals.require("write", change.question, details=_details(ctx, change))
    return ToolResult(await change.apply(), change.changes)


def _details(ctx: ToolContext, change: _Change) -> Details | None:
    """The path and the proposed change, for a question that shows the diff: the old and
    new text of the replaced region (the whole file for write_file); no diff when either
    side is longer than DIFF_CHARS."""
    if not change.changes:
        return None
    edit = change.changes[0]
    path = display_path(ctx.root, edit.path)
    sides = (edit.old_text or "", edit.new_text)
    if max(len(side) for side in sides) > DIFF_CHARS:
        return Details(path=path)
    diff = {"path": path, "before": edit.old_text, "after": edit.new_text, "line": edit.line}
    return Details(path=path, diff=diff)


async def _still_valid() -> None:
    return None


@dataclass(frozen=True)
class _DiskStamp:
    """A file's identity, size and times when a disk change was planned: the change is
    written only if they still hold (the approval may have taken the user minutes, and
    what they saved meanwhile must not be overwritten by a change planned without it)."""

    stat: tuple[int, int, int, int] | None

    @classmethod
    def of(cls, path: Path) -> _DiskStamp:
        try:
            st = path.stat()
        except FileNotFoundError:
            return cls(None)
        return cls((st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))

    def write(self, path: Path, shown: str, parts: tuple[bytes | memoryview, ...]) -> None:
        if _DiskStamp.of(path) != self:
            raise ToolError(
                f"{shown} changed on disk while the agent was waiting for approval; nothing "
                "was written. Read the file again and redo the change."
            )
        atomic_write_parts(path, parts)


def _disk_change(
    question: str,
    path: Path,
    shown: str,
    stamp: _DiskStamp,
    parts: tuple[bytes | memoryview, ...],
    done: str,
    change: FileChange,
    still_valid: Callable[[], Awaitable[None]] = _still_valid,
) -> _Change:
    async def apply() -> str:
        await still_valid()
        await asyncio.to_thread(stamp.write, path, shown, parts)
        return done

    return _Change(question, apply, (change,))


async def _replace_in_editor(
    ctx: ToolContext, path: Path, shown: str, buffer: Buffer, start: int, end: int, text: str
) -> None:
    if not await ctx.documents.replace(path, buffer, start, end, text):
        raise ToolError(f"the editor did not take the change to {shown}; nothing was changed")


_CANNOT_EDIT = "it is open in an editor that cannot take edits, so it is written on disk"


# -- write_file ------------------------------------------------------------------------


async def write_file(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    path = safe_path(ctx.root, args["path"])
    shown = display_path(ctx.root, path)
    content: str = args["content"]
    _check_size(shown, len(content.encode("utf-8")), ctx.settings.max_file_bytes)
    lines = _count_lines(content)
    buffer = await ctx.documents.buffer(path)
    if buffer is not None and ctx.documents.takes_edits():
        text = in_file_newlines(content, _buffer_format(buffer))

        async def in_editor() -> str:
            await _replace_in_editor(ctx, path, shown, buffer, 0, len(buffer.text), text)
            return f"Wrote {shown} in the editor ({lines} lines)"

        written = FileChange(path, _plain(buffer.text), content)
        change = _Change(f"overwrite {shown} in the editor ({lines} lines)", in_editor, (written,))
    else:
        note = "" if buffer is None else f"; {_CANNOT_EDIT}"
        change = await asyncio.to_thread(
            _plan_disk_write, path, shown, content, lines, note, ctx.settings.max_file_bytes
        )
        if buffer is None and change.changes[0].old_text is None:
            change = _created_by_editor_if_it_can(ctx, path, shown, content, lines, change)
    return await _ask_and_apply(ctx, change)


def _plan_disk_write(
    path: Path, shown: str, content: str, lines: int, note: str, limit: int
) -> _Change:
    if path.is_dir():
        raise ToolError(f"{shown} is a directory")
    stamp = _DiskStamp.of(path)
    existed = stamp.stat is not None
    fmt = _disk_format(shown, path, limit)
    data = _encode(shown, in_file_newlines(content, fmt), fmt)
    verb = "Overwrote" if existed else "Created"
    old = _plain(path.read_bytes()[len(fmt.bom) :].decode(fmt.encoding)) if existed else None
    return _disk_change(
        f"{'overwrite' if existed else 'create'} {shown} ({lines} lines{note})",
        path,
        shown,
        stamp,
        (data,),
        f"{verb} {shown} ({lines} lines, {_size(len(data))})",
        FileChange(path, old, content),
    )


def _created_by_editor_if_it_can(
    ctx: ToolContext, path: Path, shown: str, content: str, lines: int, on_disk: _Change
) -> _Change:
    """A new file goes through the editor when the editor creates files (ACP clients do),
    so the user sees it there; else, or if the file appeared meanwhile, the disk plan."""

    async def apply() -> str:
        if not await asyncio.to_thread(path.exists) and await ctx.documents.create(path, content):
            return f"Created {shown} in the editor ({lines} lines)"
        return await on_disk.apply()

    return replace(on_disk, apply=apply)


def _plain(text: str) -> str:
    """Text with "\\n" line breaks, as the model writes it (diffs compare like with like)."""
    return text.replace("\r\n", "\n") if "\r" in text else text


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


def _encode(shown: str, text: str, fmt: TextFormat) -> bytes:
    try:
        return encode(text, fmt)
    except NotText as exc:
        raise ToolError(f"cannot write {shown}: {exc}") from None


def _not_text(shown: str) -> ToolError:
    return ToolError(f"{shown} is a binary file; write_file and edit_file only change text files")


# -- edit_file -------------------------------------------------------------------------


async def edit_file(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    path = safe_path(ctx.root, args["path"])
    shown = display_path(ctx.root, path)
    old_text: str = args["old_text"]
    new_text: str = args["new_text"]
    if old_text == "":
        raise ToolError("old_text must not be empty; use write_file to create or replace a file")
    what = _replaces(_count_lines(old_text), _count_lines(new_text))
    buffer = await ctx.documents.buffer(path)
    if buffer is not None:
        change = await _plan_buffer_edit(ctx, path, shown, buffer, old_text, new_text, what)
    else:
        limit = ctx.settings.max_file_bytes
        change = await asyncio.to_thread(
            _plan_disk_edit, path, shown, old_text, new_text, what, limit
        )
    return await _ask_and_apply(ctx, change)


def _plan_disk_edit(
    path: Path, shown: str, old_text: str, new_text: str, what: str, limit: int
) -> _Change:
    _require_file(shown, path)
    stamp = _DiskStamp.of(path)
    _check_size(shown, path.stat().st_size, limit)
    data = path.read_bytes()  # once: the format is read from it too
    fmt = _format_of(shown, data)
    question = f"edit {shown}: {what}"
    if fmt.unit > 1:  # UTF-16/32: searched as text
        text = data[len(fmt.bom) :].decode(fmt.encoding)
        start, end, new = _locate(shown, text, old_text, new_text, fmt)
        edited = _encode(shown, text[:start] + new + text[end:], fmt)
        first = text.count(NL, 0, start) + 1
        done = f"Edited {shown}: {_where(first, new)}"
        change = FileChange(path, old_text, new_text, first)
        return _disk_change(question, path, shown, stamp, (edited,), done, change)
    # UTF-8 and latin-1 are searched as bytes: no decoded copy of a large file is made.
    start_b, end_b, new_b = _locate(
        shown, data, old_text, new_text, fmt, lambda t: _in_format(t, fmt)
    )
    view = memoryview(data)
    first = data.count(NL_BYTES, 0, start_b) + 1
    done = f"Edited {shown}: {_where(first, new_b)}"
    parts = (view[:start_b], new_b, view[end_b:])
    change = FileChange(path, old_text, new_text, first)
    return _disk_change(question, path, shown, stamp, parts, done, change)


async def _plan_buffer_edit(
    ctx: ToolContext,
    path: Path,
    shown: str,
    buffer: Buffer,
    old_text: str,
    new_text: str,
    what: str,
) -> _Change:
    """Edit the text the user has open; through the editor when it takes edits."""
    start, end, new = _locate(shown, buffer.text, old_text, new_text, _buffer_format(buffer))
    first = buffer.text.count("\n", 0, start) + 1
    where = _where(first, new)
    change = FileChange(path, old_text, new_text, first)
    if ctx.documents.takes_edits():

        async def in_editor() -> str:
            await _replace_in_editor(ctx, path, shown, buffer, start, end, new)
            return f"Edited {shown} in the editor: {where}"

        return _Change(f"edit {shown} in the editor: {what}", in_editor, (change,))
    # An editor that cannot apply edits: the edited buffer goes to disk, unsaved changes
    # and all (applying the edit to the older text on disk would fork the two copies).
    limit = ctx.settings.max_file_bytes
    stamp, fmt, on_disk = await asyncio.to_thread(_disk_text, shown, path, limit)
    data = _encode(shown, buffer.text[:start] + new + buffer.text[end:], fmt)
    unsaved = " with its unsaved changes" if on_disk != buffer.text else ""

    async def buffer_unchanged() -> None:  # the edit was made on this text
        if await ctx.documents.buffer(path) != buffer:
            raise ToolError(
                f"{shown} changed in the editor while the agent was waiting for approval; "
                "nothing was written. Read the file again and redo the edit."
            )

    question = f"edit {shown}: {what} ({_CANNOT_EDIT}{unsaved})"
    done = f"Edited {shown}: {where}"
    return _disk_change(question, path, shown, stamp, (data,), done, change, buffer_unchanged)


def _disk_text(shown: str, path: Path, limit: int) -> tuple[_DiskStamp, TextFormat, str | None]:
    """The file's stamp, how it is stored and its text (None when it is not on disk)."""
    stamp = _DiskStamp.of(path)
    if stamp.stat is None:
        return stamp, NEW_FILE, None
    _check_size(shown, path.stat().st_size, limit)
    try:
        text, fmt = decode(path.read_bytes())
    except NotText:
        raise _not_text(shown) from None
    return stamp, fmt, text


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


def _replaces(old: int, new: int) -> str:
    """ "change 1 line", "replace 1 line with 2", "replace 3 lines with nothing"."""
    lines = f"{old} line" if old == 1 else f"{old} lines"
    return f"change {lines}" if old == new else f"replace {lines} with {new or 'nothing'}"


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


def _path_target(args: dict[str, Any]) -> list[tuple[str, int | None]]:
    return [(args["path"], None)]


def _read_target(args: dict[str, Any]) -> list[tuple[str, int | None]]:
    offset = args.get("offset")
    line = offset if isinstance(offset, int) and offset >= 1 else None
    return [(args["path"], line)]


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
        "open in the editor is read as the user has it, unsaved changes included. An image "
        "(PNG, JPEG, GIF, WebP) is shown to you as the image."
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
    kind="read",
    plan_safe=True,
    read_only=True,
    reach="nothing",
    targets=_read_target,
    aliases=("Read",),
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
    kind="edit",
    reach="named_file",
    whole_file_changes=True,  # it reports the whole old and new file (write_file)
    targets=_path_target,
    aliases=("Write",),
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
    kind="edit",
    reach="named_file",
    targets=_path_target,
    aliases=("Edit", "MultiEdit"),
)
