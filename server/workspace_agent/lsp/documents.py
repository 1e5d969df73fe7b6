"""The editor's side of file access: buffers the client synced, edits through
workspace/applyEdit, and saving what the agent edited before a command runs.

An edit carries the document version the agent read; the client refuses it if the user
changed the document in between, and the agent gets an error instead of clobbering text.
Offsets become positions by the LSP rules (`lsp/positions.py`), on the same
text the client's changes were applied to (`OpenDocuments`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import uuid
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from .. import protocol as p
from ..guard.approvals import Answer, Question, Reply
from ..shared.documents import Buffer, UserEdit
from ..shared.errors import ToolError
from ..tools.disk import atomic_write
from ..tools.textfile import NEW_FILE, NotText, encode, sniff_format
from .open_documents import DocumentSyncProtocol, OpenDocument, OpenDocuments
from .positions import expressible_edit
from .wire import to_plain

log = logging.getLogger(__name__)

SYNC_WAIT_SECONDS = 2.0
"""How long the client may take to report (didChange) an edit it applied."""


class EditorDocuments:
    def __init__(self, ls: LanguageServer) -> None:
        self._ls = ls
        if not isinstance(ls.protocol, DocumentSyncProtocol):
            raise TypeError("EditorDocuments needs a server whose protocol syncs OpenDocuments")
        self._open: OpenDocuments = ls.protocol.documents
        self._edited: dict[Path, str] = {}
        """Files changed through the editor since the last flush, with their URIs."""
        self._unreported: dict[str, tuple[OpenDocument, int]] = {}
        """Applied edits the client did not report in time: the document and its version
        before the edit. Until the client reports it, this text is not the editor's."""

    async def buffer(self, path: Path) -> Buffer | None:
        doc = self._open.find(path)
        return Buffer(doc.text, doc.version) if doc else None

    async def create(self, path: Path, text: str) -> bool:
        return False  # new files go to disk; the client's file watcher shows them

    def takes_edits(self) -> bool:
        workspace_caps = self._ls.client_capabilities.workspace
        return bool(workspace_caps and workspace_caps.apply_edit)

    def is_open(self, path: Path) -> bool:
        return self._open.find(path) is not None

    async def replace(self, path: Path, buffer: Buffer, start: int, end: int, new: str) -> bool:
        if not self.takes_edits():
            return False
        doc = self._open.find(path)
        if doc is None:
            raise _changed_under_us(path)
        await self._previous_edit_reported(doc, path)
        if doc.closed or doc.version != buffer.version or doc.text != buffer.text:
            raise _changed_under_us(path)
        if doc.text[start:end] == new:
            self._edited[path] = doc.uri  # saved before commands, like an edited buffer
            return True  # the buffer already reads as asked: no edit, no change to wait for
        start, end, new = expressible_edit(doc.text, start, end, new)
        edit = types.TextEdit(
            range=types.Range(start=doc.position(start), end=doc.position(end)), new_text=new
        )
        version = doc.version
        doc.agent_changes += 1  # its didChange is the agent's, not the user's
        result = await self._ls.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(
                label=f"Workspace Agent: {path.name}",
                edit=self._workspace_edit(doc, edit),
            )
        )
        if not result.applied:
            doc.agent_changes -= 1
            raise _changed_under_us(path, result.failure_reason)
        self._edited[path] = doc.uri
        if not await doc.changed_since(version, SYNC_WAIT_SECONDS):
            log.warning(
                "%s: the editor applied the edit but sent no didChange within %.0f s",
                path.name,
                SYNC_WAIT_SECONDS,
            )
            self._unreported[doc.uri] = (doc, version)
        return True

    async def flush(self) -> None:
        if not self._edited:
            return
        pending, self._edited = self._edited, {}
        saved: set[str] = set()
        if self._client_saves():
            asked = [d for uri in pending.values() if (d := self._open.get(uri)) is not None]
            for asked_doc in asked:
                asked_doc.agent_saves += 1  # its didSave is the agent's, not the user's
            try:
                answer = await self._ls.protocol.send_request_async(
                    p.SAVE_DOCUMENTS_REQUEST, {"uris": list(pending.values())}
                )
                saved = set(to_plain(answer).get("saved", []))
            except Exception as exc:  # fall back to writing the files ourselves
                log.warning("the client could not save edited documents: %s", exc)
            for asked_doc in asked:
                if asked_doc.uri not in saved:
                    asked_doc.agent_saves = max(0, asked_doc.agent_saves - 1)
        for path, uri in pending.items():
            doc = self._open.get(uri)
            if uri not in saved and doc is not None:
                await asyncio.to_thread(_write_buffer, path, doc.text)

    def user_mark(self) -> int:
        return self._open.user_events

    def user_edits_since(self, mark: int) -> dict[Path, UserEdit]:
        edits = {}
        for uri, (text, saved) in self._open.user_edits_since(mark).items():
            fs_path = to_fs_path(uri)
            if fs_path:
                edits[Path(fs_path).resolve()] = UserEdit(text, saved)
        return edits

    async def _previous_edit_reported(self, doc: OpenDocument, path: Path) -> None:
        """Before editing again, the client must have reported the last edit it applied
        (else positions would be computed on text the editor no longer has)."""
        unreported = self._unreported.pop(doc.uri, None)
        if unreported is None or unreported[0] is not doc:
            return
        if not await doc.changed_since(unreported[1], SYNC_WAIT_SECONDS):
            self._unreported[doc.uri] = unreported
            raise ToolError(
                f"the editor has not reported the agent's previous edit of {path.name} yet; "
                "nothing was applied. Read the file again and redo the edit."
            )

    def _workspace_edit(self, doc: OpenDocument, edit: types.TextEdit) -> types.WorkspaceEdit:
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
    """Asks the user: with workspaceAgent/approval when the client shows approvals in
    place (they wait until answered, or until the run is cancelled), else with
    window/showMessageRequest. A question with a reason (the command guard's) says why it
    is asked and offers no "for this session" answer; for a destructive command Deny is
    listed first and the question says why. A question about one tool (MCP) offers "Allow
    this tool for this session" and names the other one "Allow this server for this
    session"."""

    ACTIONS = {
        "Allow": "allow",
        "Allow this tool for this session": "allow_tool_session",
        "Allow this server for this session": "allow_session",
        "Allow for this session": "allow_session",
        "Deny": "deny",
    }
    DECISIONS = {
        "allow": "allow",
        "allowToolSession": "allow_tool_session",
        "allowSession": "allow_session",
        "allowAlways": "allow_always",
        "deny": "deny",
    }
    PLAIN: tuple[Answer, ...] = ("allow", "allow_session", "deny")

    def __init__(self, ls: LanguageServer) -> None:
        self._ls = ls

    async def ask(self, kind: str, question: str, reason: str | None = None) -> Any:
        options: tuple[Answer, ...] = ("allow", "deny") if reason else self.PLAIN
        return await self._show_message(
            f"Workspace Agent wants to {question}.", reason, None, options
        )

    async def ask_in_detail(self, question: Question) -> Reply:
        if not self._in_place() or question.tool_use_id is None:  # no call's card to hold it
            answer = await self._show_message(
                question.message, question.reason, question.details.destructive, question.options
            )
            return Reply(answer)
        return await self._approval_request(question)

    def keeps_hosts(self) -> bool:
        """The client writes an "Always allow"ed host into the user's settings."""
        return self._in_place() and self._announced(p.ALWAYS_ALLOW_HOSTS_CAPABILITY)

    def _in_place(self) -> bool:
        return self._announced(p.APPROVALS_CAPABILITY)

    def _announced(self, capability: str) -> bool:
        experimental: Any = self._ls.client_capabilities.experimental
        section = experimental.get(p.SETTINGS_SECTION) if isinstance(experimental, dict) else None
        return bool(isinstance(section, dict) and section.get(capability) is True)

    async def _approval_request(self, question: Question) -> Reply:
        params = approval_params(question)
        msg_id = f"approval-{uuid.uuid4().hex}"
        protocol = self._ls.protocol
        try:
            answer = await protocol.send_request_async(p.APPROVAL_REQUEST, params, msg_id=msg_id)
        except asyncio.CancelledError:  # the run was cancelled: the card goes away
            _await_cancelled_answer(protocol, msg_id)
            protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
            raise
        except Exception as exc:  # an error reply is a denial
            log.warning("the approval request failed, taken as a denial: %s", exc)
            return Reply("deny")
        answer = to_plain(answer)
        chosen = answer.get("decision") if isinstance(answer, dict) else None
        decision = self.DECISIONS.get(chosen) if isinstance(chosen, str) else None
        if decision is None or chosen not in params["options"]:
            log.warning("the approval answer %r has no valid decision: a denial", answer)
            return Reply("deny")
        reason = answer.get("reason")
        said = reason.strip() if isinstance(reason, str) and reason.strip() else None
        return Reply(decision, said if decision == "deny" else None)  # type: ignore[arg-type]

    async def _show_message(
        self,
        message: str,
        reason: str | None,
        destructive: str | None,
        options: tuple[Answer, ...],
    ) -> Any:
        titles = [_title(option, options) for option in options]
        if reason:
            message += f" Asked because {reason}."
        if destructive:
            message += f" Careful: this {destructive}."
            titles = ["Deny", *(t for t in titles if t != "Deny")]
        answer = await self._ls.window_show_message_request_async(
            types.ShowMessageRequestParams(
                type=types.MessageType.Warning,
                message=message,
                actions=[types.MessageActionItem(title=title) for title in titles],
            )
        )
        return self.ACTIONS.get(answer.title) if answer else None


