"""The workspace's `.workspace-agent/` folder: the agent's local state (sessions, their
histories, checkpoints, ACP diffs), never project files. Whoever makes a folder in it makes
it through `make_folder`, so the folder ignores itself for git (a `.gitignore` of `*`) from
the moment it exists, not only after a first successful run."""

from __future__ import annotations

import contextlib
from pathlib import Path

NAME = ".workspace-agent"
GITIGNORE = "# Workspace Agent's local state, not project files\n*\n"


def make_folder(folder: Path) -> None:
    """`mkdir -p folder`; the `.workspace-agent` folder it lies in gets its `.gitignore`
    when it has none (a user's own file is left alone). Best effort for the ignore file:
    a read-only or full disk costs the ignore, never the write that needed the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    state = next((p for p in (folder, *folder.parents) if p.name == NAME), None)
    if state is None:
        return
    ignore = state / ".gitignore"
    if not ignore.exists():
        with contextlib.suppress(OSError):
            ignore.write_text(GITIGNORE, encoding="utf-8")
