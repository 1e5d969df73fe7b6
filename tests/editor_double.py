"""A test client that behaves like an editor towards the server: it opens documents, the
user "types" into them, and it applies (or refuses) workspace/applyEdit like VS Code does,
checking the document version, then syncs the change back with didChange."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path
from typing import Any

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from workspace_agent import protocol as p


class EditorDouble:
    def __init__(self, client: LanguageClient, saves: bool) -> None:
        self.client = client
        self.saves = saves
        self.texts: dict[str, str] = {}
        self.versions: dict[str, int] = {}
        self.edits: list[types.ApplyWorkspaceEditParams] = []
        self.saved: list[list[str]] = []
        self.questions: list[str] = []
        self.offered: list[list[str]] = []
        """The action titles each question offered."""
        self.answers: list[str | None] = []
        """Titles to answer showMessageRequest with, in order (None: dismiss)."""
        self.refuse_edits = False
        self.asked = asyncio.Event()
        self.hold: asyncio.Future[None] | None = None
        for method, handler in (
            (types.WORKSPACE_APPLY_EDIT, self._apply_edit),
            (p.SAVE_DOCUMENTS_REQUEST, self._save),
            (types.WINDOW_SHOW_MESSAGE_REQUEST, self._ask),
        ):
            client.feature(method)(_function(handler))

    def capabilities(self) -> types.ClientCapabilities:
        caps = pytest_lsp.client_capabilities("visual-studio-code")
        caps.experimental = {"workspaceAgent": {"saveDocuments": self.saves}}
        return caps

    def open(self, path: Path, text: str) -> str:
        uri = path.as_uri()
        self.texts[uri], self.versions[uri] = text, 1
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="plaintext", version=1, text=text
                )
            )
        )
        return uri

    def type(self, uri: str, text: str) -> None:
        """The user changes the buffer (not saved)."""
        self._set(uri, text)

    def _set(self, uri: str, text: str) -> None:
        self.texts[uri] = text
        self.versions[uri] += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=self.versions[uri]
                ),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    def _apply_edit(self, params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        self.edits.append(params)
        (change,) = params.edit.document_changes or []
        uri, version = change.text_document.uri, change.text_document.version
        if self.refuse_edits or version != self.versions.get(uri):
            return types.ApplyWorkspaceEditResult(
                applied=False, failure_reason="document version changed"
            )
        text = self.texts[uri]
        for edit in sorted(
            change.edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True
        ):
            start, end = _offset(text, edit.range.start), _offset(text, edit.range.end)
            text = text[:start] + edit.new_text + text[end:]
        self._set(uri, text)
        return types.ApplyWorkspaceEditResult(applied=True)

    def _save(self, params: Any) -> dict[str, list[str]]:
        uris = list(params.uris)
        self.saved.append(uris)
        for uri in uris:
            Path(uri.removeprefix("file://")).write_text(self.texts[uri], newline="")
        return {"saved": uris}

    async def _ask(self, params: types.ShowMessageRequestParams) -> types.MessageActionItem | None:
        self.questions.append(params.message)
        self.offered.append([action.title for action in params.actions or []])
        self.asked.set()
        if self.hold is not None:
            await self.hold  # the user walked away: no answer until the test says so
        title = self.answers.pop(0) if self.answers else None
        return types.MessageActionItem(title=title) if title else None


def _function(method: Any) -> Any:
    """pygls marks handlers with attributes, which bound methods cannot carry."""

    if inspect.iscoroutinefunction(method):

        async def async_handler(params: Any) -> Any:
            return await method(params)

        return async_handler

    def handler(params: Any) -> Any:
        return method(params)

    return handler


def _offset(text: str, position: types.Position) -> int:
    """Offset of an LSP position (UTF-16 columns) in text."""
    lines = text.split("\n")
    offset = sum(len(line) + 1 for line in lines[: position.line])
    line = lines[position.line] if position.line < len(lines) else ""
    units = 0
    for index, char in enumerate(line):
        if units >= position.character:
            return offset + index
        units += len(char.encode("utf-16-le")) // 2
    return offset + len(line)
