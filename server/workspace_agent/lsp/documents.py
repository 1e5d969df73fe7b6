"""The editor's side of file access: buffers the client synced, edits through
workspace/applyEdit, and saving what the agent edited before a command runs.

An edit carries the document version the agent read; the client refuses it if the user
changed the document in between, and the agent gets an error instead of clobbering text.
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument
from pygls.workspace.position_codec import ServerTextPosition

from .. import protocol as p
from ..tools.disk import atomic_write
from ..tools.documents import Buffer
from ..tools.errors import ToolError
from ..tools.textfile import NEW_FILE, NotText, encode, sniff_format
from .wire import to_plain

log = logging.getLogger(__name__)

SYNC_WAIT_SECONDS = 2.0
"""How long to wait for the client's didChange after it applied an edit."""


class EditorDocuments:
    def __init__(self, ls: LanguageServer) -> None:
        self._ls = ls
        self._edited: dict[Path, str] = {}
        """Files changed through the editor since the last flush, with their URIs."""

    async def buffer(self, path: Path) -> Buffer | None:
        doc = self._document(path)
        return Buffer(doc.source, doc.version) if doc else None

    async def create(self, path: Path, text: str) -> bool:
        return False  # new files go to disk; the client's file watcher shows them

    async def replace(self, path: Path, buffer: Buffer, start: int, end: int, new: str) -> bool:
        workspace_caps = self._ls.client_capabilities.workspace
        if not (workspace_caps and workspace_caps.apply_edit):
            return False
        doc = self._document(path)
        if doc is None or doc.version != buffer.version or doc.source != buffer.text:
            raise _changed_under_us(path)
        edit = types.TextEdit(
            range=types.Range(start=_position(doc, start), end=_position(doc, end)), new_text=new
        )
        result = await self._ls.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(
                label=f"Workspace Agent: {path.name}",
                edit=self._workspace_edit(doc, edit),
            )
        )
        if not result.applied:
            raise _changed_under_us(path, result.failure_reason)
        self._edited[path] = doc.uri
        await self._wait_for_sync(doc, buffer.version)
        return True

    async def flush(self) -> None:
        if not self._edited:
            return
        pending, self._edited = self._edited, {}
        saved: set[str] = set()
        if self._client_saves():
            try:
                answer = await self._ls.protocol.send_request_async(
                    p.SAVE_DOCUMENTS_REQUEST, {"uris": list(pending.values())}
                )
                saved = set(to_plain(answer).get("saved", []))
            except Exception as exc:  # fall back to writing the files ourselves
                log.warning("the client could not save edited documents: %s", exc)
        for path, uri in pending.items():
            doc = self._ls.workspace.text_documents.get(uri)
            if uri not in saved and doc is not None:
                await asyncio.to_thread(_write_buffer, path, doc.source)

    def _document(self, path: Path) -> TextDocument | None:
        for uri, doc in self._ls.workspace.text_documents.items():
            fs_path = to_fs_path(uri)
            if fs_path and Path(fs_path).resolve() == path:
                return doc
        return None

    def _workspace_edit(self, doc: TextDocument, edit: types.TextEdit) -> types.WorkspaceEdit:
        edit_caps = self._ls.client_capabilities.workspace or types.WorkspaceClientCapabilities()
        if edit_caps.workspace_edit and edit_caps.workspace_edit.document_changes:
            identifier = types.OptionalVersionedTextDocumentIdentifier(
                uri=doc.uri, version=doc.version
            )
            return types.WorkspaceEdit(
                document_changes=[types.TextDocumentEdit(text_document=identifier, edits=[edit])]
            )
        return types.WorkspaceEdit(changes={doc.uri: [edit]})

    def _client_saves(self) -> bool:
        experimental: Any = self._ls.client_capabilities.experimental
        section = experimental.get(p.SETTINGS_SECTION) if isinstance(experimental, dict) else None
        return bool(isinstance(section, dict) and section.get(p.SAVE_DOCUMENTS_CAPABILITY))

    async def _wait_for_sync(self, doc: TextDocument, version: int | None) -> None:
        deadline = time.monotonic() + SYNC_WAIT_SECONDS
        # pygls applies didChange in its own handler; there is no event to wait on.
        while doc.version == version and time.monotonic() < deadline:  # noqa: ASYNC110
            await asyncio.sleep(0.005)


def _position(doc: TextDocument, offset: int) -> types.Position:
    text = doc.source
    line = text.count("\n", 0, offset)
    column = offset - (text.rfind("\n", 0, offset) + 1)
    return doc.position_to_client_units(ServerTextPosition(line, column))


def _changed_under_us(path: Path, reason: str | None = None) -> ToolError:
    why = f" ({reason})" if reason else ""
    return ToolError(
        f"{path.name} changed in the editor while the agent was editing it{why}; nothing was "
        "applied. Read the file again and redo the edit."
    )


def _write_buffer(path: Path, text: str) -> None:
    """A client that cannot save: write the editor's text to disk in the file's format."""
    try:
        fmt = sniff_format(path) if path.exists() else NEW_FILE
        atomic_write(path, encode(text, fmt))
    except NotText as exc:
        log.warning("could not write %s to disk: %s", path, exc)


class EditorAsker:
    """Asks the user with window/showMessageRequest."""

    ACTIONS = {"Allow": "allow", "Allow for this session": "allow_session", "Deny": "deny"}

    def __init__(self, ls: LanguageServer) -> None:
        self._ls = ls

    async def ask(self, kind: str, question: str) -> Any:
        answer = await self._ls.window_show_message_request_async(
            types.ShowMessageRequestParams(
                type=types.MessageType.Warning,
                message=f"Workspace Agent wants to {question}.",
                actions=[types.MessageActionItem(title=title) for title in self.ACTIONS],
            )
        )
        return self.ACTIONS.get(answer.title) if answer else None
