"""The user's Claude Code hooks through the real server, as VS Code sees them: a test HOME
whose `~/.claude/settings.json` holds real scripts for five events (tests/support/hooks.py),
one run that meets them all. The editor gets a `hook` event per run of a hook (the call's
under its card), the plan with the item's failed and then passed check, and the step's
diff with the formatter's change, which Revert takes back; an item's own check is added
with workspaceAgent/setItemCheck."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException

from workspace_agent import protocol as p
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support import hooks
from tests.support.client import RecordingClient, session_fixture
from tests.support.contract_schema import problems
from tests.support.lsp import changes, command, events_of, request, run
from tests.support.server import TEST_KEY, server_env

HOME = hooks.claude_home(Path(tempfile.mkdtemp(prefix="wa-hooks-home-")))
hooked = session_fixture(
    "hooked", env=server_env(ANTHROPIC_API_KEY=TEST_KEY, HOME=str(HOME), CLAUDE_CONFIG_DIR="")
)
"""A server whose user has Claude Code hooks in `~/.claude/settings.json`."""


async def test_the_users_claude_code_hooks_in_the_editor(
    hooked: RecordingClient, workspace: Path, model: ScriptedModelServer
):
    lsp_client = hooked
    hooks.prepare(workspace)
    model.load(hooks.the_run())
    result = await run(lsp_client, hooks.PROMPT)

    assert result["stopReason"] == "end_turn", result
    hooks.check_what_the_model_got(model.requests, workspace)
    rows = events_of(lsp_client, "hook")
    assert [(e["event"], e["hook"], e["outcome"]) for e in rows] == hooks.HOOK_ROWS
    wire = [{k: v for k, v in e.items() if k != "_at"} for e in rows]
    assert [p for e in wire for p in problems(e, "AgentEvent")] == []  # the closed contract
    assert [p for t in lsp_client.todos for p in problems(t, "TodosPayload")] == []
    calls = {e["name"]: e["toolUseId"] for e in events_of(lsp_client, "toolCall")}
    guard, fmt = rows[1], rows[2]
    assert guard["toolUseId"] == calls["bash"] and fmt["toolUseId"] == calls["write_file"]
    assert guard["message"] == f"blocked the call: {hooks.REFUSED}"
    assert fmt["origin"].startswith("~/.claude/settings.json:")  # HOME is the test home
    assert fmt["source"] == "user" and fmt["durationMs"] >= 0 and fmt["exitCode"] == 0
    refused = next(e for e in events_of(lsp_client, "toolResult") if e["name"] == "bash")
    assert not refused["ok"] and "guard.sh" in refused["output"]
    # the Plan view: the check failed (the item stayed in progress), then passed
    checks = [t["items"][0] for t in lsp_client.todos if t["items"] and "check" in t["items"][0]]
    failed, passed = checks[0], checks[-1]
    assert failed["status"] == "in_progress" and failed["check"]["passed"] is False
    assert failed["check"]["firstLine"] == hooks.CHECK_FAILED
    assert passed["status"] == "completed" and passed["check"]["passed"] is True
    # the step's diff holds the formatted text; Revert takes the formatter's change back too
    session = result["sessionId"]
    (item,) = [i for i in (await changes(lsp_client, session))["items"] if i["todoId"] == "1"]
    assert [f["path"] for f in item["files"]] == ["app.py"]
    version = {"sessionId": session, "todoId": "1", "path": "app.py", "side": "after"}
    assert (await request(lsp_client, p.FILE_VERSION_REQUEST, version))["text"] == "x = 1\n"
    await command(
        lsp_client, p.REVERT_COMMAND, {"sessionId": session, "todoId": "1", "force": True}
    )
    assert (workspace / "app.py").read_text() == "x=0\n"

    # Add Check…: the item's own check runs when it is completed again, and fails it
    params = {"sessionId": session, "todoId": "1", "command": "grep -q 'x = 2' app.py"}
    answered = await request(lsp_client, p.SET_ITEM_CHECK_REQUEST, params)
    assert answered["items"][0]["checkCommand"] == "grep -q 'x = 2' app.py"
    model.load(
        script_of(
            reply(tool("todo", {"items": [hooks.ITEM]})),
            reply(tool("todo", {"items": [{**hooks.ITEM, "status": "completed"}]})),
            reply(text("Done.")),
        )
    )
    again = await run(lsp_client, "Set it to 2", session)
    assert again["stopReason"] == "end_turn"
    (own,) = [e for e in events_of(lsp_client, "hook") if e["source"] == "item"]
    assert (own["event"], own["hook"]) == ("TaskCompleted", "check")
    assert own["outcome"] == "blocked" and own["origin"] == "plan item #1"
    assert lsp_client.todos[-1]["items"][0]["status"] == "in_progress"
    missing = {"sessionId": session, "todoId": "9", "command": "true"}
    with pytest.raises(JsonRpcException, match=r"has no item #9 \(its items: #1\)"):
        await request(lsp_client, p.SET_ITEM_CHECK_REQUEST, missing)
