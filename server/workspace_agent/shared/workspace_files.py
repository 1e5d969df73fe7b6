"""Files the agent reads from the workspace on its own, not because the model or the user
named them: saved commands, AGENTS.md and CLAUDE.md (the root's and nested ones), the
workspace settings file, the MCP configuration, and every kind later features add
(skills, agent definitions, hook configurations). A repository is code the user may have
just cloned; such a file that is a symbolic link out of the workspace, or sits in a folder
that is one (`.claude/commands -> ~/.ssh`), would hand the link's target to the model or
to the agent's configuration. One check for all of them: a file that leads outside the
workspace is refused with one message, and nothing of its target is read.

`READERS` names every module that reads such files; tests/unit/shared/test_workspace_files.py
plants a link for each and checks that nothing of the target comes through.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

READERS = (
    "workspace_agent.agent.saved_prompts",  # .workspace-agent/commands, .claude/commands
    "workspace_agent.instructions.files",  # AGENTS.md / CLAUDE.md at the root and below it
    "workspace_agent.agent.settings_file",  # .workspace-agent/settings.json
    "workspace_agent.mcp.config",  # .vscode/mcp.json, .mcp.json, .cursor/mcp.json
    "workspace_agent.hooks.sources",  # .claude/settings.json, .claude/settings.local.json
    "workspace_agent.hooks.trust",  # the scripts a hook's command names (hashed)
    "workspace_agent.skills.discovery",  # .claude/skills/*/SKILL.md and the other folders
    "workspace_agent.subagents.definitions",  # .claude/agents/*.md, .workspace-agent/agents
)
LEADS_OUTSIDE = "not read: it leads outside the workspace"


class LeadsOutside(OSError):
    """A workspace file that is a link (or in a linked folder) to somewhere outside."""

    def __init__(self, path: Path) -> None:
        super().__init__(errno.EACCES, LEADS_OUTSIDE, str(path))
        self.path = path

    def __str__(self) -> str:
        return f"{self.path}: {LEADS_OUTSIDE} (a symbolic link, or in a folder that is one)"


def inside(path: Path, root: Path) -> Path:
    """`path` with every link resolved; LeadsOutside when that is not in `root` (a file
    that does not exist resolves as far as it can, and raises nothing here)."""
    real_root = Path(os.path.realpath(root))
    real = Path(os.path.realpath(path))
    if real != real_root and real_root not in real.parents:
        raise LeadsOutside(path)
    return real


def is_file(path: Path, root: Path) -> bool:
    """A regular file there that stays in the workspace (a link out counts as none)."""
    try:
        return inside(path, root).is_file()
    except OSError:
        return False


def read_bytes(path: Path, root: Path, limit: int | None = None) -> bytes:
    """The file's bytes (at most `limit`), read through its resolved path without following
    a link swapped in meanwhile; LeadsOutside, or the OSError of the read."""
    real = inside(path, root)
    fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise IsADirectoryError(errno.EISDIR, "not a regular file", str(path))
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read() if limit is None else handle.read(limit)
    finally:
        os.close(fd)


def read_text(path: Path, root: Path, limit: int | None = None) -> str:
    """The file as UTF-8 text (UnicodeDecodeError when it is not)."""
    return read_bytes(path, root, limit).decode("utf-8")


def size(path: Path, root: Path) -> int:
    return inside(path, root).stat().st_size
