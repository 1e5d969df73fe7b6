"""Slash commands through the real language server: workspaceAgent/commands lists the
built-ins and the workspace's saved prompts (and names a broken file); a run of
`/review FILE` sends the saved text with the argument in; an unknown command fails the
request before any model call; /undo reverts the last run's files, /clear starts a new
session and /compact shortens the conversation, none of them calling the model."""

from __future__ import annotations

from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException

from workspace_agent import protocol as p
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient, session_fixture
from tests.support.lsp import request, run

editor = session_fixture("editor", editor={"saves": True}, settings={})


def write(path: Path, content: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")
    return path


async def test_commands_are_listed_and_a_saved_prompt_runs_with_its_argument(
    editor: RecordingClient, workspace: Path, model: ScriptedModelServer
):
    review = write(
        workspace / ".workspace-agent/commands/review.md",
        "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $1 for bugs.\n",
    )
    broken = write(workspace / ".claude/commands/broken.md", "---\ndescription: never closed\n")
    model.load(script_of(reply(text("Looks fine."))))

    listing = await request(editor, p.COMMANDS_REQUEST, None)
    result = await run(editor, "/review app.py")

    assert [c["name"] for c in listing["commands"]] == [
        "plan",
        "compact",
        "clear",
        "undo",
        "cost",
        "review",
    ]
    assert listing["commands"][-1] == {
        "name": "review",
        "description": "Review a file",
        "argumentHint": "FILE",
        "source": "workspace",
        "path": str(review),
    }
    assert listing["problems"] == [
        f"{broken}: bad front matter: the `---` on line 1 is never closed; end the front "
        "matter with a line `---`"
    ]
    assert result["stopReason"] == "end_turn"
    (sent,) = model.requests
    assert sent.body["messages"][-1]["content"][-1]["text"] == "Review app.py for bugs."


async def test_an_unknown_command_and_one_that_leads_outside_fail_before_any_model_call(
    editor: RecordingClient, workspace: Path, model: ScriptedModelServer, tmp_path: Path
):
    """A cloned repository's `.claude/commands/review.md` that links to a secret: `/review`
    sends nothing of it and says why; the list does not offer it."""
    secret = write(tmp_path / "outside" / "credentials", "aws_secret_access_key = planted-9")
    link = workspace / ".claude/commands/review.md"
    link.parent.mkdir(parents=True)
    link.symlink_to(secret)
    model.load(script_of(reply(text("never"))))
    with pytest.raises(JsonRpcException) as refused:
        await run(editor, "/undo-it")
    assert "there is no command /undo-it. Did you mean /undo?" in str(refused.value)
    with pytest.raises(JsonRpcException) as outside:
        await run(editor, "/review now")
    listing = await request(editor, p.COMMANDS_REQUEST, None)

    said = f"{link}: not read: it leads outside the workspace (a symbolic link, or in a folder"
    assert said in str(outside.value) and "planted-9" not in str(outside.value)
    assert "review" not in [c["name"] for c in listing["commands"]]
    assert [problem.startswith(said) for problem in listing["problems"]] == [True]
    assert model.requests == []


async def test_undo_clear_and_compact_work_without_the_model(
    editor: RecordingClient, workspace: Path, model: ScriptedModelServer
):
    model.load(
        script_of(
            reply(tool("write_file", {"path": "new.txt", "content": "made\n"})),
            reply(text("Wrote it.")),
        )
    )
    first = await run(editor, "Write new.txt")
    assert (workspace / "new.txt").exists()
    calls = len(model.requests)

    compacted = await run(editor, "/compact", first["sessionId"])
    undone = await run(editor, "/undo", first["sessionId"])
    cleared = await run(editor, "/clear", first["sessionId"])

    assert not (workspace / "new.txt").exists()
    assert undone["text"] == "Reverted the last run: deleted new.txt."
    # One short exchange: nothing old enough to shorten (tests/unit/agent/test_built_ins.py
    # compacts a long one).
    assert (
        compacted["text"] == "Nothing to compact: the conversation is already as short as it gets."
    )
    assert cleared["sessionId"] != first["sessionId"]
    assert cleared["text"] == (
        f"Started a new session {cleared['sessionId']}; the previous one ({first['sessionId']}) "
        "stays in the history."
    )
    assert len(model.requests) == calls
