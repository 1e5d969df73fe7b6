"""The hooks in force for a workspace, as `workspace-agent hooks` lists them: where each
comes from, where it runs (the host, or the sandbox), and whether it must be trusted and
is; and trusting them from the command line, which a headless run cannot ask about."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..shared import host_programs
from .config import Hook
from .sources import find_hooks
from .trust import Candidate, HookTrust, candidate, needs_trust

Trust = Literal["needs none", "trusted", "not trusted yet"]


@dataclass(frozen=True)
class Listed:
    number: int
    hook: Hook
    found: Candidate
    trust: Trust

    @property
    def runs(self) -> str:
        return "in the sandbox" if self.hook.source == "workspace" else "on the host"


def in_force(root: Path, user_dir: Path) -> tuple[list[Listed], list[str]]:
    """Every hook a run in `root` would have, numbered, and the problems of their files."""
    host_programs.protect(root)  # a script there is one a sandboxed command may change
    found = find_hooks(root, user_dir)
    records = HookTrust(user_dir)
    listed = []
    for number, hook in enumerate(found.hooks, 1):
        seen = candidate(hook, root)
        trust: Trust = "needs none"
        if needs_trust(hook, seen):
            trust = "trusted" if records.trusted(seen) else "not trusted yet"
        listed.append(Listed(number, hook, seen, trust))
    return listed, list(found.problems)


def trust(root: Path, user_dir: Path, numbers: Sequence[int]) -> list[Listed]:
    """Trust the listed hooks of `numbers` (all that need it when empty) as they are now;
    ValueError naming a number that is not one of them."""
    listed, _ = in_force(root, user_dir)
    waiting = {item.number: item for item in listed if item.trust == "not trusted yet"}
    known = {item.number for item in listed}
    for number in numbers:
        if number not in known:
            raise ValueError(f"there is no hook {number} (the hooks are numbered 1-{len(listed)})")
    chosen = [waiting[n] for n in numbers if n in waiting] if numbers else list(waiting.values())
    records = HookTrust(user_dir)
    for item in chosen:
        records.trust(item.found)
    return chosen
