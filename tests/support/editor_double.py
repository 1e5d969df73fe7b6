"""A test client that behaves like an editor towards the server: it opens documents, the
user "types" into them, and it applies (or refuses) workspace/applyEdit like VS Code does,
checking the document version, then syncs the change back with an incremental didChange.

Positions follow the LSP rules, written out here on their own (a double that shared the
server's conversion would hide the server's bugs): lines end only at "\\n", "\\r\\n" or
"\\r"; `character` counts code units of the negotiated position encoding (UTF-16 unless
the server chose utf-8 or utf-32); a character past the line's end means the line's end,
a line past the last line means the end of the document.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from workspace_agent import protocol as p
from workspace_agent.lsp.wire import to_plain


class EditorDouble:
    def __init__(
        self,
        client: LanguageClient,
        saves: bool,
        encodings: list[str] | None = None,
        document_changes: bool = True,
        show_document: bool = True,
        diagnostics: bool = False,
        approvals: bool = False,
        always_allow_hosts: bool = False,
        code_intel: bool = False,
    ) -> None:
        self.client = client
        self.saves = saves
        self.offered_encodings = encodings
        self.document_changes = document_changes
        self.show_document = show_document
        self.reports_diagnostics = diagnostics
        self.approves_in_place = approvals
        self.keeps_hosts = always_allow_hosts
        """Announces `alwaysAllowHosts`: network questions may offer allowAlways."""
        self.answers_code_intel = code_intel
        self.code_intel_asked: list[dict[str, Any]] = []
        """workspaceAgent/codeIntel params, in order."""
        self.code_intel: Callable[[dict[str, Any]], Any] = lambda params: None
        """The editor's language extensions: params -> the LSP answer (JSON)."""
        self.approvals: list[dict[str, Any]] = []
        """workspaceAgent/approval params, in order (answered even without the capability,
        so a test sees a server that sends one when it should not)."""
        self.approval_answers: list[Any] = []
        """Results to answer them with, in order (an Exception: answered with an error)."""
        self.approvals_cancelled: list[dict[str, Any]] = []
        """Approval requests the server cancelled while they were open."""
        self.lint: Callable[[str], list[dict[str, Any]]] = lambda text: []
        """The editor's language servers: a file's text -> its diagnostics (LSP JSON)."""
        self.workspace_problems: dict[str, list[dict[str, Any]]] = {}
        """What the editor's Problems panel holds, by URI: the answer to `all`."""
        self.diagnostics_asked: list[dict[str, Any]] = []
        """workspaceAgent/diagnostics params, in order (asked even without the capability,
        so a test sees a server that asks when it should not)."""
        self.encoding = "utf-16"
        """The position encoding the server chose (set from its initialize result)."""
        self.server_capabilities: types.ServerCapabilities | None = None
        self.texts: dict[str, str] = {}
        self.versions: dict[str, int] = {}
        self.edits: list[types.ApplyWorkspaceEditParams] = []
        self.changes: list[types.DidChangeTextDocumentParams] = []
        self.saved: list[list[str]] = []
        self.questions: list[str] = []
        self.offered: list[list[str]] = []
        """The action titles each question offered."""
        self.answers: list[str | None] = []
        """Titles to answer showMessageRequest with, in order (None: dismiss)."""
        self.refuse_edits = False
        self.sync_delay: float | None = 0.0
        """Seconds between answering applyEdit and sending its didChange (None: never)."""
        self.asked = asyncio.Event()
        self.hold: asyncio.Future[None] | None = None
        for method, handler in (
            (types.WORKSPACE_APPLY_EDIT, self._apply_edit),
            (p.SAVE_DOCUMENTS_REQUEST, self._save),
            (types.WINDOW_SHOW_MESSAGE_REQUEST, self._ask),
            (p.DIAGNOSTICS_REQUEST, self._diagnostics),
            (p.APPROVAL_REQUEST, self._approval),
            (p.CODE_INTEL_REQUEST, self._code_intel),
        ):
            client.feature(method)(_function(handler))

    def capabilities(self) -> types.ClientCapabilities:
        caps = pytest_lsp.client_capabilities("visual-studio-code")
        section = {"saveDocuments": self.saves}
        if self.reports_diagnostics:
            section["diagnostics"] = True
        if self.approves_in_place:
            section["approvals"] = True
        if self.keeps_hosts:
            section["alwaysAllowHosts"] = True
        if self.answers_code_intel:
            section["codeIntel"] = True
        caps.experimental = {"workspaceAgent": section}
        assert caps.workspace and caps.workspace.workspace_edit and caps.general
        caps.workspace.workspace_edit.document_changes = self.document_changes
        caps.general.position_encodings = self.offered_encodings
        if not self.show_document and caps.window:
            caps.window.show_document = None
        return caps

    def _code_intel(self, params: Any) -> Any:
        plain = to_plain(params)
        self.code_intel_asked.append(plain)
        return self.code_intel(plain)

    def initialized(self, result: types.InitializeResult) -> None:
        self.server_capabilities = result.capabilities
        self.encoding = result.capabilities.position_encoding or "utf-16"

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
        """The user changes the buffer (not saved): one incremental change covering what
        differs, as an editor sends for typing, pasting or deleting."""
        self._changed(uri, text, [typing_change(self.texts[uri], text, self.encoding)])

    def save(self, uri: str) -> None:
        """The user saves the document: its text goes to disk, then didSave."""
        Path(uri.removeprefix("file://")).write_text(self.texts[uri], newline="")
        self._did_save(uri)

    def _did_save(self, uri: str) -> None:
        sync = self.server_capabilities and self.server_capabilities.text_document_sync
        if isinstance(sync, types.TextDocumentSyncOptions) and sync.save:  # as editors do
            identifier = types.TextDocumentIdentifier(uri=uri)
            self.client.text_document_did_save(
                types.DidSaveTextDocumentParams(text_document=identifier)
            )

    def replace_all(self, uri: str, text: str) -> None:
        """A full-document didChange (what clients without incremental sync send)."""
        self._changed(uri, text, [types.TextDocumentContentChangeWholeDocument(text=text)])

    def _changed(
        self, uri: str, text: str, changes: list[types.TextDocumentContentChangeEvent]
    ) -> None:
        self.texts[uri] = text
        self.versions[uri] += 1
        self._send_change(uri, self.versions[uri], changes)

    def _send_change(
        self, uri: str, version: int, changes: list[types.TextDocumentContentChangeEvent]
    ) -> None:
        params = types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=changes,
        )
        self.changes.append(params)
        self.client.text_document_did_change(params)

    def _apply_edit(self, params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        self.edits.append(params)
        per_document: list[tuple[str, int | None, list[Any]]] = []
        if params.edit.document_changes is not None:
            for change in params.edit.document_changes:
                assert isinstance(change, types.TextDocumentEdit), change
                document = change.text_document
                per_document.append((document.uri, document.version, list(change.edits)))
        for uri, edits in (params.edit.changes or {}).items():
            per_document.append((uri, None, list(edits)))
        if self.refuse_edits:
            return _refused("document version changed")
        updated: dict[str, tuple[str, list[types.TextDocumentContentChangeEvent]]] = {}
        for uri, version, edits in per_document:
            if uri not in self.texts:
                return _refused(f"{uri} is not open")
            if version is not None and version != self.versions[uri]:
                return _refused("document version changed")
            try:
                updated[uri] = applied_edits(self.texts[uri], edits, self.encoding)
            except ValueError as exc:
                return _refused(str(exc))
        for uri, (text, changes) in updated.items():
            self.texts[uri] = text
            self.versions[uri] += 1
            self._sync_later(uri, self.versions[uri], changes)
        return types.ApplyWorkspaceEditResult(applied=True)

    def _sync_later(
        self, uri: str, version: int, changes: list[types.TextDocumentContentChangeEvent]
    ) -> None:
        if self.sync_delay is None:
            return
        if self.sync_delay == 0:
            self._send_change(uri, version, changes)
            return
        loop = asyncio.get_running_loop()
        loop.call_later(self.sync_delay, self._send_change, uri, version, changes)

    def _diagnostics(self, params: Any) -> list[dict[str, Any]]:
        """Each file's problems as the editor has the file: its buffer, else the disk."""
        asked = to_plain(params)
        self.diagnostics_asked.append(asked)
        if asked.get("all"):
            return [{"uri": u, "diagnostics": d} for u, d in self.workspace_problems.items()]
        answer = []
        for uri in asked["uris"]:
            path = Path(uri.removeprefix("file://"))
            text = self.texts.get(uri)
            if text is None and path.is_file():
                text = path.read_text()
            answer.append({"uri": uri, "diagnostics": self.lint(text) if text is not None else []})
        return answer

    def _save(self, params: Any) -> dict[str, list[str]]:
        uris = list(params.uris)
        self.saved.append(uris)
        for uri in uris:
            Path(uri.removeprefix("file://")).write_text(self.texts[uri], newline="")
            self._did_save(uri)
        return {"saved": uris}

    async def _approval(self, params: Any) -> Any:
        """The approval card: it stays until the test answers (hold) or the run ends."""
        asked = to_plain(params)
        self.approvals.append(asked)
        self.asked.set()
        try:
            if self.hold is not None:
                await self.hold
        except asyncio.CancelledError:
            self.approvals_cancelled.append(asked)
            raise
        answer = self.approval_answers.pop(0) if self.approval_answers else {"decision": "deny"}
        if isinstance(answer, Exception):
            raise answer
        return answer

    async def _ask(self, params: types.ShowMessageRequestParams) -> types.MessageActionItem | None:
        self.questions.append(params.message)
        self.offered.append([action.title for action in params.actions or []])
        self.asked.set()
        if self.hold is not None:
            await self.hold  # the user walked away: no answer until the test says so
        title = self.answers.pop(0) if self.answers else None
        return types.MessageActionItem(title=title) if title else None


def _refused(reason: str) -> types.ApplyWorkspaceEditResult:
    return types.ApplyWorkspaceEditResult(applied=False, failure_reason=reason)


def _function(method: Any) -> Any:
    """pygls marks handlers with attributes, which bound methods cannot carry."""

    if inspect.iscoroutinefunction(method):

        async def async_handler(params: Any) -> Any:
            return await method(params)

        return async_handler

    def handler(params: Any) -> Any:
        return method(params)

    return handler


# -- LSP positions, as the specification defines them -----------------------------------


def applied_edits(
    text: str, edits: list[types.TextEdit], encoding: str
) -> tuple[str, list[types.TextDocumentContentChangeEvent]]:
    """The text after `edits` (ranges of the original text, not overlapping) and the
    content changes that take a server there one after the other: last edit first, so
    each range is still valid when it is applied (VS Code does the same)."""
    spans = sorted(
        (
            offset_of(text, e.range.start, encoding),
            offset_of(text, e.range.end, encoding),
            e.new_text,
        )
        for e in edits
    )
    for (_, end, _), (start, _, _) in itertools.pairwise(spans):
        if start < end:
            raise ValueError("overlapping edits")
    changes: list[types.TextDocumentContentChangeEvent] = []
    for start, end, new in reversed(spans):
        changes.append(
            types.TextDocumentContentChangePartial(
                range=range_of(text, start, end, encoding), text=new
            )
        )
        text = text[:start] + new + text[end:]
    return text, changes


def typing_change(old: str, new: str, encoding: str) -> types.TextDocumentContentChangePartial:
    """The one incremental change that turns `old` into `new` (what differs)."""
    start, end = _differing_span(old, new)
    new_end = len(new) - (len(old) - end)
    return types.TextDocumentContentChangePartial(
        range=range_of(old, start, end, encoding), text=new[start:new_end]
    )


def range_of(text: str, start: int, end: int, encoding: str) -> types.Range:
    (sl, sc), (el, ec) = (position_of(text, offset, encoding) for offset in (start, end))
    return types.Range(start=types.Position(sl, sc), end=types.Position(el, ec))


def line_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every line, the line break excluded: one character at a time."""
    spans, start, index = [], 0, 0
    while index < len(text):
        char = text[index]
        if char == "\r" and text[index + 1 : index + 2] == "\n":
            spans.append((start, index))
            index += 2
            start = index
        elif char in "\r\n":
            spans.append((start, index))
            index += 1
            start = index
        else:
            index += 1
    spans.append((start, len(text)))
    return spans


def code_units(char: str, encoding: str) -> int:
    if encoding == "utf-32":
        return 1
    if encoding == "utf-8":
        return len(char.encode("utf-8", "surrogatepass"))
    assert encoding == "utf-16", encoding
    return 2 if ord(char) > 0xFFFF else 1


def offset_of(text: str, position: types.Position, encoding: str = "utf-16") -> int:
    """Offset of an LSP position in text; a position inside a character means its start."""
    spans = line_spans(text)
    if position.line >= len(spans):
        return len(text)
    start, end = spans[position.line]
    units = 0
    for index in range(start, end):
        units += code_units(text[index], encoding)
        if units > position.character:
            return index
    return end


def position_of(text: str, offset: int, encoding: str = "utf-16") -> tuple[int, int]:
    """(line, character) of an offset; an offset inside "\\r\\n" has no position."""
    for line, (start, end) in enumerate(line_spans(text)):
        if start <= offset <= end:
            return line, sum(code_units(c, encoding) for c in text[start:offset])
    raise ValueError(f"offset {offset} is inside a line break")


def _differing_span(old: str, new: str) -> tuple[int, int]:
    """old[start:end] is what an edit replaces to turn `old` into `new`; never inside
    a "\\r\\n" (no LSP position is there)."""
    limit = min(len(old), len(new))
    start = 0
    while start < limit and old[start] == new[start]:
        start += 1
    suffix = 0
    while suffix < limit - start and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    end = len(old) - suffix
    if 0 < start < len(old) and old[start - 1 : start + 1] == "\r\n":
        start -= 1
    if 0 < end < len(old) and old[end - 1 : end + 1] == "\r\n":
        end += 1
    return start, end
