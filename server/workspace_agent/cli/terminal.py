"""Renders a run in a terminal: streamed text, the model's thinking as dim lines (hidden
with `--no-thinking`), each tool call and result, the plan; a subagent's start, calls,
plan and end indented under its task call.

Fed by the same events as the editor (AgentListener), so `workspace-agent run` and the
demo show what the Plan view and the transcript show: a hook's run is a line under its
call, a plan item's check a line under the item. A background command's output comes
line by line prefixed by its id (`[b1] ...`), with a line for each port it opens (the
URL) and one when it ends (agent/front_end.py BackgroundLines). A result's line is its
tool's gist (`Tool.gist`: a command's status and last line); the plan tool's (kind
"plan") is the plan itself, printed by `on_todos`.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, TextIO

from .. import protocol as p
from ..agent.front_end import BackgroundLines
from ..checkpoints.preparing import Milestones
from ..protocol import TodoItem
from ..tools import TOOLS
from ..tools.base import first_line

if TYPE_CHECKING:
    from .. import contract

MARKS = {"pending": "[ ]", "in_progress": "[>]", "completed": "[x]"}


class TerminalRenderer:
    def __init__(
        self, out: TextIO | None = None, color: bool | None = None, show_thinking: bool = True
    ) -> None:
        self._out = out or sys.stdout
        self._show_thinking = show_thinking
        self._thinking = False
        """In the middle of the model's thinking (its lines are open)."""
        self._color = self._out.isatty() if color is None else color
        self._mid_line = False
        self._last_plan: list[TodoItem] | None = None
        self._files: dict[tuple[Any, Any], str] = {}
        self._files_line: str | None = None
        self._preparing = Milestones()
        self._sub_plans: dict[Any, list[Any]] = {}
        """Each subagent at work's plan, as last printed (by its task call)."""
        self._background = BackgroundLines()
        self._context: dict[str, str] = {}
        """Each session's context meter (`62 k / 200 k`), shown on its run's last line."""
        self._last_call: Any = None
        """The toolUseId of the last call line: a result of another call (read-only calls
        run side by side) names its tool."""

    def on_event(self, session_id: str, kind: str, fields: dict[str, Any]) -> None:
        if kind == p.EVENT_THINKING:
            self._thought(str(fields.get("text", "")))
            return
        if self._thinking:  # what follows the thinking starts on a line of its own
            self._thinking = False
            if self._mid_line:
                self._write("\n")
            self._mid_line = False
        if kind == p.EVENT_TEXT:
            self._write(fields.get("text", ""))
            self._mid_line = not fields.get("text", "").endswith("\n")
        elif kind == p.EVENT_RUN_START:
            shown = fields.get("said") or fields.get("prompt", "")  # what the user did
            self._line(self._style(f"▶ {shown}", "1"))
            carried = [*fields.get("mentions", ())]
            carried += [
                f"image {i['mediaType'].removeprefix('image/')} {i['width']}x{i['height']}"
                for i in fields.get("images", ())
            ]
            if carried:
                self._line(self._style(f"  with {', '.join(carried)}", "2"))
        elif kind == p.EVENT_TOOL_CALL:
            self._last_call = fields.get("toolUseId")
            call = f"{_indent(fields)}  → {fields.get('name')} {fields.get('summary', '')}"
            self._line(self._style(call, "36"))
        elif kind == p.EVENT_TOOL_RESULT:
            tool = TOOLS.get(str(fields.get("name")))
            if tool is not None and tool.kind == "plan" and fields.get("ok"):
                return  # the plan itself is printed by on_todos (a subagent's: _subagent)
            mark = self._style("✓", "32") if fields.get("ok") else self._style("✗", "31")
            whose = "" if fields.get("toolUseId") == self._last_call else f"{fields.get('name')}: "
            self._last_call = None
            output = str(fields.get("output", ""))
            gist = tool.gist(output) if tool is not None else first_line(output)
            self._line(f"{_indent(fields)}    {mark} {whose}{gist}")
            if self._files_line:
                self._line(self._files_line)
                self._files_line = None
        elif kind == p.EVENT_SUBAGENT:
            self._subagent(fields)
        elif kind == p.EVENT_HOOK:
            self._line(
                self._style(hook_line(fields), "2" if fields.get("outcome") == "ok" else "33")
            )
        elif kind == p.EVENT_REMINDER:
            self._line(self._style("  (reminder sent: update your todos)", "33"))
        elif kind == p.EVENT_NOTICE:
            self._line(self._style(f"  ! {fields.get('message')}", "33"))
        elif kind == p.EVENT_PREPARING:
            if self._preparing.worth_a_line(session_id, fields):
                self._line(self._style(f"  … {fields.get('message')}", "2"))
        elif kind == p.EVENT_ERROR:
            self._line(self._style(f"error: {fields.get('message')}", "31"))
        elif kind == p.EVENT_BACKGROUND_OUTPUT:
            for line in self._background.output(session_id, fields):
                self._line(self._style(f"  {line}", "2"))
        elif kind == p.EVENT_BACKGROUND:
            if fields.get("state") != "running":  # its last words first
                for line in self._background.flush(session_id, str(fields.get("id"))):
                    self._line(self._style(f"  {line}", "2"))
            for line in self._background.state(session_id, fields):
                self._line(self._style(f"  ◆ {line}", "36"))
        elif kind == p.EVENT_RUN_END:
            usage = fields.get("usage") or {}
            line = f"■ {fields.get('stopReason')} · {usage_line(usage)}{cost_note(fields)}"
            if context := self._context.get(session_id):
                line += f" · context {context}"
            self._line(self._style(line, "1"))

    def _subagent(self, fields: dict[str, Any]) -> None:
        """A subagent's start, its plan when it changes, its end: indented under its task
        call, as its calls are."""
        key = fields.get("toolUseId")
        items = [(i["id"], i["text"], i["status"]) for i in fields.get("items") or ()]
        if "stopReason" in fields:
            usage = fields.get("usage") or {}
            tokens = usage_line(usage)
            line = f"{SUBAGENT_BAR} ■ {fields.get('agent')}: {fields['stopReason']} · {tokens}"
            self._line(self._style(line + cost_note(fields), "2"))
            self._sub_plans.pop(key, None)
            return
        if key not in self._sub_plans:
            said = f"{SUBAGENT_BAR} ▶ subagent {fields.get('agent')}: {fields.get('description')}"
            self._line(self._style(said, "1"))
        if items and items != self._sub_plans.get(key):
            done = sum(1 for item in items if item[2] == "completed")
            self._line(self._style(f"{SUBAGENT_BAR}   plan {done}/{len(items)}", "35"))
            for item_id, text, status in items:
                self._line(f"{SUBAGENT_BAR}     {MARKS[status]} #{item_id} {text}")
        self._sub_plans[key] = items

    def on_todos(self, session_id: str, items: list[TodoItem]) -> None:
        if items == self._last_plan or (not items and self._last_plan is None):
            return
        self._last_plan = list(items)
        done = sum(1 for item in items if item.status == "completed")
        self._line(self._style(f"  plan {done}/{len(items)}", "35"))
        for item in items:
            self._line(f"    {MARKS[item.status]} #{item.id} {item.text}")
            if item.check is not None:
                self._line(
                    self._style(f"        {item.check.line()}", "32" if item.check.passed else "31")
                )

    def on_context(self, session_id: str, meter: contract.ContextMeter) -> None:
        self._context[session_id] = meter["label"]  # shown on the run's last line

    def on_changes(self, session_id: str, changes: contract.Changes) -> None:
        """One line with the files whose change is new since the last call (the whole
        table: `workspace-agent changes`)."""
        fresh = []
        for item in changes.get("items", []):
            for file in item.get("files", []):
                shown = file_line(file)
                key = (item.get("todoId"), file.get("path"))
                if self._files.get(key) != shown:
                    self._files[key] = shown
                    fresh.append(shown)
        if fresh:  # shown under the call's result line, which comes next
            self._files_line = self._style(f"    files: {', '.join(fresh)}", "2")

    def _thought(self, text: str) -> None:
        if not self._show_thinking or not text:
            return
        if not self._thinking:
            if self._mid_line:
                self._write("\n")
            self._write(self._style("  thinking: ", "2"))
            self._thinking = True
        self._write(self._style(text.replace("\n", "\n  "), "2"))
        self._mid_line = not text.endswith("\n")

    def _line(self, text: str) -> None:
        if self._mid_line:
            self._write("\n")
            self._mid_line = False
        self._write(text + "\n")

    def _write(self, text: str) -> None:
        self._out.write(text)
        self._out.flush()

    def _style(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self._color else text


def hook_line(fields: dict[str, Any]) -> str:
    """A hook's run under its call: "↳ PostToolUse: prettier — 120 ms", and what came of it
    when that is more than "ok"."""
    said = str(fields.get("message", ""))
    more = f" · {said}" if said and said != "ok" else ""
    took = f"{fields.get('durationMs', 0)} ms"
    return f"    ↳ {fields.get('event')}: {fields.get('hook')} — {took}{more}"


CHANGE_MARKS = {"added": "A", "modified": "M", "deleted": "D"}
SUBAGENT_BAR = "    │"
"""What a subagent's lines start with: under its task call, set apart."""


def _indent(fields: dict[str, Any]) -> str:
    """A subagent's call is indented under its task call."""
    return SUBAGENT_BAR if "parentToolUseId" in fields else ""


def file_line(file: contract.ChangedFile) -> str:
    """The change's letter, the path and the lines added and removed (or "binary")."""
    mark = CHANGE_MARKS.get(file.get("change", ""), "?")
    counts = (
        "binary"
        if file.get("binary")
        else f"+{file.get('additions', 0)} −{file.get('deletions', 0)}"
    )
    return f"{mark} {file.get('path')} {counts}"


def usage_line(usage: dict[str, Any]) -> str:
    """ "1,200 input + 30,000 cache read + 2,000 cache write / 700 output tokens"."""
    parts = [f"{usage.get('inputTokens', 0):,} input"]
    for key, label in (("cacheReadTokens", "cache read"), ("cacheWriteTokens", "cache write")):
        if usage.get(key):
            parts.append(f"{usage[key]:,} {label}")
    return f"{' + '.join(parts)} / {usage.get('outputTokens', 0):,} output tokens"


def cost_note(fields: dict[str, Any]) -> str:
    """ " · ≈ $0.0421 (estimate)", or nothing when the model has no known price."""
    cost = fields.get("cost")
    return f" · ≈ ${cost['usd']:.4f} (estimate)" if isinstance(cost, dict) else ""