WITHDRAWN_ANSWER_SECONDS = 60.0
"""How long the answer to a withdrawn question is waited for before its id is forgotten."""


def _await_cancelled_answer(protocol: Any, msg_id: str) -> None:
    """The client answers a request the server cancelled too (the protocol says it must,
    with RequestCancelled): a stand-in future takes that answer, so pygls does not log it as
    a response to an unknown id, and goes once answered or after a minute (a client that
    never answers)."""
    futures = protocol._request_futures
    stand_in: concurrent.futures.Future[Any] = concurrent.futures.Future()
    futures[msg_id] = stand_in

    def forget() -> None:
        if futures.get(msg_id) is stand_in:
            del futures[msg_id]

    asyncio.get_running_loop().call_later(WITHDRAWN_ANSWER_SECONDS, forget)


def _title(option: Answer, options: tuple[Answer, ...]) -> str:
    if option == "allow_session":
        per_tool = "allow_tool_session" in options
        return "Allow this server for this session" if per_tool else "Allow for this session"
    return {"allow": "Allow", "allow_tool_session": "Allow this tool for this session"}.get(
        option, "Deny"
    )


def approval_params(question: Question) -> dict[str, Any]:
    """The params of workspaceAgent/approval for a question."""
    details = question.details
    params: dict[str, Any] = {
        "sessionId": question.session_id,
        "toolUseId": question.tool_use_id,
        "todoId": question.todo_id,
        "kind": question.kind,
        "message": question.message,
    }
    for key, value in (
        ("command", details.command),
        ("path", details.path),
        ("host", details.host),
        ("destructive", details.destructive),
        ("askedBecause", question.reason),
        ("diff", details.diff),
    ):
        if value is not None:
            params[key] = value
    if question.review:
        params["review"] = True
    names = {
        "allow": "allow",
        "allow_tool_session": "allowToolSession",
        "allow_session": "allowSession",
        "allow_always": "allowAlways",
        "deny": "deny",
    }
    params["options"] = [names[option] for option in question.options]
    return params
