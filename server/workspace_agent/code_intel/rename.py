"""rename_symbol: the language server's WorkspaceEdit applied through the agent's write
path: one approval for every file (the question lists them), each file open in the editor
changed in its buffer (unsaved changes kept, the user can undo it there), the others
written on disk in their own encoding and line endings, and the checkpoints' step of the
call lists every file, reverted as one.

Nothing is changed when any file of the edit is outside the workspace (they are listed),
when the edit creates, renames or deletes files, or when a file changed since the edit
was computed.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

from ..guard.approvals import Details
from ..shared.code_intel import CodeIntel
from ..shared.documents import Buffer
from ..shared.errors import ToolError
from ..tools.base import FileChange, ToolContext, ToolResult
from ..tools.disk import atomic_write
from ..tools.paths import display_path, safe_path
from ..tools.textfile import NotText, TextFormat, decode, encode, newline_of
from .positions import line_starts, offset_of, to_wire
from .source_text import current_text
from .uris import to_path

IDENTIFIER_LIKE = re.compile(r"\S+")


@dataclass
class _FilePlan:
    path: Path
    shown: str
    old: str
    new: str
    lines: int
    """Lines the edits touch (servers cut a rename into edits as they like)."""
    buffer: Buffer | None
    stat: tuple[int, int] | None
    fmt: TextFormat


async def rename_symbol(ctx: ToolContext, args: dict[str, Any], source: CodeIntel) -> ToolResult:
    new_name = args["new_name"]
    if not IDENTIFIER_LIKE.fullmatch(new_name):
        raise ToolError("new_name must be one name, without spaces or line breaks")
    path = safe_path(ctx.root, args["path"])
    shown = display_path(ctx.root, path)
    if not source.handles(path):
        raise ToolError(f"no language server answers for {shown} ({source.name})")
    text = await current_text(ctx.root, ctx.documents, path, ctx.settings.max_file_bytes)
    position = to_wire(text, args["line"], args["column"], shown)
    edit = await source.rename(path, position, new_name, text)
    by_path = _text_edits(edit, ctx.root)
    loaded = _loaded_for_this(edit)
    if not by_path:
        raise ToolError(
            f"{source.name} found nothing to rename at {shown}:{args['line']}:{args['column']}; "
            "point at the symbol's name (code_intel hover tells what is there)"
        )
    plans = [
        await _plan(ctx, file, edits, file in loaded) for file, edits in sorted(by_path.items())
    ]
    plans = [plan for plan in plans if plan.new != plan.old]
    if not plans:
        return ToolResult(f"Nothing to change: the symbol is already named {new_name}.")
    lines = sum(plan.lines for plan in plans)
    files = ", ".join(plan.shown for plan in plans)
    question = (
        f"rename to {new_name}: {_count(lines, 'line')} in {_count(len(plans), 'file')} ({files})"
    )
    await ctx.approvals.require(
        "write", question, details=Details(path=plans[0].shown), tool="rename_symbol"
    )
    for plan in plans:
        await _still_the_same(ctx, plan)
    for plan in plans:
        await _apply(ctx, plan)
    changes = tuple(FileChange(plan.path, _plain(plan.old), _plain(plan.new)) for plan in plans)
    listed = [f"  {plan.shown}: {_count(plan.lines, 'line')}" for plan in plans]
    head = f"Renamed to {new_name}: {_count(lines, 'line')} in {_count(len(plans), 'file')}"
    return ToolResult(head + "\n" + "\n".join(listed), changes)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _text_edits(edit: Any, root: Path) -> dict[Path, list[dict[str, Any]]]:
    """The edit's text edits by file; ToolError when it does more than edit text or
    reaches outside the workspace (nothing is changed then)."""
    if edit is None:
        return {}
    if not isinstance(edit, dict):
        raise ToolError(f"the language server answered the rename with {type(edit).__name__}")
    by_uri: dict[str, list[dict[str, Any]]] = {}
    for uri, edits in (edit.get("changes") or {}).items():
        by_uri.setdefault(uri, []).extend(edits)
    for change in edit.get("documentChanges") or []:
        if "kind" in change:
            named = change.get("uri") or change.get("oldUri")
            raise ToolError(
                f"the rename also {change['kind']}s files ({named}); "
                "rename_symbol only edits text, so nothing was changed: rename the file "
                "with bash (git mv) and the symbol with edit_file"
            )
        uri = change["textDocument"]["uri"]
        by_uri.setdefault(uri, []).extend(change["edits"])
    by_path: dict[Path, list[dict[str, Any]]] = {}
    outside = []
    for uri, edits in by_uri.items():
        path = to_path(uri)
        try:
            if path is None:
                raise ToolError("not a file")
            by_path.setdefault(safe_path(root, str(path)), []).extend(edits)
        except ToolError:
            outside.append(str(path) if path is not None else uri)
    if outside:
        raise ToolError(
            "the rename would change files outside the workspace, so nothing was changed: "
            + ", ".join(sorted(outside))
        )
    return by_path


def _loaded_for_this(edit: Any) -> set[Path]:
    """Files the editor loaded only to compute the rename (`loadedForRename`, VS Code): no
    document the user has open, so their edits go to disk, not to a hidden buffer."""
    uris = edit.get("loadedForRename") if isinstance(edit, dict) else None
    paths = (to_path(uri) for uri in uris if isinstance(uri, str)) if isinstance(uris, list) else ()
    return {path.resolve() for path in paths if path is not None}


async def _plan(
    ctx: ToolContext, path: Path, edits: list[dict[str, Any]], loaded_for_this: bool
) -> _FilePlan:
    shown = display_path(ctx.root, path)
    buffer = None if loaded_for_this else await ctx.documents.buffer(path)
    if buffer is not None:
        old, stat, fmt = buffer.text, None, TextFormat(newline=newline_of(buffer.text))
    else:
        old, stat, fmt = await asyncio.to_thread(_disk, path, shown, ctx.settings.max_file_bytes)
    lines = len({edit["range"]["start"]["line"] for edit in edits})
    return _FilePlan(path, shown, old, _applied(old, edits, shown), lines, buffer, stat, fmt)


def _disk(path: Path, shown: str, limit: int) -> tuple[str, tuple[int, int], TextFormat]:
    st = path.stat()
    if st.st_size > limit:
        raise ToolError(f"{shown} is too large to edit ({st.st_size} bytes; the limit is {limit})")
    try:
        text, fmt = decode(path.read_bytes())
    except NotText:
        raise ToolError(f"{shown} is a binary file; the rename was not made") from None
    return text, (st.st_mtime_ns, st.st_size), fmt


def _applied(text: str, edits: list[dict[str, Any]], shown: str) -> str:
    """`text` with the edits made (they must not overlap: the protocol says so)."""
    lines, starts = line_starts(text)
    spans = []
    for edit in edits:
        where = edit["range"]
        start = offset_of(lines, starts, where["start"])
        end = offset_of(lines, starts, where["end"])
        spans.append((start, end, edit["newText"]))
    spans.sort(key=lambda span: (span[0], span[1]))
    for before, after in pairwise(spans):
        if after[0] < before[1]:
            raise ToolError(f"the language server's edits of {shown} overlap; nothing was changed")
    out, at = [], 0
    for start, end, new in spans:
        out.append(text[at:start])
        out.append(new)
        at = end
    out.append(text[at:])
    return "".join(out)


async def _still_the_same(ctx: ToolContext, plan: _FilePlan) -> None:
    """Nothing changes unless every file is as the rename found it (the approval may have
    taken the user minutes)."""
    if plan.buffer is not None:
        same = await ctx.documents.buffer(plan.path) == plan.buffer
    else:
        try:
            st = plan.path.stat()
            same = (st.st_mtime_ns, st.st_size) == plan.stat
        except OSError:
            same = False
    if not same:
        raise ToolError(
            f"{plan.shown} changed while the agent was waiting for approval; nothing was "
            "changed. Ask for the rename again."
        )


async def _apply(ctx: ToolContext, plan: _FilePlan) -> None:
    if plan.buffer is not None and ctx.documents.takes_edits():
        start, end, middle = _changed_span(plan.old, plan.new)
        if not await ctx.documents.replace(plan.path, plan.buffer, start, end, middle):
            raise ToolError(f"the editor did not take the change to {plan.shown}")
        return
    if plan.buffer is not None:  # an editor that cannot edit: its text goes to disk
        _, plan.fmt = await asyncio.to_thread(_format_on_disk, plan.path, plan.fmt)
    try:
        data = encode(plan.new, plan.fmt)
    except NotText as exc:
        raise ToolError(f"cannot write {plan.shown}: {exc}") from None
    await asyncio.to_thread(atomic_write, plan.path, data)


def _format_on_disk(path: Path, fallback: TextFormat) -> tuple[str, TextFormat]:
    try:
        return decode(path.read_bytes())
    except (OSError, NotText):
        return "", fallback


def _changed_span(old: str, new: str) -> tuple[int, int, str]:
    """The one region of `old` that differs from `new` (so the editor keeps the cursor
    and the undo step small): its start, end and replacement."""
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    return prefix, len(old) - suffix, new[prefix : len(new) - suffix]


def _plain(text: str) -> str:
    return text.replace("\r\n", "\n") if "\r" in text else text
