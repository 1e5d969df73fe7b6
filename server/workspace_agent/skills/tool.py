"""The `skill` tool: the model loads a skill by its name and gets its instructions and
the folder its other files are in (which it reads with read_file, and whose scripts it
runs with bash like any command: sandbox and approvals as usual; a skill grants nothing).
Only in a run that found skills the model may load (a run without any sends no byte more).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..tools.base import Tool, ToolContext, ToolError
from .discovery import Found

NAME = "skill"


def skill_tool(found: Found, root: Path | None) -> Tool:
    """The tool over the skills of one run."""

    async def load(_ctx: ToolContext, args: dict[str, Any]) -> str:
        name = str(args["name"]).strip().lstrip("/")
        skill = found.named(name)
        if skill is None:
            names = ", ".join(s.name for s in found.for_model) or "(none)"
            raise ToolError(f"there is no skill {name!r}; the skills are: {names}")
        if not skill.model_invocable:
            raise ToolError(
                f"the skill {name!r} is started by the user only (/{name}; its front matter "
                "says disable-model-invocation: true)"
            )
        return skill.render(str(args.get("arguments") or ""), root)

    return Tool(
        name=NAME,
        description=(
            "Load a skill listed under Skills in the system prompt: its instructions, and the "
            "folder its other files are in. Load it before you work on a task it describes. "
            "`arguments`: what the task is about, when the skill takes some."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1, "description": "The skill's name."},
                "arguments": {"type": "string", "description": "Words for the skill, if any."},
            },
            "required": ["name"],
            "additionalProperties": False,
        },
        handler=load,
        summarize=lambda args: " ".join(
            str(part) for part in (args.get("name"), args.get("arguments")) if part
        ),
        kind="read",
        plan_safe=True,
        read_only=True,
        reach="nothing",
        aliases=("Skill",),
    )
