"""todo: the model replaces its whole plan; the session publishes every change."""

from __future__ import annotations

from typing import Any

from ..protocol import TODO_STATUSES
from ..shared.todo import MAX_ITEMS, TodoError
from .base import Tool, ToolContext, ToolError


async def todo(ctx: ToolContext, args: dict[str, Any]) -> str:
    try:
        ctx.todos.replace(args["items"])
    except TodoError as exc:
        raise ToolError(f"todo list rejected, the previous list is kept: {exc}") from exc
    return ctx.todos.render()


def _summary(args: dict[str, Any]) -> str:
    items = args.get("items") or []
    done = sum(1 for item in items if isinstance(item, dict) and item.get("status") == "completed")
    return f"{len(items)} items, {done} completed"


TODO = Tool(
    name="todo",
    description=(
        "Keep your plan for the task. Send the WHOLE list every time (it replaces the previous "
        f"one): at most {MAX_ITEMS} items, each with an id, a short text and a status "
        "(pending, in_progress or completed). Exactly one item should be in_progress while you "
        "work on it; mark items completed as soon as they are done."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "maxItems": MAX_ITEMS,
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {
                            "type": ["string", "integer"],
                            "description": "Stable id, e.g. '1'.",
                        },
                        "text": {"type": "string", "minLength": 1},
                        "status": {"type": "string", "enum": list(TODO_STATUSES)},
                    },
                    "required": ["id", "text", "status"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["items"],
        "additionalProperties": False,
    },
    handler=todo,
    summarize=_summary,
    kind="plan",
    plan_safe=True,
    reach="nothing",  # it changes the plan, no file (not read_only: calls stay in order)
    aliases=("TodoWrite",),
)
