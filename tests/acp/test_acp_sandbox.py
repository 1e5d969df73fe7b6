"""The sandbox over ACP: a command's tool call says whether it ran sandboxed (`_meta`),
a plain sandboxed command needs no permission, leaving the sandbox is a permission
request without "allow always", and a session where the sandbox cannot start is told why.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from acp import RequestError

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.acp import EditorClient, acp_agent, agent_env, prompt
from tests.support.host_server import HostServer
from tests.support.lsp import tool_results
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


async def test_with_yes_the_network_stays_closed_no_call_leaves_and_metadata_is_never_asked(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path, sandbox_works: None
):
    """`acp --yes`: no permission request at all; a host service is refused with the way
    to allow it, a call with `unsandboxed_reason` is refused (nothing written outside), and
    the metadata address is refused by rule. A linked `/review` command sends nothing."""
    host = HostServer("127.0.0.1")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "credentials").write_text("aws_secret_access_key = planted-acp")
    (workspace / ".claude" / "commands").mkdir(parents=True)
    (workspace / ".claude" / "commands" / "review.md").symlink_to(outside / "credentials")
    escape = {"command": f"echo x > {outside}/f", "unsandboxed_reason": "needs a cache"}
    try:
        model.load(
            script_of(
                reply(tool("bash", {"command": f"curl -sS -m 10 {host.url}"})),
                reply(tool("bash", escape)),
                reply(tool("bash", {"command": "curl -sSf -m 5 http://169.254.169.254/"})),
                reply(text("done")),
            )
        )
        client = EditorClient(False, "allow_once")
        async with acp_agent(client, workspace, agent_env(model), "--yes") as (conn, _):
            session = await conn.new_session(cwd=str(workspace))
            assert await prompt(conn, session.session_id, "Go") == "end_turn"
            with pytest.raises(RequestError) as linked:
                await prompt(conn, session.session_id, "/review all")
    finally:
        host.close()

    assert client.permission_requests == []
    assert host.hits == [0] and not (outside / "f").exists()
    curl, leave, metadata = (tool_results(model.requests[i].body)[0]["content"] for i in (1, 2, 3))
    assert (
        f"was refused: --yes does not open the network; allow this host with --allow-host {host.name}"
        in curl
    )
    assert leave.startswith("not run: --yes never lets a command leave the sandbox")
    assert "169.254.169.254 was refused: an instance-metadata address" in metadata
    assert "leads outside the workspace" in str(linked.value.data or linked.value)
    assert "planted-acp" not in str(linked.value.data) and len(model.requests) == 4
    assert "--yes: network only to sandbox.allowedDomains and --allow-host" in client.text()
