"""The sandbox over ACP: a command's tool call says whether it ran sandboxed (`_meta`),
a plain sandboxed command needs no permission, leaving the sandbox is a permission
request without "allow always", and a session where the sandbox cannot start is told why.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.acp import EditorClient, acp_agent, agent_env, prompt
from tests.support.host_server import HostServer
from tests.support.server import no_bwrap_path


async def test_a_sandboxed_command_says_so_and_leaving_is_a_permission_request(
    model: ScriptedModelServer, workspace: Path, sandbox_works: None
):
    model.load(
        script_of(
            reply(tool("bash", {"command": "echo in > inside.txt"})),
            reply(tool("bash", {"command": "echo out > out.txt", "unsandboxed_reason": "a test"})),
            reply(text("done")),
        )
    )
    client = EditorClient(False, "allow_once")
    async with acp_agent(client, workspace, agent_env(model)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        assert await prompt(conn, session.session_id, "Go") == "end_turn"

    (request,) = client.permission_requests  # the plain command needed none
    assert request["toolCall"]["title"] == "`echo out > out.txt`"
    assert [o["optionId"] for o in request["options"]] == ["allow_once", "reject_once"]
    assert (workspace / "inside.txt").exists() and (workspace / "out.txt").exists()
    ends = [u for u in client.of_kind("tool_call_update") if u.get("status") == "completed"]
    assert [u["_meta"]["workspaceAgent"]["sandboxed"] for u in ends] == [True, False]
    assert "sandbox: unavailable" not in client.text()


async def test_a_host_a_sandboxed_command_reaches_for_is_a_permission_request_about_it(
    model: ScriptedModelServer, workspace: Path, sandbox_works: None
):
    host = HostServer("127.0.0.1")
    curl = f"curl -s -m 10 {host.url}"
    try:
        model.load(
            script_of(
                reply(tool("bash", {"command": curl})),
                reply(tool("bash", {"command": curl})),
                reply(text("done")),
            )
        )
        client = EditorClient(False, "allow_always")
        async with acp_agent(client, workspace, agent_env(model)) as (conn, _):
            session = await conn.new_session(cwd=str(workspace))
            assert await prompt(conn, session.session_id, "Go") == "end_turn"
    finally:
        host.close()

    (request,) = client.permission_requests  # "for this session": that host, not asked again
    assert [o["optionId"] for o in request["options"]] == [
        "allow_once",
        "allow_always",
        "reject_once",
    ]
    [content] = request["toolCall"]["content"]
    assert content["content"]["text"] == (
        f"Allow network access to `{host.name}` (from `{curl}`)? It stays in the sandbox."
    )
    assert host.hits == [2]
    ends = [u for u in client.of_kind("tool_call_update") if u.get("status") == "completed"]
    assert [u["_meta"]["workspaceAgent"]["sandboxed"] for u in ends] == [True, True]


async def test_a_session_where_the_sandbox_cannot_start_is_told_why(
    model: ScriptedModelServer, workspace: Path
):
    path = no_bwrap_path()
    if shutil.which("bwrap", path=path):
        pytest.skip("a bwrap is still on the PATH")
    model.load(script_of(reply(text("hello")), reply(text("again"))))
    client = EditorClient(False)
    async with acp_agent(client, workspace, agent_env(model, PATH=path)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        assert await prompt(conn, session.session_id, "Hi") == "end_turn"
        assert await prompt(conn, session.session_id, "Hi again") == "end_turn"

    told = client.text()
    assert told.count("sandbox: unavailable (bubblewrap (bwrap) is not installed)") == 1
    assert "apt-get install bubblewrap" in told and "commands are asked about" in told
