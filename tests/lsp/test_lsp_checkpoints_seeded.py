"""Checkpoints in a git work tree, whose store starts from the user's index (seed.py),
through the real server: the user rewrites history and prunes every object the agent's
steps started from, and Revert, Undo Only This Step and the diffs still give every file
back byte for byte; the user's `.git` keeps every file's mtime and size."""

from __future__ import annotations

from pathlib import Path

from workspace_agent import protocol as p
from workspace_agent.testing.scripted_model import ScriptedModelServer

from tests.support.client import RecordingClient, another_server
from tests.support.lsp import command, request, run
from tests.support.seeded_repository import (
    ORIGINAL,
    TASK,
    dot_git_facts,
    make_repository,
    rewrite_history_and_prune,
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
