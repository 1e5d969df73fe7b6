"""`workspace-agent commands`: the slash commands a task can start with, as every front
end gets them (agent/saved_prompts.py), and the command files that cannot be used."""

from __future__ import annotations

from pathlib import Path

from ..agent.saved_prompts import list_commands as find_commands


def list_commands(root: Path) -> int:
    commands, problems = find_commands(root)
    width = max(len(c.name) + len(c.argument_hint or "") for c in commands) + 3
    for command in commands:
        usage = f"/{command.name} {command.argument_hint or ''}".rstrip()
        where = "built-in" if command.path is None else str(command.path)
        print(f"{usage:<{width}} {command.description}  [{where}]")
    for problem in problems:
        print(f"problem: {problem}")
    return 1 if problems else 0
