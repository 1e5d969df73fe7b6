"""Plan mode: a run that looks but does not touch, and ends with a plan the user shapes.

A run is in plan mode when asked (`mode: "plan"`) or when its prompt starts with `/plan `
(read here, where every front end's prompt enters the core). Then:
- the model gets the same tools (same schemas: the cached prompt prefix stays the act
  run's), but a tool that is not `plan_safe` is refused without a question (`PlanTools`);
  bash runs in the sandbox with the workspace read-only (`ToolContext.read_only`);
- the system prompt ends with PLAN_PARAGRAPH;
- when the model ends its turn with a plan, the run stops with `planReady`.

The user answers with the plan as they left it (workspaceAgent/approvePlan): `run` it in
act mode, or `revise` it in plan mode; `approval_message` is what the model then reads,
and a revised plan is compared with the one it revises (`plan_diff`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..protocol import ApprovePlanParams, PlanItem, RunMode, StopReason, TodoItem
from ..shared.todo import MAX_ITEMS
from ..tools.base import Handler, Tool, ToolContext, ToolError

if TYPE_CHECKING:
    from .. import contract

PREFIX = re.compile(r"\A\s*/plan\s+(?=\S)")
PLAN_PARAGRAPH = """Plan mode: the user wants to see and shape your plan before anything changes.
- Explore as much as you need: read_file, and bash, which runs in a sandbox where the whole
  workspace is read-only. write_file, edit_file and tools that could change something are
  refused: do not try to change anything, and do not look for another way to.
- Write the plan with the todo tool: one item per step, every item pending, each specific
  enough to act on (which files, what changes in them, how it is checked).
- Then end your turn with a short summary of the approach (a few sentences). The user
  will reword, reorder, delete or comment on the items, then approve the plan or ask you
  to revise it; nothing is changed before that."""
REFUSED_EDIT = (
    "not done: you are in plan mode, so no file is changed yet. Put this change in the plan "
    "(the todo tool) instead; it is made once the user approves the plan."
)
REFUSED_TOOL = (
    "not called: you are in plan mode, and {name} is not marked read-only (its MCP server "
    "gives it no readOnlyHint), so it could change something. Put this step in the plan "
    "(the todo tool) instead; it runs once the user approves the plan."
)
NO_SESSION = (
    'there is no session {!r}: start a plan with workspaceAgent/run and mode "plan", then '
    "approve it"
)
BUSY = (
    "session {} has a run in progress: wait for it to end or cancel it, then approve the plan again"
)
EMPTY = (
    "the plan has no items: add an item to run or revise, or discard the plan (a new prompt "
    "goes on from here)"
)
TOO_LONG = "the plan has {} items, at most {} fit a todo list: merge or delete some, then approve"


def requested_mode(prompt: str, mode: RunMode) -> tuple[RunMode, str]:
    """The run's mode and the prompt the model gets: `/plan TASK` is TASK in plan mode."""
    match = PREFIX.match(prompt)
    if match is None:
        return mode, prompt
    return "plan", prompt[match.end() :]


def start_field(mode: RunMode) -> dict[str, RunMode]:
    """The runStart event's `mode` (absent for act, as from servers before plan mode)."""
    return {"mode": mode} if mode == "plan" else {}


def system_prompt(base: str) -> str:
    return f"{base}\n\n{PLAN_PARAGRAPH}"


def stop_reason(stop: StopReason, plan: Sequence[TodoItem]) -> StopReason:
    """A plan-mode run whose model ended its turn with a plan is ready for the user."""
    return "planReady" if stop == "end_turn" and plan else stop


class PlanTools(Mapping[str, Tool]):
    """The run's tools as plan mode offers them: looked up on every access (MCP tools
    come and go), each one that is not `plan_safe` in a refusing twin."""

    def __init__(self, tools: Mapping[str, Tool]) -> None:
        self._tools = tools
        self._twins: dict[int, tuple[Tool, Tool]] = {}

    def __getitem__(self, name: str) -> Tool:
        tool = self._tools[name]
        if tool.plan_safe:
            return tool
        known = self._twins.get(id(tool))
        if known is None or known[0] is not tool:
            known = (tool, replace(tool, handler=_refusing(tool)))
            self._twins[id(tool)] = known
        return known[1]

    def __iter__(self) -> Iterator[str]:
        return iter(self._tools)

    def __len__(self) -> int:
        return len(self._tools)


