"""Following the agent (setting `followAgent`): the editor shows each file the agent
edits, scrolled to the edit, without taking the user's focus (window/showDocument with
`takeFocus: false` and the edit's range as `selection`).

The range is found by comparing the file's text before and after the edit (the buffer
when the editor has the file open, else the file on disk), so it is the edit's real
place whatever tool made it. Only for clients that announce
`window.showDocument.support`.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from ..positions import LineIndex
from ..tools.textfile import NotText, decode
from .open_documents import DocumentSyncProtocol

log = logging.getLogger(__name__)

MAX_READ_BYTES = 10 * 1024 * 1024
"""Files larger than this are shown at their start (comparing them costs too much)."""


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


class FollowEdits:
    def __init__(self, ls: LanguageServer) -> None:
        self._ls = ls
        protocol = ls.protocol
        if not isinstance(protocol, DocumentSyncProtocol):
            raise TypeError("FollowEdits needs a server whose protocol syncs OpenDocuments")
        self._protocol = protocol

    def supported(self) -> bool:
        window = self._ls.client_capabilities.window
        return bool(window and window.show_document and window.show_document.support)

    async def text(self, path: Path) -> str | None:
        """The file as the editor shows it: its buffer, else its text on disk, read in a
        worker thread (None for a missing, binary or very large file)."""
        document = self._protocol.documents.find(path)
        if document is not None:
            return document.text
        return await asyncio.to_thread(_disk_text, path)

    async def show(self, path: Path, before: str | None) -> None:
        """Show `path` with the part that changed since `before` selected (the start of
        the file when the change cannot be told)."""
        after = await self.text(path)
        document = self._protocol.documents.find(path)
        uri = document.uri if document is not None else path.as_uri()
        if after is None or before is None:
            start = end = 0
            after = after or ""
        else:
            start, end = changed_span(before, after)
        index = LineIndex(after, self._protocol.position_encoding())
        first, last = (
            index.position(_outside_crlf(after, start)),
            index.position(_outside_crlf(after, end)),
        )
        selection = types.Range(
            start=types.Position(line=first.line, character=first.character),
            end=types.Position(line=last.line, character=last.character),
        )
        try:
            await self._ls.window_show_document_async(
                types.ShowDocumentParams(uri=uri, take_focus=False, selection=selection)
            )
        except Exception as exc:  # showing is a courtesy: the run goes on
            log.info("the editor could not show %s: %s", path.name, exc)


def _disk_text(path: Path) -> str | None:
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
