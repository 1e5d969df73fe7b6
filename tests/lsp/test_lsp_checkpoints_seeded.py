"""Checkpoints in a git work tree, whose store starts from the user's index (seed.py),
through the real server: the user rewrites history and prunes every object the agent's
steps started from, and Revert, Undo Only This Step and the diffs still give every file
back byte for byte; the user's `.git` keeps every file's mtime and size."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from workspace_agent import protocol as p
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient, another_server
from tests.support.lsp import command, request, run

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


async def test_revert_after_the_user_prunes_the_objects_the_steps_started_from(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    make_repository(workspace)
    before = dot_git_facts(workspace)
    model.load(TASK)
    session_id = (await run(client, "Change things"))["sessionId"]
    assert dot_git_facts(workspace) == before  # not one mtime or size of .git changed
    seeded = workspace / ".workspace-agent" / "checkpoints" / "repo" / "user-objects"
    assert seeded.read_text() == f"{workspace / '.git' / 'objects'}\n"
    rewrite_history_and_prune(workspace)
    # A server started now reads the store anew (no git process holding the old packs).
    async with another_server(workspace) as fresh:
        params = {"sessionId": session_id, "todoId": "1", "path": "a.txt", "side": "before"}
        assert (await request(fresh, p.FILE_VERSION_REQUEST, params))["text"] == ORIGINAL["a.txt"]

        only = await command(
            fresh, p.REVERT_COMMAND, {"sessionId": session_id, "todoId": "1", "only": True}
        )
        assert sorted(only["restored"]) == ["a.txt", "b.bin"], only
        assert (workspace / "a.txt").read_bytes() == ORIGINAL["a.txt"].encode()
        assert (workspace / "b.bin").read_bytes() == ORIGINAL["b.bin"].encode()
        assert (workspace / "c.txt").read_text() == "GAMMA\n"  # the later step kept
        await command(
            fresh, p.UNDO_REVERT_COMMAND, {"sessionId": session_id, "undoId": only["undoId"]}
        )
        assert (workspace / "a.txt").read_text() == "ALPHA\nline two\n"

        reverted = await command(fresh, p.REVERT_COMMAND, {"sessionId": session_id, "todoId": "1"})
        assert reverted["skipped"] == []
        for name, content in ORIGINAL.items():
            assert (workspace / name).read_bytes() == content.encode(), name
        assert not (workspace / "new.txt").exists()
