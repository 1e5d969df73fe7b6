"""What a command asks beyond the sandbox's walls, and the question that names it.

The model may ask, in the bash tool's input, to run a command outside the sandbox
(`unsandboxed_reason`) or to let it also write some folders outside the workspace
(`writable_paths`, say a real package cache or a sibling checkout). Either is asked about
every time, with exactly what widens in the question, and never covered by an earlier
"Allow for this session" (the approvals' `must_ask_reason`). The other walls stay up for
writable paths: credential locations are still hidden (and refused as writable paths,
as the sandbox.writablePaths setting refuses them), git and editor configs still
read-only, each host of the network still asked about.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import leaves_no_sandbox, writable_path_problem
from ..shared.errors import ToolError


@dataclass(frozen=True)
class Widening:
    leave: str = ""
    """Why the command must run outside the sandbox (empty: it stays inside)."""
    writable: tuple[Path, ...] = ()
    """Folders outside the workspace it may also write, resolved."""

    def question(self, sandboxed: bool) -> str | None:
        """The reason the command is asked about, or None when nothing widens."""
        if self.leave:
            return (
                f"it runs outside the sandbox, with your full access: every file you can "
                f"write, your credentials and the whole network (the model says: {self.leave})"
            )
        if self.writable and sandboxed:
            shown = ", ".join(str(path) for path in self.writable)
            return (
                f"it may also write {shown}, outside the workspace (the sandbox's other walls stay)"
            )
        return None

    def granted(self, sandboxed: bool) -> str | None:
        """What the result says when a person allowed this widening up front."""
        if self.leave:
            return "ran outside the sandbox: allowed for this invocation by --allow-unsandboxed"
        if self.writable and sandboxed:
            shown = ", ".join(str(path) for path in self.writable)
            return f"could also write {shown}: allowed for this invocation by --allow-unsandboxed"
        return None


def widening(args: dict[str, Any], root: Path, mode: str) -> Widening:
    """The widening a bash input asks for; ToolError for one that cannot be granted."""
    leave = str(args.get("unsandboxed_reason") or "").strip()
    if leave and mode == "required":
        raise ToolError(
            "not run: sandbox.mode is `required`, so no command runs outside the sandbox"
        )
    writable = []
    home = os.path.expanduser("~")
    root = Path(os.path.realpath(root))
    for raw in args.get("writable_paths") or []:
        path = Path(os.path.expanduser(str(raw)))
        real = Path(os.path.realpath(path if path.is_absolute() else root / path))
        if not real.is_dir():
            raise ToolError(f"not run: writable_paths: {raw} is not an existing folder")
        if leaves_no_sandbox(real, home):
            raise ToolError(
                f"not run: writable_paths: {raw} would leave no sandbox to speak of; ask to "
                "run the command outside the sandbox instead (unsandboxed_reason)"
            )
        problem = writable_path_problem(real, home)
        if problem:
            raise ToolError(
                f"not run: writable_paths: {problem}; the sandbox keeps those out of reach "
                "even when asked (run the command without that folder)"
            )
        if real == root or root in real.parents:
            continue  # the workspace is writable already (its .git and configs stay read-only)
        if real not in writable:
            writable.append(real)
    return Widening(leave, tuple(writable))
