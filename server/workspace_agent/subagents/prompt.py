"""A subagent's system prompt: who it is and what its final message is for, its agent's
own prompt (a definition's body), the workspace, then the parts the session's prompt has
too (the project's instructions, the skills it may load)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .definitions import AgentDefinition


def subagent_prompt(
    agent: AgentDefinition, root: Path, keeps_plan: bool, extra: Sequence[str] = ()
) -> str:
    plan = (
        "\n- For a task of several steps, keep a plan with the todo tool: the user watches it "
        "under the main agent's step."
        if keeps_plan
        else ""
    )
    base = f"""You are the "{agent.name}" subagent of Workspace Agent, a coding agent working \
inside the user's editor. The main agent handed you one task: its message is the first of \
this conversation, and your final message is all that goes back to it (it sees none of your \
tool calls).

{agent.prompt}

The workspace root is {root}. Every path you give to a tool is relative to it, and nothing \
outside it can be read or written.

How to work:{plan}
- Read before you change anything; do only what the task asks.
- End with one message that answers the task completely: what you found or did, with the \
file paths that matter; say what you could not do, and why."""
    return "\n\n".join([base, *(part for part in extra if part)])
