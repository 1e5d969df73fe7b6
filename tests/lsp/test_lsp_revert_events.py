"""A revert, an `only` revert and an undo each leave a `revert` event: live (the
Conversation view's row with Undo) and in the session's history, which the view is
rebuilt from after a window reload. A dry run, and an `only` that met conflicts, leave
none (nothing was changed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workspace_agent import protocol as p
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient, another_server
from tests.support.lsp import command, events_of, request, run


def plan(active: int) -> dict[str, Any]:
    items = [
        {
            "id": str(n),
            "text": words,
            "status": "completed" if n < active else "in_progress" if n == active else "pending",
        }
        for n, words in enumerate(["Write a", "Write b"], start=1)
    ]
    return {"items": items}


TWO_STEPS = script_of(
    reply(tool("todo", plan(1)), tool("write_file", {"path": "a.txt", "content": "a\n"})),
    reply(tool("todo", plan(2)), tool("write_file", {"path": "b.txt", "content": "b\n"})),
    reply(text("Done.")),
)


def reverts(client: RecordingClient) -> list[dict[str, Any]]:
    return [
        {k: v for k, v in e.items() if k not in ("sessionId", "_at")}
        for e in events_of(client, "revert")
    ]


async def history_reverts(client: RecordingClient, session_id: str) -> list[dict[str, Any]]:
    page = await request(client, p.HISTORY_REQUEST, {"sessionId": session_id, "limit": 1000})
    return [
        {k: v for k, v in e.items() if k not in ("seq", "run")}
        for e in page["entries"]
        if e["kind"] == "revert"
    ]


async def test_a_revert_and_its_undo_are_told_live_and_kept_in_the_history(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    model.load(TWO_STEPS)
    session_id = (await run(client, "Write a and b"))["sessionId"]
    (workspace / "b.txt").write_text("mine\n")  # the user changed it since: skipped

    dry = await command(
        client, p.REVERT_COMMAND, {"sessionId": session_id, "todoId": "1", "dryRun": True}
    )
    assert dry["dryRun"] is True and reverts(client) == []  # a dry run changes nothing

    result = await command(client, p.REVERT_COMMAND, {"sessionId": session_id, "todoId": "1"})
    undo_id = result["undoId"]
    reverted = {
        "kind": "revert",
        "action": "revert",
        "target": 'before plan item #1 "Write a"',
        "todoId": "1",
        "restored": [],
        "deleted": ["a.txt"],
        "skipped": [{"path": "b.txt", "reason": result["skipped"][0]["reason"]}],
        "undoId": undo_id,
    }
    assert reverts(client) == [reverted]
    assert not (workspace / "a.txt").exists()

    await command(client, p.UNDO_REVERT_COMMAND, {"sessionId": session_id, "undoId": undo_id})
    undone = {
        "kind": "revert",
        "action": "undo",
        "target": 'before plan item #1 "Write a"',
        "todoId": None,
        "restored": ["a.txt"],
        "deleted": [],
        "skipped": [],
        "undoId": undo_id,
    }
    assert reverts(client) == [reverted, undone]
    assert (workspace / "a.txt").read_text() == "a\n"

    async with another_server(workspace) as fresh:  # the window after a reload
        assert await history_reverts(fresh, session_id) == [reverted, undone]


async def test_undo_only_this_step_and_revert_last_run_are_told_too(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    model.load(TWO_STEPS)
    session_id = (await run(client, "Write a and b"))["sessionId"]

    only = await command(
        client, p.REVERT_COMMAND, {"sessionId": session_id, "todoId": "2", "only": True}
    )
    last = await command(client, p.REVERT_COMMAND, {"sessionId": session_id, "lastRun": True})

    assert [
        (e["action"], e["target"], e["todoId"], e["deleted"], e["undoId"]) for e in reverts(client)
    ] == [
        ("only", 'only plan item #2 "Write b"', "2", ["b.txt"], only["undoId"]),
        ("revert", "the start of the last run", None, ["a.txt"], last["undoId"]),
    ]
    assert (await history_reverts(client, session_id)) == reverts(client)
