"""The ACP agent's AgentListener: what the core reports becomes `session/update`s.

Streamed text → `agent_message_chunk`; the model's thinking → `agent_thought_chunk`
(clients show it folded); a tool call → `tool_call`, its result →
`tool_call_update`; the plan → `plan` (the whole list, only when it changed; an item's
check after its text); a subagent's calls and plan → its `task` call's content
(subagent_progress.py). A todo call
that changed the plan is not shown as a tool call: the `plan` update is what clients show
of it, and both would show one change twice; a todo call that failed is (one `tool_call`,
`failed`, with the error the model got), as the plan did not change. Notices and
retries → a quoted line in the agent's message (ACP v1 has no other place a client is
sure to show), and so is each hook's run. A background command's call stays
`in_progress`, its content following its output, until it ends (background_calls.py).
Each update is written the moment the core reports it, so they reach the client in
order and before the answer to `session/prompt`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from acp import plan_entry, update_agent_message_text, update_agent_thought_text, update_plan
from acp.schema import (
    AgentPlanUpdate,
    PlanEntry,
    PlanEntryPriority,
    SessionNotification,
    ToolCallStart,
)
from acp.utils import serialize_params

from .. import protocol as p
from ..checkpoints.preparing import Milestones
from ..protocol import TodoItem
from . import tool_calls
from .background_calls import BackgroundCalls
from .diff_log import DiffLog
from .edit_texts import WholeTexts
from .subagent_progress import SubagentProgress

if TYPE_CHECKING:
    from .. import contract

SESSION_UPDATE = "session/update"
PRIORITY: PlanEntryPriority = "medium"
"""The todo tool has no priorities; every plan entry gets the same one."""

Post = Callable[[dict[str, Any]], None]


class AcpUpdates:
    def __init__(self, post: Post) -> None:
        self._post = post
        self._plans: dict[str, list[PlanEntry]] = {}
        self.running: dict[str, ToolCallStart] = {}
        """The tool call each session is in (what a permission request is about)."""
        self.whole_texts: dict[str, WholeTexts] = {}
        """An edit's whole file before and after, by tool_use id (edit_texts.py)."""
        self.diff_logs: dict[str, DiffLog] = {}
        """Where each session keeps the diffs it was shown, for session/load."""
        self._preparing = Milestones()
        self._subagents = SubagentProgress()
        self.background = BackgroundCalls(self.send)
        """Background commands: their starting calls followed until they end."""

    def on_event(self, session_id: str, kind: str, fields: dict[str, Any]) -> None:
        if "parentToolUseId" in fields or kind == p.EVENT_SUBAGENT:
            self._subagent(session_id, kind, fields)
        elif kind == p.EVENT_TEXT:
            self.send(session_id, update_agent_message_text(str(fields.get("text", ""))))
        elif kind == p.EVENT_THINKING:
            self.send(session_id, update_agent_thought_text(str(fields.get("text", ""))))
        elif kind == p.EVENT_TOOL_CALL:
            start = tool_calls.started(fields)
            self.running[session_id] = start
            if not tool_calls.is_plan(start):
                self.send(session_id, start)
        elif kind == p.EVENT_TOOL_RESULT:
            call: ToolCallStart | None = self.running.pop(session_id, None)
            texts = self.whole_texts.pop(str(fields.get("toolUseId")), None)
            if call is not None and tool_calls.is_plan(call):
                if not fields.get("ok"):
                    self.send(session_id, tool_calls.failed_plan_call(call, fields))
                return
            end = tool_calls.finished(fields, call.kind if call else None, texts)
            if fields.get("background") and fields.get("ok"):
                self.background.answered(session_id, fields, end)
            self.send(session_id, end)
            keep = tool_calls.has_diffs(end) or bool(end.field_meta)
            if keep and session_id in self.diff_logs:  # for a load
                diffs = tool_calls.has_diffs(end)
                self.diff_logs[session_id].append(
                    end.tool_call_id,
                    [_wire(c) for c in end.content or []] if diffs else [],
                    [_wire(place) for place in end.locations or []] if diffs else [],
                    end.field_meta,
                )
        elif kind == p.EVENT_HOOK:
            self.send(session_id, update_agent_message_text(f"\n\n> {hook_line(fields)}\n\n"))
        elif kind in (p.EVENT_NOTICE, p.EVENT_RETRY):
            self.send(session_id, update_agent_message_text(f"\n\n> {fields.get('message')}\n\n"))
        elif kind == p.EVENT_BACKGROUND:
            self.background.state(session_id, fields)
        elif kind == p.EVENT_BACKGROUND_OUTPUT:
            self.background.output(session_id, fields)
        elif kind == p.EVENT_PREPARING:
            if self._preparing.worth_a_line(session_id, fields):
                note = f"\n\n> {fields.get('message')}\n\n"
                self.send(session_id, update_agent_message_text(note))

    def _subagent(self, session_id: str, kind: str, fields: dict[str, Any]) -> None:
        """A subagent's call or plan: written into its task call (subagent_progress.py)."""
        update = None
        if kind == p.EVENT_TOOL_CALL:
            update = self._subagents.on_call(fields)
        elif kind == p.EVENT_TOOL_RESULT:
            update = self._subagents.on_result(fields)
        elif kind == p.EVENT_SUBAGENT:
            update = self._subagents.on_subagent(fields)
        if update is not None:
            self.send(session_id, update)

    def on_todos(self, session_id: str, items: list[TodoItem]) -> None:
        update = plan_update(items)
        if update.entries == self._plans.get(session_id, []):
            return  # nothing new (a run starting with the plan the client already has)
        self._plans[session_id] = update.entries
        self.send(session_id, update)

    def on_changes(self, session_id: str, changes: contract.Changes) -> None:
        """ACP has no message for what each plan item changed (checkpoints); its clients
        see every edit as the tool call's diff."""

    def on_context(self, session_id: str, meter: contract.ContextMeter) -> None:
        """ACP's own `usage_update` carries the same figure (the last request's input
        tokens against the window), sent when a prompt's turn ends (agent.py)."""

    def send(self, session_id: str, update: Any) -> None:
        notification = SessionNotification(session_id=session_id, update=update)
        self._post(
            {"jsonrpc": "2.0", "method": SESSION_UPDATE, "params": serialize_params(notification)}
        )

    def remember_plan(self, session_id: str, items: list[TodoItem]) -> None:
        """The client has this plan already (a session/load replayed it)."""
        self._plans[session_id] = plan_update(items).entries


def _wire(model: Any) -> Any:
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


def plan_update(items: list[TodoItem]) -> AgentPlanUpdate:
    """The plan's entries; an item's last check follows its text ("Fix it — check failed:
    1 failed")."""
    return update_plan(
        plan_entry(
            f"{item.text} — {item.check.line()}" if item.check else item.text,
            priority=PRIORITY,
            status=item.status,
        )
        for item in items
    )


def hook_line(fields: dict[str, Any]) -> str:
    """A hook's run in one line: "PostToolUse hook prettier: ok (120 ms)"."""
    return (
        f"{fields.get('event')} hook {fields.get('hook')}: {fields.get('message')} "
        f"({fields.get('durationMs', 0)} ms)"
    )
