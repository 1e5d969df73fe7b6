"""Following the agent (setting `followAgent`): the editor shows each file the agent
edits, with the edit selected, without taking the user's focus (window/showDocument with
`takeFocus: false` and the edit's range as `selection`).

A follow-along view of the run's events: every write_file / edit_file result carries the
changes the tool made (its `changes`, which the transcript leaves out), and each one is
shown in order. The range is where the change's new text stands in the file as the editor
has it (the buffer, else the file on disk), narrowed to what differs from the old text.
Only for clients that announce `window.showDocument.support`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from .features import LanguageFeature
from .open_documents import DocumentSyncProtocol
from .positions import LineIndex

log = logging.getLogger(__name__)

MAX_READ_BYTES = 10 * 1024 * 1024
"""Files larger than this on disk are shown at the change's line (no range is worked out)."""


def changed_span(before: str, after: str) -> tuple[int, int]:
    """(start, end) in `after` of the text that differs from `before`: after the common
    prefix, before the common suffix. Comparisons of halves run at C speed."""
    limit = min(len(before), len(after))
    low, high = 0, limit
    while low < high:  # the longest common prefix
        middle = (low + high + 1) // 2
        if before[:middle] == after[:middle]:
            low = middle
        else:
            high = middle - 1
    prefix = low
    low, high = 0, limit - prefix
    while low < high:  # the longest common suffix that does not overlap the prefix
        middle = (low + high + 1) // 2
        if before[len(before) - middle :] == after[len(after) - middle :]:
            low = middle
        else:
            high = middle - 1
    return prefix, len(after) - low


def edit_range(text: str, line: int, old: str, new: str, encoding: str) -> types.Range:
    """The range of a change in `text` (the file after it): its new text is looked for
    from the start of `line` (1-based) on, in the file's line endings, and narrowed to what
    differs from `old`; when it cannot be found, the start of that line."""
    index = LineIndex(text, encoding)
    base = index.offset(max(line - 1, 0), 0)
    if "\r\n" in text:  # the tools keep a file's CRLF; the change speaks "\n"
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
    found = text.find(new, base) if new else -1
    if found < 0:
        start = end = base
    else:
        first, last = changed_span(old, new)
        start, end = found + first, found + last
    begin, finish = (
        index.position(_outside_crlf(text, start)),
        index.position(_outside_crlf(text, end)),
    )
    return types.Range(
        start=types.Position(line=begin.line, character=begin.character),
        end=types.Position(line=finish.line, character=finish.character),
    )


class FollowEdits(LanguageFeature):
    """A feature without lifecycle work: it reads the setting each time it follows."""

    def __init__(self, ls: LanguageServer, enabled: Callable[[], bool]) -> None:
        self._ls = ls
        self._enabled = enabled
        protocol = ls.protocol
        if not isinstance(protocol, DocumentSyncProtocol):
            raise TypeError("FollowEdits needs a server whose protocol syncs OpenDocuments")
        self._protocol = protocol
        self._last: asyncio.Future[None] | None = None

    def supported(self) -> bool:
        window = self._ls.client_capabilities.window
        return bool(window and window.show_document and window.show_document.support)

    def follow(self, changes: list[dict[str, Any]]) -> None:
        """Show these changes (a tool result's `changes`) after the ones before them."""
        if not changes or not self.supported() or not self._enabled():
            return
        previous, self._last = self._last, None
        self._last = asyncio.ensure_future(self._show_all(previous, changes))

    async def _show_all(
        self, previous: asyncio.Future[None] | None, changes: list[dict[str, Any]]
    ) -> None:
        if previous is not None:
            await asyncio.gather(previous, return_exceptions=True)
        for change in changes:
            try:
                await self._show(change)
            except Exception as exc:  # showing is a courtesy: the run goes on
                log.info("the editor could not show a change: %s", exc)

    async def _show(self, change: dict[str, Any]) -> None:
        path = Path(change["path"])
        document = self._protocol.documents.find(path)
        uri = document.uri if document is not None else path.as_uri()
        text: str | None = document.text if document is not None else None
        if document is None:
            text = await asyncio.to_thread(_disk_text, path)
        line = int(change.get("line") or 1)
        if text is None:
            selection = types.Range(
                start=types.Position(line=line - 1, character=0),
                end=types.Position(line=line - 1, character=0),
            )
        else:
            old, new = change.get("oldText") or "", change.get("newText") or ""
            encoding = self._protocol.position_encoding()
            selection = await asyncio.to_thread(edit_range, text, line, old, new, encoding)
        await self._ls.window_show_document_async(
            types.ShowDocumentParams(uri=uri, take_focus=False, selection=selection)
        )


def _disk_text(path: Path) -> str | None:
    # Imported here: the tools package loads with the agent core after `initialized`;
    # importing it at start would delay the answer to `initialize` (the start-up
    # benchmark, bench/startup.py).
    from ..tools.textfile import NotText, decode

    try:
        if path.stat().st_size > MAX_READ_BYTES:
            return None
        return decode(path.read_bytes())[0]
    except (OSError, NotText):
        return None


def _outside_crlf(text: str, offset: int) -> int:
    """An offset between "\\r" and "\\n" has no LSP position: step back to the "\\r"."""
    if 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n":
        return offset - 1
    return offset
