"""The workspace's `.workspace-agent/` folder: the agent's local state (sessions, their
histories, checkpoints, ACP diffs), never project files. Whoever makes a folder in it makes
it through `make_folder`, so the folder ignores itself for git (a `.gitignore` of `*`) from
the moment it exists, not only after a first successful run."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

NAME = ".workspace-agent"
GITIGNORE = "# Workspace Agent's local state, not project files\n*\n"
_MADE: dict[str, str | None] = {}
"""Folders this process made, each with the ignore file that goes with it (None: none):
a folder made again (each event of a run appends to its history) costs two `stat` calls,
not a `mkdir`, an exception and a walk up its parents."""


def make_folder(folder: Path) -> None:
    """`mkdir -p folder`; the `.workspace-agent` folder it lies in gets its `.gitignore`
    when it has none (a user's own file is left alone). Best effort for the ignore file:
    a read-only or full disk costs the ignore, never the write that needed the folder."""
    key = os.fspath(folder)
    if key in _MADE and os.path.isdir(key):
        made = _MADE[key]
        if made is None or os.path.exists(made):
            return  # as this process made it, its ignore file still there
    folder.mkdir(parents=True, exist_ok=True)
    state = next((p for p in (folder, *folder.parents) if p.name == NAME), None)
    ignore = state / ".gitignore" if state is not None else None
    if ignore is not None and not ignore.exists():
        with contextlib.suppress(OSError):
            ignore.write_text(GITIGNORE, encoding="utf-8")
    _MADE[key] = os.fspath(ignore) if ignore is not None else None
