"""The sandbox through the real server: the `initialize` result names the mode, a
`workspaceAgent/sandbox` notification says whether it works (and if not why), each
command's `toolResult` event says `sandboxed`, and with default approvals a plain
sandboxed command runs without a question while leaving the sandbox is asked about.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from workspace_agent import protocol as p
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient, session_fixture
from tests.support.editor_double import EditorDouble
from tests.support.lsp import command, request, run, tool_results, wait_for
from tests.support.server import TEST_KEY, no_bwrap_path, server_env

editor = session_fixture("editor", editor={"saves": True}, settings={})
"""An editor session with the default approvals (no `approvals` setting)."""

editor_without_bwrap = session_fixture(
    "editor_without_bwrap",
    env=server_env(ANTHROPIC_API_KEY=TEST_KEY, PATH=no_bwrap_path()),
    editor={"saves": True},
    settings={},
)
"""Like `editor`, on a machine without bubblewrap."""


def command_results(client: RecordingClient) -> list[dict[str, Any]]:
    return [e for e in client.events if e["kind"] == p.EVENT_TOOL_RESULT and e["name"] == "bash"]


async def test_a_plain_command_runs_sandboxed_without_a_question_and_leaving_is_asked(
    editor: RecordingClient,
    workspace: Path,
    model: ScriptedModelServer,
    sandbox_works: None,
):
    section = editor.initialize_result.capabilities.experimental["workspaceAgent"]
    assert section["sandbox"] == {"mode": "auto"}
    await wait_for(lambda: editor.sandbox, 10, "the sandbox notification")
    (status,) = editor.sandbox
    assert status["mode"] == "auto" and status["active"] is True and status["reason"] is None
    assert status["message"].startswith("sandbox: on (bubblewrap")

    double: EditorDouble = editor.double
    double.answers = ["Deny"]
    model.load(
        script_of(
            reply(tool("bash", {"command": "echo in > inside.txt"})),
            reply(
                tool("bash", {"command": "echo out > outside.txt", "unsandboxed_reason": "a test"})
            ),
            reply(text("done")),
        )
    )
    await run(editor, "Go")

    assert (workspace / "inside.txt").read_text() == "in\n"
    assert not (workspace / "outside.txt").exists()
    (question,) = double.questions  # only the command that leaves the sandbox was asked about
    assert (
        "outside the sandbox, with your full access: every file you can write, your "
        "credentials and the whole network (the model says: a test)"
    ) in question
    assert double.offered == [["Allow", "Deny"]]  # never "Allow for this session"
    first, second = command_results(editor)
    assert first["sandboxed"] is True and first["ok"] is True
    assert "sandboxed" not in second  # declined: it never ran
    declined = tool_results(model.requests[2].body)[0]["content"]
    assert declined.startswith("the user declined to let the agent run `echo out > outside.txt`")


async def test_without_bwrap_the_client_is_told_why_and_commands_are_asked_about(
    editor_without_bwrap: RecordingClient,
    workspace: Path,
    model: ScriptedModelServer,
):
    if shutil.which("bwrap", path=no_bwrap_path()):
        pytest.skip("a bwrap is still on the PATH")
    await wait_for(lambda: editor_without_bwrap.sandbox, 10, "the sandbox notification")
    (status,) = editor_without_bwrap.sandbox
    assert status["active"] is False
    assert status["reason"] == "bubblewrap (bwrap) is not installed"
    assert "apt-get install bubblewrap" in status["fix"]
    assert "commands are asked about" in status["message"]

    double: EditorDouble = editor_without_bwrap.double
    double.answers = ["Allow"]
    model.load(script_of(reply(tool("bash", {"command": "echo in > ran.txt"})), reply(text("ok"))))
    await run(editor_without_bwrap, "Go")

    assert double.questions == ["Workspace Agent wants to run `echo in > ran.txt`."]
    assert (workspace / "ran.txt").exists()
    (result,) = command_results(editor_without_bwrap)
    assert result["sandboxed"] is False
    assert "[ran outside the sandbox: bubblewrap (bwrap) is not installed" in result["output"]


async def test_a_sandboxed_commands_changes_are_attributed_to_its_plan_item_and_revert(
    editor: RecordingClient, workspace: Path, model: ScriptedModelServer, sandbox_works: None
):
    (workspace / "app.py").write_text("GREETING = 'hi'\n")
    plan = {"items": [{"id": "1", "text": "Tidy up", "status": "in_progress"}]}
    model.load(
        script_of(
            reply(
                tool("todo", plan),
                tool("bash", {"command": "sed -i s/hi/hello/ app.py && echo g > gen.txt"}),
            ),
            reply(text("done")),
        )
    )
    result = await run(editor, "Tidy")
    (command_result,) = command_results(editor)
    assert command_result["sandboxed"] is True

    got = await request(editor, p.CHANGES_REQUEST, {"sessionId": result["sessionId"]})
    (item,) = [i for i in got["items"] if i["todoId"] == "1"]
    assert sorted(f["path"] for f in item["files"]) == ["app.py", "gen.txt"]
    assert item["commands"] == [
        {
            "command": "sed -i s/hi/hello/ app.py && echo g > gen.txt",
            "exitCode": 0,
            "toolUseId": command_result["toolUseId"],
        }
    ]
    reverted = await command(
        editor, p.REVERT_COMMAND, {"sessionId": result["sessionId"], "todoId": "1"}
    )
    assert reverted["restored"] == ["app.py"] and reverted["deleted"] == ["gen.txt"]
    assert (workspace / "app.py").read_text() == "GREETING = 'hi'\n"
    assert not (workspace / "gen.txt").exists()


async def test_a_blocked_write_is_told_to_the_card_with_the_setting_that_allows_it(
    editor: RecordingClient,
    workspace: Path,
    model: ScriptedModelServer,
    sandbox_works: None,
):
    model.load(
        script_of(
            reply(tool("bash", {"command": "mkdir -p ~/.cache/pip && echo x > ~/.cache/pip/t"})),
            reply(tool("bash", {"command": "echo x > ~/elsewhere.txt"})),
            reply(text("done")),
        )
    )
    await run(editor, "Go")

    cache, git = command_results(editor)
    assert cache["sandboxed"] is True and cache["exitCode"] == 1
    (wall,) = cache["blocked"]
    assert wall["kind"] == "write" and wall["setting"] == "sandbox.realCaches"
    # The first folder of the way the command could not make (`mkdir -p` stops there): the
    # pip cache, or ~/.cache itself on a machine that has none yet.
    assert wall["target"] in {"~/.cache", "~/.cache/pip", "~/.cache/pip/t"}, wall
    assert git["blocked"] == [{"kind": "write", "target": "~/elsewhere.txt"}]  # no setting
    told = tool_results(model.requests[1].body)[0]["content"]
    assert "[blocked by the sandbox: write to ~/.cache" in told  # the model's words as before
