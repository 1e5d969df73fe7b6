"""Undo only this step (workspaceAgent.revert with `only`) through the real server: one
plan item's changes come out and later steps' changes to other lines stay (a three-way
merge); where they overlap nothing at all is written; a dry run changes nothing; the model
is told; the changes payload marks what is reverted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workspace_agent import protocol as p
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient
from tests.support.lsp import command, request, run

ORIGINAL = "".join(f"line {n}\n" for n in range(1, 11))


def plan(active: int) -> dict[str, Any]:
    texts = ["Write the module", "Rename the second line", "Touch up the end"]
    return {
        "items": [
            {
                "id": str(n),
                "text": item_text,
                "status": "completed"
                if n < active
                else "in_progress"
                if n == active
                else "pending",
            }
            for n, item_text in enumerate(texts, start=1)
        ]
    }


def three_steps(third_old: str, third_new: str) -> dict[str, Any]:
    return script_of(
        reply(tool("todo", plan(1)), tool("write_file", {"path": "app.txt", "content": ORIGINAL})),
        reply(
            tool("todo", plan(2)),
            tool("edit_file", {"path": "app.txt", "old_text": "line 2\n", "new_text": "second\n"}),
            tool("bash", {"command": "echo notes > notes.txt"}, "toolu_notes"),
        ),
        reply(
            tool("todo", plan(3)),
            tool("edit_file", {"path": "app.txt", "old_text": third_old, "new_text": third_new}),
        ),
        reply(text("Done.")),
    )


async def changes(client: RecordingClient, session_id: str) -> dict[str, Any]:
    return await request(client, p.CHANGES_REQUEST, {"sessionId": session_id})


def item(payload: dict[str, Any], todo_id: str) -> dict[str, Any]:
    (found,) = [i for i in payload["items"] if i["todoId"] == todo_id]
    return found


async def test_only_one_step_comes_out_and_later_steps_stay(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    model.load(three_steps("line 9\n", "ninth\n"))
    session_id = (await run(client, "Write and tidy"))["sessionId"]
    app, notes = workspace / "app.txt", workspace / "notes.txt"
    after_all = ORIGINAL.replace("line 2\n", "second\n").replace("line 9\n", "ninth\n")
    assert app.read_text() == after_all
    key = item(await changes(client, session_id), "2")["key"]
    notified = len(client.changes)

    args = {"sessionId": session_id, "key": key, "only": True}
    dry = await command(client, p.REVERT_COMMAND, {**args, "dryRun": True})
    assert dry == {
        "restored": ["app.txt"],
        "deleted": ["notes.txt"],
        "skipped": [],
        "conflicts": [],
        "undoId": None,
        "dryRun": True,
    }
    assert app.read_text() == after_all and notes.exists()  # the dry run changed nothing
    assert len(client.changes) == notified

    done = await command(client, p.REVERT_COMMAND, args)
    assert done["restored"] == ["app.txt"] and done["deleted"] == ["notes.txt"]
    assert done["conflicts"] == [] and done["skipped"] == [] and done["undoId"]
    assert app.read_text() == ORIGINAL.replace("line 9\n", "ninth\n")  # step 3 kept
    assert not notes.exists()

    payload = client.changes[-1]
    assert payload == {"sessionId": session_id, **await changes(client, session_id)}
    second, third = item(payload, "2"), item(payload, "3")
    assert second["reverted"] is True
    files = {f["path"]: f["reverted"] for f in second["files"]}
    assert files == {"app.txt": False, "notes.txt": True}  # app.txt keeps step 3's change
    assert third["reverted"] is False
    assert second["commands"] == [
        {"command": "echo notes > notes.txt", "exitCode": 0, "toolUseId": "toolu_notes"}
    ]
    assert payload["reverts"][-1] == {
        "undoId": done["undoId"],
        "target": 'only plan item #2 "Rename the second line"',
        "undone": False,
    }

    model.load(script_of(reply(text("Noted."))))
    await run(client, "What changed?", session_id)
    told = "\n".join(
        b["text"] for b in model.requests[-1].body["messages"][-1]["content"] if b["type"] == "text"
    )
    assert (
        '[Workspace Agent] The user took back the changes of plan item #2 "Rename the second '
        'line" alone: later changes to the same files were kept (merged)'
    ) in told
    assert "Changed back: app.txt." in told
    assert "Deleted (that step had created them): notes.txt." in told

    undone = await command(
        client, p.UNDO_REVERT_COMMAND, {"sessionId": session_id, "undoId": done["undoId"]}
    )
    assert undone["restored"] == ["app.txt", "notes.txt"]
    assert app.read_text() == after_all and notes.read_text() == "notes\n"
    assert item(await changes(client, session_id), "2")["reverted"] is False


async def test_overlapping_changes_are_conflicts_and_nothing_is_written(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    model.load(three_steps("second\n", "2nd\n"))  # step 3 rewrites step 2's line
    session_id = (await run(client, "Write and tidy"))["sessionId"]
    app, notes = workspace / "app.txt", workspace / "notes.txt"
    after_all = app.read_text()
    notified = len(client.changes)

    for dry_run in (True, False):
        result = await command(
            client,
            p.REVERT_COMMAND,
            {"sessionId": session_id, "todoId": "2", "only": True, "dryRun": dry_run},
        )
        assert result["conflicts"] == [
            {"path": "app.txt", "reason": "changed after this step in the same lines"}
        ]
        assert result["restored"] == [] and result["deleted"] == [] and result["undoId"] is None
        assert app.read_text() == after_all
        assert notes.read_text() == "notes\n"  # not conflicting, yet not deleted either
    assert len(client.changes) == notified
    payload = await changes(client, session_id)
    assert payload["reverts"] == [] and item(payload, "2")["reverted"] is False
