"""Slash commands and the settings file over ACP: `available_commands_update` lists the
built-ins and the saved prompts (with their argument hints) after session/new, and again
when a command file is added (before any prompt); a prompt naming one sends its text with the arguments in;
an unknown one is refused before any model call. The user's settings.json with
`approvals.bash: "ask"` makes every command a permission request, and a workspace file
cannot loosen it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp import RequestError

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.acp import EditorClient, acp_agent, agent_env, prompt
from tests.support.lsp import tool_results, wait_for


def write(path: Path, content: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")
    return path


def listed(client: EditorClient) -> list[dict[str, Any]]:
    return client.of_kind("available_commands_update")


def user_text(model: ScriptedModelServer, index: int = 0) -> str:
    content = model.requests[index].body["messages"][-1]["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


async def test_the_command_list_is_sent_and_refreshed_when_a_file_is_added(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path
):
    user_dir = tmp_path / "user-config"
    write(user_dir / "commands/tidy.md", "---\ndescription: Tidy up\n---\nTidy $ARGUMENTS")
    model.load(script_of(reply(text("Tidied.")), reply(text("Reviewed."))))
    client = EditorClient()
    env = agent_env(model, WORKSPACE_AGENT_CONFIG_DIR=str(user_dir))
    async with acp_agent(client, workspace, env) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        await wait_for(lambda: listed(client), what="available_commands_update")
        (first,) = listed(client)
        assert await prompt(conn, session.session_id, "/tidy the imports") == "end_turn"
        assert len(listed(client)) == 1  # nothing changed: not sent again

        write(
            workspace / ".claude/commands/review.md",
            "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $1 closely.",
        )
        # No prompt needed: the folders are watched.
        await wait_for(lambda: len(listed(client)) == 2, what="the refreshed command list")
        assert await prompt(conn, session.session_id, "/review src/app.py") == "end_turn"

    names = [c["name"] for c in first["availableCommands"]]
    assert names == ["plan", "compact", "undo", "cost", "tidy"]  # no /clear over ACP
    assert first["availableCommands"][0]["input"] == {"hint": "TASK"}
    assert user_text(model, 0) == "Tidy the imports"
    (second,) = listed(client)[1:]
    review = second["availableCommands"][-2:]
    assert review[0] == {
        "name": "review",
        "description": "Review a file",
        "input": {"hint": "FILE"},
    }
    assert user_text(model, 1) == "Review src/app.py closely."


async def test_an_unknown_command_and_clear_are_refused_before_any_model_call(
    model: ScriptedModelServer, workspace: Path
):
    model.load(script_of(reply(text("never"))))
    client = EditorClient()
    async with acp_agent(client, workspace, agent_env(model)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        with pytest.raises(RequestError) as unknown:
            await prompt(conn, session.session_id, "/cots")
        with pytest.raises(RequestError) as clear:
            await prompt(conn, session.session_id, "/clear")
        assert await prompt(conn, session.session_id, "/cost") == "end_turn"

    assert str(unknown.value).startswith(
        "there is no command /cots. Did you mean /cost or /compact? Commands:"
    )
    assert "start a new session with your client's new thread" in str(clear.value)
    assert model.requests == []
    assert "0 input tokens" in client.text()


async def test_the_user_settings_file_asks_for_every_command_and_a_workspace_cannot_loosen_it(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path, sandbox_works: None
):
    user_dir = tmp_path / "user-config"
    write(user_dir / "settings.json", '{"approvals": {"bash": "ask"}}')
    write(workspace / ".workspace-agent/settings.json", '{"approvals": {"bash": "allow"}}')
    model.load(script_of(reply(tool("bash", {"command": "touch plain.marker"})), reply(text("ok"))))
    client = EditorClient(False, "reject_once")
    env = agent_env(model, WORKSPACE_AGENT_CONFIG_DIR=str(user_dir))
    async with acp_agent(client, workspace, env) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        assert await prompt(conn, session.session_id, "Make a marker") == "end_turn"

    (asked,) = client.permission_requests  # sandboxed, it would have run without a question
    assert "touch plain.marker" in str(asked["toolCall"])
    assert not (workspace / "plain.marker").exists()
    (result,) = tool_results(model.requests[1].body)
    assert result["content"] == "the user declined to let the agent run `touch plain.marker`"
    assert "approvals: bash: allow is looser than ask; ignored" in client.text()
