"""A subagent as an ACP client sees it: the `task` tool call it runs under, whose content
is its progress while it works (one line per call it makes, with how the call ended, and
its plan) and its final message once it ends (the task call's own `tool_call_update`).
ACP has no nested tool calls, and one plan per session: the subagent's calls and plan are
written into its task call rather than shown as the session's."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from acp import text_block, tool_content, update_tool_call
from acp.schema import ToolCallProgress

from . import tool_calls

MARKS = {"pending": "[ ]", "in_progress": "[>]", "completed": "[x]"}


@dataclass
class Progress:
    calls: dict[str, str] = field(default_factory=dict)
    """Each call's line, by its tool_use id, in the order they started."""
    plan: list[str] = field(default_factory=list)

    def text(self) -> str:
        return "\n".join([*self.calls.values(), *self.plan])


class SubagentProgress:
    """The progress of every subagent at work, by its task call."""

    def __init__(self) -> None:
        self._tasks: dict[str, Progress] = {}

    def on_call(self, fields: dict[str, Any]) -> ToolCallProgress | None:
        """A line for the call (None for a plan update: its plan is shown instead)."""
        parent = str(fields["parentToolUseId"])
        start = tool_calls.started(fields)
        if tool_calls.is_plan(start):
            return None
        progress = self._tasks.setdefault(parent, Progress())
        progress.calls[str(fields["toolUseId"])] = f"- {start.title}"
        return self._update(parent, progress)

    def on_result(self, fields: dict[str, Any]) -> ToolCallProgress | None:
        parent = str(fields["parentToolUseId"])
        progress = self._tasks.setdefault(parent, Progress())
        tool_use_id = str(fields["toolUseId"])
        line = progress.calls.get(tool_use_id)
        if line is None:  # a plan update's
            if fields.get("ok"):
                return None
            line = f"- {fields.get('name')}"
        mark = "done" if fields.get("ok") else "failed"
        progress.calls[tool_use_id] = f"{line} ({mark})"
        return self._update(parent, progress)

    def on_subagent(self, fields: dict[str, Any]) -> ToolCallProgress | None:
        """Its plan into its task call's content; None when there is nothing to show yet,
        and once it ended (the task call's result, which comes next, says how)."""
        parent = str(fields["toolUseId"])
        if "stopReason" in fields:
            self._tasks.pop(parent, None)
            return None
        if not fields.get("items"):
            return None
        progress = self._tasks.setdefault(parent, Progress())
        items = fields.get("items") or []
        progress.plan = (
            [f"Plan of {fields.get('agent')}:"]
            + [f"{MARKS.get(i['status'], '[ ]')} {i['text']}" for i in items]
            if items
            else []
        )
        return self._update(parent, progress)

    @staticmethod
    def _update(parent: str, progress: Progress) -> ToolCallProgress:
        return update_tool_call(
            parent, status="in_progress", content=[tool_content(text_block(progress.text()))]
        )
