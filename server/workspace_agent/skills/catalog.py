"""The skills as the model first sees them: one line per skill (its name and
description) in the system prompt, never a body (progressive disclosure: the `skill`
tool gives that). The list is bounded: at most SHARE of the context window (Codex's
bound), estimated at CHARS_PER_TOKEN; the skills that do not fit are left out, in the
order they were found (the workspace's first), and a line says how many.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .discovery import Skill

SHARE = 0.02
CHARS_PER_TOKEN = 4
INTRO = (
    "Skills: folders of instructions and files for particular tasks, written by the user "
    "or the project. When a task matches a skill's description, load it with the skill tool "
    "(its name) before you start, and follow it."
)


@dataclass(frozen=True)
class Catalog:
    block: str
    """The system prompt's part ("" without skills: the prompt is then unchanged)."""
    listed: int
    left_out: int


def catalog(skills: Sequence[Skill], context_window: int) -> Catalog:
    """The skills' lines that fit in SHARE of `context_window` tokens."""
    if not skills:
        return Catalog("", 0, 0)
    budget = int(context_window * SHARE * CHARS_PER_TOKEN)
    lines: list[str] = []
    used = len(INTRO) + len("<skills>\n\n</skills>") + len(_note(len(skills)))
    for skill in skills:
        line = f"- {skill.name}: {skill.description}"
        if used + len(line) + 1 > budget:
            break
        lines.append(line)
        used += len(line) + 1
    left_out = len(skills) - len(lines)
    body = [INTRO, *lines]
    if left_out:
        body.append(_note(left_out))
    return Catalog("<skills>\n" + "\n".join(body) + "\n</skills>", len(lines), left_out)


def _note(left_out: int) -> str:
    return (
        f"({left_out} more skill{'s are' if left_out != 1 else ' is'} not listed, to keep "
        f"this list within {SHARE:.0%} of the context window; the skill tool loads any "
        "skill by its name.)"
    )
