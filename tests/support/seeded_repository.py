"""A user's git repository for the seeded-checkpoint tests (LSP and CLI): made, its history
rewritten and pruned, and its .git's facts (every file's mtime and size) to compare."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from workspace_agent.testing.scripted_model import reply, script_of, text, tool

ORIGINAL = {
    "a.txt": "alpha\nline two\n",
    "b.bin": "bee\0\x01binary\n",
    "c.txt": "gamma\n",
    **{f"src/m{i}.py": f"value = {i}\n" for i in range(40)},
}


def user_git(workspace: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="U", GIT_AUTHOR_EMAIL="u@x", GIT_COMMITTER_NAME="U")
    env.update(GIT_COMMITTER_EMAIL="u@x")
    return subprocess.run(["git", *args], cwd=workspace, env=env, check=check, capture_output=True)


def make_repository(workspace: Path) -> None:
    user_git(workspace, "init", "-q", "-b", "main")
    for name, content in ORIGINAL.items():
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_bytes(content.encode())
    user_git(workspace, "add", "-A")
    user_git(workspace, "commit", "-qm", "first")
    user_git(workspace, "gc", "-q")


def rewrite_history_and_prune(workspace: Path) -> None:
    """The user commits the workspace as it is now on a new root, drops the old branch
    and prunes: the blobs of the original files are gone from `.git`."""
    user_git(workspace, "checkout", "-q", "--orphan", "rewritten")
    user_git(workspace, "add", "-A")
    user_git(workspace, "commit", "-qm", "rewritten")
    user_git(workspace, "branch", "-D", "main")
    user_git(workspace, "reflog", "expire", "--expire=now", "--all")
    user_git(workspace, "gc", "-q", "--prune=now")
    blob = user_git(workspace, "hash-object", "a.txt", check=False)
    assert blob.returncode == 0
    original = subprocess.run(
        ["git", "hash-object", "--stdin"], input=ORIGINAL["a.txt"].encode(), capture_output=True
    ).stdout.strip()
    gone = user_git(workspace, "cat-file", "-e", original.decode(), check=False)
    assert gone.returncode != 0  # the user's repository no longer has the original


def dot_git_facts(workspace: Path) -> dict[str, tuple[int, int]]:
    facts = {}
    for folder, _dirs, files in os.walk(workspace / ".git"):
        for name in files:
            st = os.lstat(os.path.join(folder, name))
            facts[os.path.join(folder, name)] = (st.st_mtime_ns, st.st_size)
    return facts


def plan(active: int | None) -> dict[str, Any]:
    items = [
        {"id": str(n), "text": f"Step {n}", "status": "in_progress" if n == active else "pending"}
        for n in (1, 2)
    ]
    return {"items": items}


TASK = script_of(
    reply(
        tool("todo", plan(1)),
        tool("bash", {"command": "sed -i s/alpha/ALPHA/ a.txt && rm b.bin && echo n > new.txt"}),
    ),
    reply(
        tool("todo", plan(2)),
        tool("edit_file", {"path": "c.txt", "old_text": "gamma", "new_text": "GAMMA"}),
    ),
    reply(text("Done.")),
)
