"""The command guard end to end through the real server: a command it cannot read with
confidence is asked about even where commands are allowed, with the reason in the
question; declining means nothing ran; `deny` still denies without asking.

The commands here are harmless when run (they create marker files), so a server that
fails to ask shows up as a marker that should not exist, not as damage.
"""

from __future__ import annotations

from pathlib import Path

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient
from tests.support.lsp import run, settings, tool_results

VARIABLE_WORD = "the command word is a variable (`$x`), so what runs cannot be checked"
PIPED_SHELL = (
    "another program's output is piped into sh as commands, so what runs cannot be checked"
)


async def test_under_allow_a_command_the_guard_cannot_read_is_asked_about(
    editor: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    settings(editor, model, bash="allow")
    editor.double.answers = ["Deny", "Allow"]
    declined, allowed = "x=touch; $x declined.marker", "echo 'touch piped.marker' | sh"
    model.load(
        script_of(
            reply(tool("bash", {"command": "ls"})),
            reply(tool("bash", {"command": declined})),
            reply(tool("bash", {"command": allowed})),
            reply(text("ok")),
        )
    )
    await run(editor, "Run some commands")

    results = [tool_results(r.body)[0] for r in model.requests[1:]]
    assert results[0]["content"] == "(no output)\n[exit status 0]"  # plain ls: not asked
    assert results[1]["is_error"] is True
    assert results[1]["content"] == (
        f"the user declined to let the agent run `{declined}` (asked because {VARIABLE_WORD})"
    )
    assert not (workspace / "declined.marker").exists()
    assert results[2]["content"] == "(no output)\n[exit status 0]"
    assert (workspace / "piped.marker").exists()
    assert editor.double.questions == [
        f"Workspace Agent wants to run `{declined}`. Asked because {VARIABLE_WORD}.",
        f"Workspace Agent wants to run `{allowed}`. Asked because {PIPED_SHELL}.",
    ]
    # "for this session" would not cover the next such command, so it is not offered.
    assert editor.double.offered == [["Allow", "Deny"], ["Allow", "Deny"]]


async def test_allow_for_this_session_does_not_cover_what_the_guard_asks_about(
    editor: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    settings(editor, model, bash="ask")
    editor.double.answers = ["Allow for this session", "Deny"]
    flagged = "x=touch; $x session.marker"
    model.load(
        script_of(
            reply(tool("bash", {"command": "echo one"})),
            reply(tool("bash", {"command": "echo two"})),
            reply(tool("bash", {"command": flagged})),
            reply(text("ok")),
        )
    )
    await run(editor, "Run some commands")

    results = [tool_results(r.body)[0]["content"] for r in model.requests[1:]]
    assert results[:2] == ["one\n[exit status 0]", "two\n[exit status 0]"]
    assert results[2] == (
        f"the user declined to let the agent run `{flagged}` (asked because {VARIABLE_WORD})"
    )
    assert not (workspace / "session.marker").exists()
    assert editor.double.questions == [
        "Workspace Agent wants to run `echo one`.",
        f"Workspace Agent wants to run `{flagged}`. Asked because {VARIABLE_WORD}.",
    ]
    assert editor.double.offered == [["Allow", "Allow for this session", "Deny"], ["Allow", "Deny"]]


async def test_deny_denies_what_the_guard_would_ask_about_without_asking(
    editor: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    settings(editor, model, bash="deny")
    model.load(
        script_of(reply(tool("bash", {"command": "x=touch; $x denied.marker"})), reply(text("ok")))
    )
    await run(editor, "Try it")

    assert tool_results(model.requests[1].body)[0]["content"] == (
        "not allowed: the workspaceAgent.approvals setting denies running commands (bash: deny)"
    )
    assert editor.double.questions == []
    assert not (workspace / "denied.marker").exists()
