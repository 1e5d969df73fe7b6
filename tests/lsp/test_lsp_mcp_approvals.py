"""Per-tool "allow for this session" on MCP calls, over the real language server and ACP
against PyPI mcp-server-time: allowing one tool for the session stops the questions for
that tool only; the server's other tool is still asked about (and a denial there never
reaches the server). The question offers both session answers, named so they cannot be
mistaken for each other."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from workspace_agent.guard.approvals import Question, Reply
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.acp import EditorClient, acp_agent, agent_env, prompt
from tests.support.client import RecordingClient
from tests.support.lsp import run, tool_results, wait_for
from tests.support.mcp import TIME, in_state, record_states, require_servers, write_user_config
from tests.support.server import USER_CONFIG

# Tests that start the real MCP servers share one pytest-xdist worker: some count those
# servers' processes machine-wide.
pytestmark = pytest.mark.xdist_group("mcp-servers")

IN_PLACE = pytest.mark.parametrize("configured_editor", [{"approvals": True}], indirect=True)
NOW = ("mcp__time__get_current_time", {"timezone": "UTC"})
CONVERT = (
    "mcp__time__convert_time",
    {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"},
)


@pytest.fixture
def user_config() -> Iterator[Path]:
    yield USER_CONFIG
    (USER_CONFIG / "mcp.json").unlink(missing_ok=True)


def three_calls() -> dict[str, Any]:
    """get_current_time twice, then convert_time, then an answer."""
    return script_of(
        reply(tool(*NOW, "toolu_1")),
        reply(tool(*NOW, "toolu_2")),
        reply(tool(*CONVERT, "toolu_3")),
        reply(text("done")),
    )


async def time_ready(client: RecordingClient, model: ScriptedModelServer, user_dir: Path) -> None:
    states = record_states(client)
    write_user_config(user_dir, {"time": {"command": str(TIME)}})
    model.load(script_of(reply(text("ok"))))
    await run(client, "warm up")
    await wait_for(lambda: in_state(states, "time", "ready"), timeout=20, what="time ready")


def outcomes(model: ScriptedModelServer) -> list[tuple[bool, str]]:
    """(is_error, content) of the tool result each model request after the first carried."""
    found = []
    for recorded in model.requests[1:]:
        for result in tool_results(recorded.body):
            content = result["content"]
            if isinstance(content, list):
                content = " ".join(block.get("text", "") for block in content)
            found.append((bool(result.get("is_error")), content))
    return found


async def test_allowing_one_tool_for_the_session_asks_again_for_another_tool(
    user_config: Path, editor: RecordingClient, model: ScriptedModelServer
):
    require_servers()
    double = editor.double
    await time_ready(editor, model, user_config)
    double.answers = ["Allow this tool for this session", "Deny"]
    model.load(three_calls())
    result = await run(editor, "what time is it, and noon UTC in Tokyo?")

    assert result["stopReason"] == "end_turn"
    assert len(double.questions) == 2  # get_current_time once, then convert_time
    assert "call the tool get_current_time of the MCP server time" in double.questions[0]
    assert "call the tool convert_time of the MCP server time" in double.questions[1]
    assert double.offered[0] == [
        "Allow",
        "Allow this tool for this session",
        "Allow this server for this session",
        "Deny",
    ]
    (first, second, third) = outcomes(model)
    assert not first[0] and not second[0] and "UTC" in second[1]
    assert third[0] and "the user declined to let the agent call the tool convert_time" in third[1]


@IN_PLACE
async def test_the_approval_card_offers_the_tool_alone_for_the_session(
    user_config: Path, configured_editor: RecordingClient, model: ScriptedModelServer
):
    require_servers()
    editor = configured_editor
    double = editor.double
    await time_ready(editor, model, user_config)
    double.approval_answers = [{"decision": "allowToolSession"}, {"decision": "allowSession"}]
    model.load(
        script_of(
            reply(tool(*NOW, "toolu_1")),
            reply(tool(*CONVERT, "toolu_2")),
            reply(tool(*NOW, "toolu_3")),
            reply(tool(*CONVERT, "toolu_4")),
            reply(text("done")),
        )
    )
    await run(editor, "times")

    assert [a["toolUseId"] for a in double.approvals] == ["toolu_1", "toolu_2"]
    assert double.approvals[0]["kind"] == "mcp:time"
    assert double.approvals[0]["options"] == ["allow", "allowToolSession", "allowSession", "deny"]
    assert [is_error for is_error, _ in outcomes(model)] == [False, False, False, False]


async def test_acp_offers_the_tool_alone_for_the_session(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path
):
    from acp.schema import McpServerStdio

    require_servers()
    client = EditorClient(False, "allow_tool_session", "reject_once")
    model.load(three_calls())
    env = agent_env(model, WORKSPACE_AGENT_CONFIG_DIR=str(tmp_path / "user"))
    async with acp_agent(client, workspace, env) as (conn, _process):
        await conn.initialize(protocol_version=1, client_capabilities=client.capabilities())
        session = await conn.new_session(
            cwd=str(workspace),
            mcp_servers=[McpServerStdio(name="time", command=str(TIME), args=[], env=[])],
        )
        await wait_for(
            lambda: "MCP server time: ready" in client.text(), timeout=20, what="time ready"
        )
        assert await prompt(conn, session.session_id, "times") == "end_turn"

    asked = client.permission_requests
    assert len(asked) == 2
    assert [(o["optionId"], o["name"], o["kind"]) for o in asked[0]["options"]] == [
        ("allow_once", "Allow", "allow_once"),
        ("allow_tool_session", "Allow this tool for this session", "allow_always"),
        ("allow_always", "Allow this server for this session", "allow_always"),
        ("reject_once", "Deny", "reject_once"),
    ]
    assert "convert_time" in str(asked[1]["toolCall"])
    assert [is_error for is_error, _ in outcomes(model)] == [False, False, True]


async def test_the_terminal_offers_the_tool_alone_for_the_session(monkeypatch):
    from workspace_agent.cli.asker import TerminalAsker

    monkeypatch.setattr("sys.stdin", io.StringIO("t\n"))
    out = io.StringIO()
    question = Question(
        "mcp:time",
        "call the tool get_current_time of the MCP server time with {}",
        "Workspace Agent wants to call the tool get_current_time of the MCP server time.",
        options=("allow", "allow_tool_session", "allow_session", "deny"),
    )
    assert await TerminalAsker(out).ask_in_detail(question) == Reply("allow_tool_session")
    assert out.getvalue().endswith(
        "  Allow? [y]es / [t]his tool in this session / [a]ll of this server's tools in this "
        "session / [N]o: "
    )
