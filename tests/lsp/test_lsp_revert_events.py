"""An `only` revert and a revert of the last run each leave a `revert` event, live and in
the session's history (a revert and its undo, live and after a reload:
test_lsp_checkpoints.py's issue tree; an `only` that met conflicts leaves none:
test_lsp_revert_only.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workspace_agent import protocol as p
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient
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
