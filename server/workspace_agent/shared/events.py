"""How the core reports what happens during a run, without knowing who listens.

The LSP adapter turns these calls into workspaceAgent/event, workspaceAgent/todos,
workspaceAgent/changes and workspaceAgent/contextMeter notifications; the terminal front
end prints them. Field names are the wire names from protocol.py, so every front end sees
the same payloads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ..contract import EventEmitter
from ..protocol import TodoItem

if TYPE_CHECKING:
    from .. import contract


class AgentListener(Protocol):
    def on_event(self, session_id: str, kind: str, fields: dict[str, Any]) -> None:
        """A transcript event (protocol.EVENT_*), with its wire fields."""

    def on_todos(self, session_id: str, items: list[TodoItem]) -> None:
        """The session's whole plan after a change."""

    def on_changes(self, session_id: str, changes: contract.Changes) -> None:
        """What each plan item changed, after workspace-changing tool calls (at most
        one every 100 ms in a run, the last before the run ends; see
        checkpoints/publisher.py) and reverts: the wire form of workspaceAgent/changes,
        without sessionId."""

    def on_context(self, session_id: str, meter: contract.ContextMeter) -> None:
        """How full the session's context window is, after each of its own agent's model
        requests and after /compact: the payload of workspaceAgent/contextMeter. Beside the
        event stream, so it is never recorded in the history."""


@dataclass(frozen=True)
class SessionEvents(EventEmitter):
    """A listener bound to one session: what the loop talks to. `emit(kind, **fields)`
    is typed per kind from the contract (contract/workspace-agent.json), so mypy checks
    every event the core sends."""

    listener: AgentListener
    session_id: str

    def send_event(self, kind: str, fields: dict[str, Any]) -> None:
        self.listener.on_event(self.session_id, kind, fields)

    def todos(self, items: list[TodoItem]) -> None:
        self.listener.on_todos(self.session_id, items)

    def changes(self, changes: contract.Changes) -> None:
        self.listener.on_changes(self.session_id, changes)

    def context(self, meter: contract.ContextMeter) -> None:
        self.listener.on_context(self.session_id, meter)