def _refusing(tool: Tool) -> Handler:
    message = REFUSED_EDIT if tool.kind == "edit" else REFUSED_TOOL.format(name=tool.name)

    async def refuse(ctx: ToolContext, args: dict[str, Any]) -> str:
        raise ToolError(message)

    return refuse


def check_plan(items: Sequence[PlanItem]) -> str | None:
    """Why a plan cannot be approved as it is (None: it can)."""
    if not items:
        return EMPTY
    if len(items) > MAX_ITEMS:
        return TOO_LONG.format(len(items), MAX_ITEMS)
    return None


def approved_todos(items: Sequence[PlanItem]) -> list[dict[str, Any]]:
    """The todo list an approved plan becomes (the todo tool's input form): ids kept,
    every item pending."""
    return [{"id": item.id, "text": item.text, "status": "pending"} for item in items]


def approval_message(params: ApprovePlanParams, previous: Sequence[TodoItem]) -> str:
    """The user message of the run an approval starts: the plan exactly as the user left it
    (order, text, their edits marked, each comment under its item) and the items of the
    previous plan they left out."""
    lines = [_RUN if params.action == "run" else _REVISE, "", "The plan:"]
    for item in params.items:
        edited = " (edited by the user)" if item.edited else ""
        lines.append(f"- [#{item.id}] {item.text}{edited}")
        lines += [f"  > user comment: {c.text}" for c in params.comments if c.todo_id == item.id]
    kept = {item.id for item in params.items}
    left_out = [item for item in previous if item.id not in kept]
    if left_out:
        lines += ["", "Left out by the user (do not do them):"]
        lines += [f"- [#{item.id}] {item.text}" for item in left_out]
    return "\n".join(lines)


def approval_said(params: ApprovePlanParams) -> str:
    """What the user did, as their card in the conversation says it: "Ran the plan (4
    items, 2 edited)", "Asked for a revised plan (3 items, 1 comment)"."""
    count = len(params.items)
    parts = [f"{count} item{'s' if count != 1 else ''}"]
    edited = sum(1 for item in params.items if item.edited)
    if edited:
        parts.append(f"{edited} edited")
    if params.comments:
        n = len(params.comments)
        parts.append(f"{n} comment{'s' if n != 1 else ''}")
    done = "Ran the plan" if params.action == "run" else "Asked for a revised plan"
    return f"{done} ({', '.join(parts)})"


_RUN = (
    "The user approved this plan, as shown below. Your todo list is already set to it (the "
    "same ids, every item pending): carry it out in this order, marking each item "
    "in_progress and then completed with the todo tool as you go. Items marked as edited "
    "by the user are in their words; follow the user's comments."
)
_REVISE = (
    "The user wants a revised plan: they edited it and commented on it, as shown below (the "
    "todo list is set to their version). You are still in plan mode. Take every comment and "
    "edit into account, write the revised plan with the todo tool (keep the id of an item "
    "you keep, give a new item a new id), then end with a short summary of what changed."
)


def plan_diff(before: Sequence[PlanItem], after: Sequence[TodoItem]) -> contract.PlanDiff:
    """The revised plan `after` against `before`, matched by id."""
    old = {item.id: item for item in before}
    items: list[contract.PlanDiffItem] = []
    for item in after:
        previous = old.get(item.id)
        if previous is None:
            items.append({"id": item.id, "change": "new"})
        elif previous.text != item.text:
            items.append({"id": item.id, "change": "reworded", "previousText": previous.text})
        else:
            items.append({"id": item.id, "change": "unchanged"})
    ids = {item.id for item in after}
    removed: list[contract.PlanItem] = [
        {"id": item.id, "text": item.text} for item in before if item.id not in ids
    ]
    return {"items": items, "removed": removed}
