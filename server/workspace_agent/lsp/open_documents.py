"""The documents the client has open, kept in step with didOpen, didChange, didSave and
didClose.

pygls's own store applies an incremental change to lines split by `str.splitlines`, so
after a form feed, U+2028, U+0085 or a lone "\\r" the change lands in the wrong place.
This store applies changes by the LSP rules (`lsp/positions.py`) in the position
encoding agreed at `initialize`, and lets a caller wait for the client's next change to
a document (after an edit it asked for) on an event instead of a timer.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.uris import to_fs_path

from .positions import UTF16, LineIndex

log = logging.getLogger(__name__)


class OpenDocument:
    def __init__(self, uri: str, version: int, text: str, encoding: str) -> None:
        self.uri = uri
        self.version = version
        self.index = LineIndex(text, encoding)
        self.closed = False
        self._moved: asyncio.Event | None = None
        self.agent_changes = 0
        """Edits the agent asked the editor for whose didChange has not come yet."""
        self.agent_saves = 0
        """Saves the agent asked for whose didSave has not come yet."""

    @property
    def text(self) -> str:
        return self.index.text

    def position(self, offset: int) -> types.Position:
        line, character = self.index.position(offset)
        return types.Position(line=line, character=character)

    def apply(self, change: types.TextDocumentContentChangeEvent) -> None:
        if isinstance(change, types.TextDocumentContentChangePartial):
            start = self.index.offset(change.range.start.line, change.range.start.character)
            end = self.index.offset(change.range.end.line, change.range.end.character)
            start, end = min(start, end), max(start, end)  # a reversed range, as VS Code reads it
            self.index.replace(start, end, change.text)
        else:
            self.index = LineIndex(change.text, self.index.encoding)

    async def changed_since(self, version: int, timeout: float) -> bool:
        """Wait until the client reports a version after `version` (or closes the
        document). False when `timeout` seconds pass first."""
        if self.version != version or self.closed:
            return True
        if self._moved is None:
            self._moved = asyncio.Event()
        try:
            await asyncio.wait_for(self._moved.wait(), timeout)
        except asyncio.TimeoutError:  # the builtin TimeoutError only from 3.11 on
            return False
        return True

    def moved_on(self) -> None:
        """The client changed or closed the document: wake whoever waits for that."""
        moved, self._moved = self._moved, None
        if moved is not None:
            moved.set()


class OpenDocuments:
    """Open documents by URI (as the client spells it), and which ones the user edited or
    saved (not the agent), in order: a command's scan tells the user's saves apart."""

    def __init__(self) -> None:
        self._documents: dict[str, OpenDocument] = {}
        self.user_events = 0
        self._user: dict[str, tuple[int, str, int, str]] = {}
        """uri: (the user's latest edit or save, the text then, their latest save, the
        text it saved)."""

    def user_edits_since(self, mark: int) -> dict[str, tuple[str, bool]]:
        """uri: (the text the user last saved after `mark`, True), else (the text of the
        user's last edit after it, False)."""
        return {
            uri: (saved_text, True) if saved_at > mark else (text, False)
            for uri, (at, text, saved_at, saved_text) in self._user.items()
            if at > mark
        }

    def _by_user(self, document: OpenDocument, saved: bool) -> None:
        self.user_events += 1
        at, text = self.user_events, document.text
        _, _, saved_at, saved_text = self._user.get(document.uri, (0, "", 0, ""))
        if saved:
            saved_at, saved_text = at, text
        self._user[document.uri] = (at, text, saved_at, saved_text)

    def __iter__(self) -> Iterator[OpenDocument]:
        return iter(list(self._documents.values()))

    def get(self, uri: str) -> OpenDocument | None:
        return self._documents.get(uri)

    def find(self, path: Path) -> OpenDocument | None:
        """The open document of a resolved file path."""
        for document in self:
            fs_path = to_fs_path(document.uri)
            if fs_path and Path(fs_path).resolve() == path:
                return document
        return None

    def open(self, item: types.TextDocumentItem, encoding: str) -> None:
        replaced = self._documents.get(item.uri)
        self._documents[item.uri] = OpenDocument(item.uri, item.version, item.text, encoding)
        if replaced is not None:
            replaced.closed = True
            replaced.moved_on()

    def change(self, params: types.DidChangeTextDocumentParams) -> None:
        document = self._documents.get(params.text_document.uri)
        if document is None:
            log.warning("didChange for a document that is not open: %s", params.text_document.uri)
            return
        for change in params.content_changes:
            document.apply(change)
        document.version = params.text_document.version
        if document.agent_changes:
            document.agent_changes -= 1
        else:
            self._by_user(document, saved=False)
        document.moved_on()

    def saved(self, uri: str) -> None:
        document = self._documents.get(uri)
        if document is None:
            return
        if document.agent_saves:
            document.agent_saves -= 1
        else:
            self._by_user(document, saved=True)

    def close(self, uri: str) -> None:
        document = self._documents.pop(uri, None)
        if document is not None:
            document.closed = True
            document.moved_on()


class DocumentSyncProtocol(LanguageServerProtocol):
    """Text document sync into `OpenDocuments` (`self.documents`) instead of pygls's
    workspace store (`workspace.text_documents` stays empty: pygls's documents would not
    follow the LSP line rules). User handlers for these notifications still run after."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.documents = OpenDocuments()
        super().__init__(*args, **kwargs)

    def position_encoding(self) -> str:
        """The encoding agreed on at initialize (pygls picks the client's first of
        utf-8, utf-16 and utf-32, and answers it in the server's capabilities)."""
        encoding: Any = self.workspace.position_encoding or UTF16
        return str(getattr(encoding, "value", encoding))

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(
        self, params: types.DidOpenTextDocumentParams
    ) -> Generator[Any, Any, None]:
        self.documents.open(params.text_document, self.position_encoding())
        yield from self._user_handler(types.TEXT_DOCUMENT_DID_OPEN, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:
        self.documents.change(params)
        yield from self._user_handler(types.TEXT_DOCUMENT_DID_CHANGE, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_SAVE)
    def lsp_text_document__did_save(
        self, params: types.DidSaveTextDocumentParams
    ) -> Generator[Any, Any, None]:
        """A save (announced, so the client sends it): the user's, unless the agent asked."""
        self.documents.saved(params.text_document.uri)
        yield from self._user_handler(types.TEXT_DOCUMENT_DID_SAVE, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(
        self, params: types.DidCloseTextDocumentParams
    ) -> Generator[Any, Any, None]:
        self.documents.close(params.text_document.uri)
        yield from self._user_handler(types.TEXT_DOCUMENT_DID_CLOSE, params)

    def _user_handler(self, method: str, params: Any) -> Generator[Any, Any, None]:
        if (handler := self.fm.features.get(method)) is not None:
            yield handler, (params,), None
