"""What checkpoints leave out: the store itself, a default list of dependency and build
folders, and the user's own ignore rules.

Git reads the work tree's `.gitignore` files by itself even though GIT_DIR points at the
store, and `.gitignore` wins over `info/exclude` (a `!build/` line brings a default back).
The user's repository exclude file (`.git/info/exclude`) and global excludes file are not
seen through a foreign GIT_DIR, so their lines are copied into the store's `info/exclude`.
"""

from __future__ import annotations

import os
import subprocess
from functools import cache
from pathlib import Path

from .gitcmd import GitError, bare_env, git_program

DEFAULT_EXCLUDES = (
    ".git",
    "/.workspace-agent/",
    # dependencies and virtual environments
    "node_modules/",
    "bower_components/",
    ".venv/",
    "venv/",
    ".tox/",
    ".nox/",
    # caches
    "__pycache__/",
    "*.py[cod]",
    ".mypy_cache/",
    ".pytest_cache/",
    ".ruff_cache/",
    ".gradle/",
    ".terraform/",
    # build output
    "build/",
    "dist/",
    "target/",
    "*.egg-info/",
    ".next/",
    ".nuxt/",
)


def exclude_lines(root: Path) -> str:
    """The store's `info/exclude` for the workspace at `root`."""
    parts = [
        "# Written by Workspace Agent's checkpoints on every run; edits are lost.",
        *DEFAULT_EXCLUDES,
        *(f"/{name}/" for name in _virtualenvs(root)),
    ]
    for source in _user_exclude_files(root):
        try:
            text = source.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        parts += [f"# from {source}", text.rstrip("\n")]
    return "\n".join(parts) + "\n"


def _virtualenvs(root: Path) -> list[str]:
    """Top-level folders that are Python virtual environments, whatever their name."""
    try:
        entries = list(os.scandir(root))
    except OSError:
        return []
    return sorted(
        e.name
        for e in entries
        if e.is_dir(follow_symlinks=False) and (Path(e.path) / "pyvenv.cfg").is_file()
    )


def _user_exclude_files(root: Path) -> list[Path]:
    found = []
    repo_dir = _git_dir_of(root)
    if repo_dir is not None:
        found.append(repo_dir / "info" / "exclude")
    global_file = _global_excludes_file()
    if global_file is not None:
        found.append(global_file)
    return [path for path in found if path.is_file()]


def _git_dir_of(root: Path) -> Path | None:
    """The user's repository folder for a workspace whose root holds `.git` (a folder, or
    a file naming it, as in worktrees and submodules). Only read, never written."""
    dot_git = root / ".git"
    if dot_git.is_dir():
        return dot_git
    if not dot_git.is_file():
        return None
    try:
        line = dot_git.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if not line.startswith("gitdir:"):
        return None
    git_dir = (root / line.removeprefix("gitdir:").strip()).resolve()
    common = git_dir / "commondir"
    if common.is_file():  # a worktree: info/exclude lives in the main repository
        try:
            return (git_dir / common.read_text(encoding="utf-8").strip()).resolve()
        except OSError:
            return git_dir
    return git_dir


@cache
def _global_excludes_file() -> Path | None:
    """The user's `core.excludesFile`; git's default (~/.config/git/ignore) is read by the
    store's git anyway, a configured one must be copied."""
    try:
        out = subprocess.run(
            [git_program(), "config", "--global", "--path", "--get", "core.excludesFile"],
            capture_output=True,
            text=True,
            env=bare_env(),
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError, GitError):
        return None
    return Path(out).expanduser() if out else None
