"""Publishes what the agent core reports as custom LSP notifications.

workspaceAgent/event carries the live transcript, workspaceAgent/todos the whole plan on
every change, workspaceAgent/changes what each plan item changed, workspaceAgent/contextMeter
how full the context window is; a run's work-done
progress follows the plan too, and with followAgent the editor shows each edit
(follow.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pygls.lsp.server import LanguageServer

from .. import protocol as p
from ..conversation.entries import user_fields
from ..protocol import TodoItem
from .follow import FollowEdits
from .progress import END_MESSAGES, RunProgress

if TYPE_CHECKING:
    from .. import contract


class LspNotifier:
    """The AgentListener of the language server."""

    def __init__(self, ls: LanguageServer) -> None:
        self._ls = ls
        self.progress: dict[str, RunProgress] = {}
        """Work-done progress of the runs going on, by session id."""
        self.follow: FollowEdits | None = None
        """Shows the agent's edits in the editor (followAgent), when the server set it."""

    def on_event(self, session_id: str, kind: str, fields: dict[str, Any]) -> None:
        if kind == p.EVENT_TOOL_RESULT and self.follow is not None and fields.get("ok"):
            self.follow.follow(fields.get("changes") or [])
        shown = user_fields(kind, fields)  # a card's worth, not the details
        self._ls.protocol.notify(
            p.EVENT_NOTIFICATION, {"sessionId": session_id, "kind": kind, **shown}
        )
        if kind == p.EVENT_APPROVAL and (progress := self.progress.get(session_id)) is not None:
            progress.approval(str(fields.get("status")))
        if kind == p.EVENT_RUN_END and (progress := self.progress.get(session_id)) is not None:
            progress.end(END_MESSAGES.get(fields.get("stopReason", ""), "Stopped"))

    def on_changes(self, session_id: str, changes: contract.Changes) -> None:
        self._ls.protocol.notify(p.CHANGES_NOTIFICATION, {"sessionId": session_id, **changes})

    def on_context(self, session_id: str, meter: contract.ContextMeter) -> None:
        self._ls.protocol.notify(p.CONTEXT_METER_NOTIFICATION, meter)

    def on_todos(self, session_id: str, items: list[TodoItem]) -> None:
        self._ls.protocol.notify(p.TODOS_NOTIFICATION, p.todos_payload(session_id, items))
        if (progress := self.progress.get(session_id)) is not None:
            progress.report(items)
