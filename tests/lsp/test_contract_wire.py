"""What the real server sends fits contract/workspace-agent.json, field for field: every
notification of a run and every custom request's result, checked with the JSON Schema the
generator derives from the contract, closed (a field the contract does not name fails),
with the fields this server always sends required. mypy checks the dicts the server
builds against the same contract; this checks them on the wire."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from workspace_agent import protocol as p
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient
from tests.support.contract_schema import problems
from tests.support.images import b64, png
from tests.support.lsp import command, request, run


def plan(status: str) -> dict[str, Any]:
    return {"items": [{"id": "1", "text": "Write the notes", "status": status}]}


async def test_every_payload_of_a_run_and_its_requests_fits_the_contract(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    model.load(
        script_of(
            reply(text("Planning."), tool("todo", plan("in_progress"))),
            reply(tool("write_file", {"path": "notes.txt", "content": "one\n"})),
            reply(tool("bash", {"command": "printf 'two\\n' >> notes.txt && echo done"})),
            reply(tool("todo", plan("completed"))),
            reply(text("Done.")),
        )
    )
    result = await run(client, "Write the notes")
    session = result["sessionId"]
    tool_use_id = next(e["toolUseId"] for e in client.events if e["kind"] == p.EVENT_TOOL_RESULT)

    checked: list[tuple[str, Any, str]] = [("run", result, "RunResult")]
    for event in client.events:
        wire = {k: v for k, v in event.items() if k != "_at"}
        kind = event["kind"]  # each kind against its own schema: the clearest message
        checked.append((f"event {kind}", wire, f"{kind[0].upper()}{kind[1:]}Event"))
    checked += [("todos", t, "TodosPayload") for t in client.todos]
    checked += [("changes", c, "ChangesResult") for c in client.changes]
    checked += [("sandbox", s, "SandboxStatus") for s in client.sandbox]
    one_item = {"sessionId": session, "todoId": "1"}
    version = {**one_item, "path": "notes.txt", "side": "after"}
    for method, params, type_name in [
        (p.SESSIONS_REQUEST, {}, "SessionsResult"),
        (p.CHANGES_REQUEST, {"sessionId": session}, "ChangesResult"),
        (p.FILE_VERSION_REQUEST, version, "FileVersionResult"),
        (p.HISTORY_REQUEST, {"sessionId": session}, "HistoryResult"),
        (
            p.TOOL_OUTPUT_REQUEST,
            {"sessionId": session, "toolUseId": tool_use_id},
            "ToolOutputResult",
        ),
    ]:
        checked.append((method, await request(client, method, params), type_name))
    dry = await command(client, p.REVERT_COMMAND, {**one_item, "dryRun": True})
    reverted = await command(client, p.REVERT_COMMAND, one_item)
    undo = {"sessionId": session, "undoId": reverted["undoId"]}
    checked += [
        (
            "getTodos",
            await command(client, p.GET_TODOS_COMMAND, {"sessionId": session}),
            "TodosPayload",
        ),
        ("revert dryRun", dry, "RevertDryRunResult"),
        ("revert", reverted, "RevertResult"),
        (
            "undoRevert dryRun",
            await command(client, p.UNDO_REVERT_COMMAND, {**undo, "dryRun": True}),
            "UndoRevertResult",
        ),
        ("undoRevert", await command(client, p.UNDO_REVERT_COMMAND, undo), "UndoRevertResult"),
        ("cancel", await command(client, p.CANCEL_COMMAND, {"sessionId": session}), "CancelResult"),
        ("newSession", await command(client, p.NEW_SESSION_COMMAND), "NewSessionResult"),
    ]

    kinds = {value["kind"] for name, value, _ in checked if name.startswith("event ")}
    assert {"runStart", "text", "toolCall", "toolResult", "runEnd"} <= kinds
    assert reverted["undoId"] and dry["dryRun"] is True
    found = {
        f"{name}: {problem}": json.dumps(value)[:300]
        for name, value, type_name in checked
        for problem in problems(value, type_name)
    }
    assert not found, found


async def test_a_prompt_with_an_image_its_history_and_the_image_fit_the_contract(
    client: RecordingClient, model: ScriptedModelServer
):
    model.load(script_of(reply(text("A red box."))))
    image = {"data": b64(png(5, 4)), "mediaType": "image/png"}
    result = await request(client, p.RUN_REQUEST, {"prompt": "What is it?", "images": [image]})
    session = result["sessionId"]
    (start,) = [e for e in client.events if e["kind"] == p.EVENT_RUN_START]
    history = await request(client, p.HISTORY_REQUEST, {"sessionId": session})
    seq = history["entries"][0]["seq"]
    shown = await request(
        client, p.HISTORY_IMAGE_REQUEST, {"sessionId": session, "seq": seq, "index": 0}
    )
    checked = [
        ({k: v for k, v in start.items() if k != "_at"}, "RunStartEvent"),
        (history, "HistoryResult"),
        (shown, "HistoryImageResult"),
    ]
    found = [problem for value, name in checked for problem in problems(value, name)]
    assert not found, found
    assert shown == image


async def test_a_plan_its_revision_and_their_events_fit_the_contract(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    revised = {"items": [{"id": "2", "text": "Write the notes twice", "status": "pending"}]}
    model.load(
        script_of(
            reply(tool("todo", plan("pending"))),
            reply(text("The approach.")),
            reply(tool("todo", revised)),
            reply(text("Revised.")),
        )
    )
    ready = await run(client, "/plan Write the notes")
    items = [{"id": "1", "text": "Write the notes slowly", "edited": True}]
    params = {"sessionId": ready["sessionId"], "items": items, "action": "revise"}
    revision = await request(client, p.APPROVE_PLAN_REQUEST, {**params, "comments": []})

    assert ready["stopReason"] == revision["stopReason"] == "planReady"
    assert revision["planDiff"]["removed"] == [{"id": "1", "text": "Write the notes slowly"}]
    checked: list[tuple[str, Any, str]] = [
        ("run", ready, "RunResult"),
        ("approvePlan", revision, "RunResult"),
        ("approvePlan params", params, "ApprovePlanParams"),
    ]
    for event in client.events:
        wire = {k: v for k, v in event.items() if k != "_at"}
        kind = event["kind"]
        checked.append((f"event {kind}", wire, f"{kind[0].upper()}{kind[1:]}Event"))
    assert [e.get("mode") for e in client.events if e["kind"] == "runStart"] == ["plan"] * 2
    found = {
        f"{name}: {problem}": json.dumps(value)[:300]
        for name, value, type_name in checked
        for problem in problems(value, type_name)
    }
    assert not found, found


def test_the_check_names_a_field_the_contract_does_not_know():
    event = {"sessionId": "s", "kind": "text", "text": "hi"}
    assert problems(event, "AgentEvent") == []
    assert problems({**event, "mood": "glad"}, "AgentEvent")
    file = {"path": "a", "change": "added", "additions": 1, "deletions": 0}
    assert problems(file, "ChangedFile") == []
    assert problems({**file, "change": "renamed"}, "ChangedFile") == [
        "change: 'renamed' is not one of ['added', 'modified', 'deleted']"
    ]
