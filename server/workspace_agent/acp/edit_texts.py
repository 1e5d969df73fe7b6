"""The whole text of a file before and after an `edit_file` call, for its ACP diff.

edit_file reports only the snippet it replaced (and its line: a one-file tool without
`Tool.whole_file_changes`); an ACP diff shows the
whole file (diffs.py). This RunObserver finds the two texts: what the client was sent
when the edit went through it (AcpDocuments keeps the last write of each file), else the
disk before and after the call. write_file needs none of this: it reports the whole old
and new text itself. Files larger than the `maxFileBytes` setting (which edit_file
refuses anyway), binary files and calls that failed get no texts: their diff stays the
snippet.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from ..protocol import StopReason
from ..shared.errors import ToolError
from ..shared.observers import CallReport, RunScope, ToolCall
from ..tools.paths import safe_path
from ..tools.textfile import NotText, decode
from .documents import AcpDocuments

WholeTexts = tuple[Path, str | None, str]
"""(path, old text, new text) with "\\n" line breaks; old None: the file was new."""
Sink = Callable[[str, WholeTexts], None]
"""Takes the texts of a call (by tool_use id) until its result is sent."""


class EditTexts:
    def __init__(self, scope: RunScope, documents: AcpDocuments, sink: Sink) -> None:
        self._root = scope.root
        self._limit = scope.settings.max_file_bytes
        self._documents = documents
        self._sink = sink
        self._before: dict[str, tuple[Path, str | None]] = {}

    async def start_run(self) -> None:
        return None

    async def before_tool(self, call: ToolCall) -> None:
        self._documents.last_writes.clear()  # only this call's writes count
        if call.reach != "named_file" or call.whole_file_changes:
            return  # a command's changes are not shown as diffs; write_file's are whole
        try:
            path = safe_path(self._root, str(call.input.get("path", "")))
        except ToolError:
            return
        self._before[call.tool_use_id] = (path, await asyncio.to_thread(_text, path, self._limit))

    async def after_tool(self, report: CallReport) -> None:
        before = self._before.pop(report.call.tool_use_id, None)
        if before is None or not report.outcome.ok:
            return
        path, old = before
        new: str | None
        written = self._documents.last_writes.pop(path, None)
        if written is not None:
            old, new = written
        else:
            new = await asyncio.to_thread(_text, path, self._limit)
        if old is not None and new is not None:
            self._sink(report.call.tool_use_id, (path, _plain(old), _plain(new)))

    async def end_run(self, stop: StopReason) -> None:
        self._before.clear()


def _text(path: Path, limit: int) -> str | None:
    try:
        if path.stat().st_size > limit:
            return None
        return decode(path.read_bytes())[0]
    except (OSError, NotText):
        return None


def _plain(text: str) -> str:
    return text.replace("\r\n", "\n") if "\r" in text else text
