"""Approvals in place through the real server: a client announcing the `approvals`
capability gets workspaceAgent/approval (never a toast), which stays open until answered
or until the run is cancelled; a denial's reason reaches the model; the transcript and
the progress say the agent is waiting. Clients without it keep window/showMessageRequest,
with Deny first for a destructive command."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from workspace_agent import protocol as p
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient
from tests.support.lsp import command, events_of, request, run, settings, tool_results, wait_for

IN_PLACE = pytest.mark.parametrize("configured_editor", [{"approvals": True}], indirect=True)
PLAN = {"items": [{"id": "1", "text": "Run the tests", "status": "in_progress"}]}


def approval_events(client: RecordingClient) -> list[dict[str, Any]]:
    return [
        {k: v for k, v in e.items() if k not in ("_at", "sessionId", "kind")}
        for e in events_of(client, p.EVENT_APPROVAL)
    ]


@IN_PLACE
async def test_an_approval_is_asked_in_place_and_reported_around_the_call(
    configured_editor: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    editor = configured_editor
    settings(editor, model, bash="ask")
    editor.double.approval_answers = [{"decision": "allow"}]
    model.load(
        script_of(
            reply(tool("todo", PLAN)),
            reply(tool("bash", {"command": "touch ran.marker"}, "toolu_run")),
            reply(text("done")),
        )
    )
    result = await run(editor, "Run it")

    assert (workspace / "ran.marker").exists()
    assert editor.double.questions == []  # no toast
    message = "Workspace Agent wants to run `touch ran.marker`."
    assert editor.double.approvals == [
        {
            "sessionId": result["sessionId"],
            "toolUseId": "toolu_run",
            "todoId": "1",
            "kind": "bash",
            "message": message,
            "command": "touch ran.marker",
            "options": ["allow", "allowSession", "deny"],
        }
    ]
    assert approval_events(editor) == [
        {"toolUseId": "toolu_run", "todoId": "1", "status": "waiting", "message": message},
        {"toolUseId": "toolu_run", "todoId": "1", "status": "allowed", "message": message},
    ]
    order = [k for k in editor.arrivals if k in ("toolCall", "approval", "toolResult")]
    assert order[-4:] == ["toolCall", "approval", "approval", "toolResult"]
    # the conversation keeps the question, for a view that renders it again later
    recorded = await request(editor, p.HISTORY_REQUEST, {"sessionId": result["sessionId"]})
    kept = [e for e in recorded["entries"] if e["kind"] == "approval"]
    assert [(e["status"], e["toolUseId"], e["run"]) for e in kept] == [
        ("waiting", "toolu_run", 1),
        ("allowed", "toolu_run", 1),
    ]


@IN_PLACE
async def test_a_denial_with_a_reason_reaches_the_model(
    configured_editor: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    editor = configured_editor
    settings(editor, model, bash="ask")
    reason = "not the whole suite, run tests/test_app.py only"
    editor.double.approval_answers = [{"decision": "deny", "reason": f"  {reason} "}]
    model.load(script_of(reply(tool("bash", {"command": "touch suite.marker"})), reply(text("ok"))))
    await run(editor, "Run the suite")

    assert not (workspace / "suite.marker").exists()
    (sent,) = tool_results(model.requests[1].body)
    assert sent["is_error"] is True
    assert sent["content"] == (
        f'the user declined to let the agent run `touch suite.marker`: "{reason}"'
    )
    assert [e["status"] for e in approval_events(editor)] == ["waiting", "denied"]
    assert approval_events(editor)[1]["reason"] == reason


@IN_PLACE
async def test_a_question_waits_until_the_run_is_cancelled(
    configured_editor: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    editor = configured_editor
    settings(editor, model, bash="ask")
    loop = asyncio.get_running_loop()
    editor.double.hold = loop.create_future()  # the user is away
    model.load(script_of(reply(tool("bash", {"command": "touch late.marker"})), reply(text("ok"))))
    running = asyncio.ensure_future(run(editor, "Run it"))
    await wait_for(lambda: editor.double.approvals, what="the approval request")
    await asyncio.sleep(1.5)  # a toast would be gone by now; the question is still open
    assert not running.done()
    (reports,) = editor.progress_reports.values()
    assert reports[-1].message == "Waiting for your approval"

    session_id = editor.double.approvals[0]["sessionId"]
    assert await command(editor, p.CANCEL_COMMAND, {"sessionId": session_id}) == {"cancelled": True}
    result = await running
    assert result["stopReason"] == "cancelled"
    await wait_for(lambda: editor.double.approvals_cancelled, what="$/cancelRequest")
    assert not (workspace / "late.marker").exists()
    assert [(e["status"], e.get("reason")) for e in approval_events(editor)] == [
        ("waiting", None),
        ("denied", "the run was cancelled before an answer"),
    ]


@IN_PLACE
async def test_an_answer_without_a_valid_decision_is_a_denial(
    configured_editor: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    editor = configured_editor
    settings(editor, model, bash="ask")
    editor.double.approval_answers = [
        {"reason": "no decision"},
        {"decision": "maybe"},
        {"decision": "allowSession"},  # not offered for a question the guard asks
    ]
    model.load(
        script_of(
            reply(tool("bash", {"command": "touch one.marker"})),
            reply(tool("bash", {"command": "touch two.marker"})),
            reply(tool("bash", {"command": "x=touch; $x three.marker"})),
            reply(text("ok")),
        )
    )
    await run(editor, "Try")

    results = [tool_results(r.body)[0]["content"] for r in model.requests[1:]]
    assert results[0] == "the user declined to let the agent run `touch one.marker`"
    assert results[1] == "the user declined to let the agent run `touch two.marker`"
    assert results[2].startswith("the user declined to let the agent run `x=touch; $x three")
    assert not [name for name in ("one", "two", "three") if (workspace / f"{name}.marker").exists()]
    third = editor.double.approvals[2]
    assert third["options"] == ["allow", "deny"]
    assert third["askedBecause"].startswith("the command word is a variable")


@IN_PLACE
async def test_destructive_commands_and_writes_bring_their_details(
    configured_editor: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    editor = configured_editor
    settings(editor, model, bash="ask", write="ask")
    (workspace / "NOTES.md").write_text("one\ntwo\n")
    editor.double.approval_answers = [{"decision": "deny"}, {"decision": "allow"}]
    model.load(
        script_of(
            reply(tool("bash", {"command": "git clean -fdx"})),
            reply(tool("edit_file", {"path": "NOTES.md", "old_text": "two", "new_text": "2"})),
            reply(text("ok")),
        )
    )
    await run(editor, "Tidy up")

    clean, edit = editor.double.approvals
    assert clean["destructive"] == "deletes untracked files (git clean -f)"
    assert edit["kind"] == "write" and edit["path"] == "NOTES.md"
    assert edit["diff"] == {"path": "NOTES.md", "before": "two", "after": "2", "line": 2}
    assert "review" not in edit
    assert (workspace / "NOTES.md").read_text() == "one\n2\n"


async def test_without_the_capability_a_destructive_command_lists_deny_first(
    editor: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    settings(editor, model, bash="ask")
    editor.double.answers = ["Deny", "Allow"]
    model.load(
        script_of(
            reply(tool("bash", {"command": "git reset --hard"})),
            reply(tool("bash", {"command": "echo safe"})),
            reply(text("ok")),
        )
    )
    await run(editor, "Reset")

    assert editor.double.approvals == []  # not announced: not sent
    assert editor.double.questions == [
        "Workspace Agent wants to run `git reset --hard`. Careful: this discards uncommitted "
        "changes (git reset --hard).",
        "Workspace Agent wants to run `echo safe`.",
    ]
    assert editor.double.offered == [
        ["Deny", "Allow", "Allow for this session"],
        ["Allow", "Allow for this session", "Deny"],
    ]
    assert [e["status"] for e in approval_events(editor)] == [
        "waiting",
        "denied",
        "waiting",
        "allowed",
    ]


@IN_PLACE
async def test_review_mode_shows_each_change_and_applies_only_accepted_ones(
    configured_editor: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    editor = configured_editor
    settings(editor, model, write="review")
    app = workspace / "app.py"
    app.write_text("A = 1\nB = 2\n")
    uri = editor.double.open(app, "A = 1\nB = 2\n")
    reason = "keep B, it is used by the tests"
    editor.double.approval_answers = [
        {"decision": "allow"},
        {"decision": "deny", "reason": reason},
        {"decision": "allowSession"},  # not offered under review: a denial
    ]
    model.load(
        script_of(
            reply(tool("edit_file", {"path": "app.py", "old_text": "A = 1", "new_text": "A = 10"})),
            reply(tool("edit_file", {"path": "app.py", "old_text": "B = 2\n", "new_text": ""})),
            reply(tool("write_file", {"path": "new.txt", "content": "hello\n"})),
            reply(text("ok")),
        )
    )
    await run(editor, "Tidy app.py")

    accepted, rejected, third = editor.double.approvals
    for asked in (accepted, rejected, third):
        assert asked["review"] is True and asked["options"] == ["allow", "deny"]
    assert accepted["diff"] == {"path": "app.py", "before": "A = 1", "after": "A = 10", "line": 1}
    assert accepted["message"] == (
        "Workspace Agent wants to edit app.py in the editor: change 1 line."
    )
    assert third["diff"] == {"path": "new.txt", "before": None, "after": "hello\n", "line": 1}
    # the accepted edit went through the editor, as every edit of an open file does
    assert editor.double.texts[uri] == "A = 10\nB = 2\n"
    assert [e.label for e in editor.double.edits] == ["Workspace Agent: app.py"]
    results = [tool_results(r.body)[0] for r in model.requests[1:]]
    assert results[1]["content"] == (
        "the user declined to let the agent edit app.py in the editor: replace 1 line "
        f'with nothing: "{reason}"'
    )
    assert results[2]["is_error"] is True and not (workspace / "new.txt").exists()


async def test_review_mode_without_the_capability_asks_as_for_ask(
    editor: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    settings(editor, model, write="review")
    editor.double.answers = ["Allow for this session", "Deny"]
    model.load(
        script_of(
            reply(tool("write_file", {"path": "a.txt", "content": "a\n"})),
            reply(tool("write_file", {"path": "b.txt", "content": "b\n"})),
            reply(text("ok")),
        )
    )
    await run(editor, "Write two files")

    assert editor.double.questions == [  # each one asked
        "Workspace Agent wants to create a.txt (1 lines).",
        "Workspace Agent wants to create b.txt (1 lines).",
    ]
    assert (workspace / "a.txt").read_text() == "a\n" and not (workspace / "b.txt").exists()
