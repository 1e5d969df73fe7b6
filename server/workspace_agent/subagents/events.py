"""What a subagent reports, as the session's front ends see it: its calls as the session's
`toolCall`/`toolResult` events marked with the `task` call they belong to
(`parentToolUseId`), its plan and its end as `subagent` events, its notices and retries
with its name in front. Its text and thinking are its own: the `task` call's result is
its final message, and two subagents at work side by side would otherwise interleave
their words in the conversation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import protocol as p
from ..protocol import StopReason, TodoItem, Usage
from ..shared.events import SessionEvents

if TYPE_CHECKING:
    from .. import contract

PREFIXED = frozenset({p.EVENT_NOTICE, p.EVENT_RETRY, p.EVENT_ERROR})
RELAYED = frozenset({p.EVENT_TOOL_CALL, p.EVENT_TOOL_RESULT})


@dataclass
class SubagentProgress:
    """One subagent's progress: what the `subagent` events say, and what it changed."""

    tool_use_id: str
    agent: str
    description: str
    todo_id: str | None
    items: list[TodoItem] = field(default_factory=list)
    tool_calls: int = 0
    changed: dict[str, str] = field(default_factory=dict)
    """Each file it changed, and how (added, modified, deleted), in the order it did."""

    def note(self, kind: str, fields: dict[str, Any]) -> None:
        if kind == p.EVENT_TOOL_CALL:
            self.tool_calls += 1
            return
        for changed in fields.get("changedFiles") or ():
            self._change(str(changed["path"]), str(changed["change"]))
        if not fields.get("changedFiles"):  # checkpoints off: the edits the tool reported
            for edit in fields.get("changes") or ():
                self._change(str(edit.get("path", "")), "modified")

    def _change(self, path: str, change: str) -> None:
        if not path:
            return
        before = self.changed.pop(path, None)
        if before == "added" and change == "deleted":
            return  # made and removed again: nothing changed
        self.changed[path] = "added" if before == "added" else change

    def wire(
        self,
        stop: StopReason | None = None,
        usage: Usage | None = None,
        cost: contract.CostEstimate | None = None,
    ) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "toolUseId": self.tool_use_id,
            "agent": self.agent,
            "description": self.description,
            "todoId": self.todo_id,
            "items": [item.to_wire() for item in self.items],
            "toolCalls": self.tool_calls,
        }
        if stop is not None:
            fields["stopReason"] = stop
            fields["usage"] = (usage or Usage()).to_wire()
            fields["cost"] = cost
        return fields

    def changes_line(self) -> str:
        """What it changed, in a few words: "changed no files", "changed 2 files: a.py
        (modified), b.txt (added)"."""
        if not self.changed:
            return "changed no files"
        shown = [f"{path} ({change})" for path, change in list(self.changed.items())[:10]]
        more = len(self.changed) - len(shown)
        tail = f" and {more} more" if more else ""
        count = len(self.changed)
        return f"changed {count} file{'s' if count != 1 else ''}: {', '.join(shown)}{tail}"


@dataclass(frozen=True)
class SubagentEvents(SessionEvents):
    """The events of a subagent's run, relayed to its session's listener."""

    progress: SubagentProgress | None = None

    def send_event(self, kind: str, fields: dict[str, Any]) -> None:
        progress = self.progress
        assert progress is not None
        if kind in RELAYED:
            progress.note(kind, fields)
            super().send_event(kind, {**fields, "parentToolUseId": progress.tool_use_id})
        elif kind in PREFIXED:
            message = f"Subagent {progress.agent} ({progress.description}): {fields['message']}"
            super().send_event(kind, {**fields, "message": message})

    def todos(self, items: list[TodoItem]) -> None:
        assert self.progress is not None
        self.progress.items = list(items)
        self.report()

    def report(
        self,
        stop: StopReason | None = None,
        usage: Usage | None = None,
        cost: contract.CostEstimate | None = None,
    ) -> None:
        """The `subagent` event: its plan now, or how it ended."""
        assert self.progress is not None
        super().send_event(p.EVENT_SUBAGENT, self.progress.wire(stop, usage, cost))
