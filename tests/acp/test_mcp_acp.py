"""ACP: the client's `mcpServers` in `session/new` give the model those servers' tools
(here PyPI mcp-server-time over stdio), asked about with `session/request_permission`;
http is advertised in `mcpCapabilities`, sse is not (such entries are skipped, with a
notice); no server process outlives the agent."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import psutil
import pytest
from acp.schema import EnvVariable, McpServerStdio, SseMcpServer

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.acp import EditorClient, acp_agent, agent_env, prompt
from tests.support.lsp import tool_results, wait_for
from tests.support.mcp import TIME, require_servers

# Tests that start the real MCP servers share one pytest-xdist worker: some count those
# servers' processes machine-wide.
pytestmark = pytest.mark.xdist_group("mcp-servers")


def time_servers() -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter(["cmdline"]):
        if str(TIME) in " ".join(process.info["cmdline"] or []):
            found.append(process)
    return found


async def test_session_new_mcp_servers_give_the_model_their_tools(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path
):
    require_servers()
    client = EditorClient(False, "allow_once")
    model.load(
        script_of(
            reply(tool("mcp__time__get_current_time", {"timezone": "Asia/Tokyo"})),
            reply(text("It is late in Tokyo.")),
        )
    )
    env = agent_env(model, WORKSPACE_AGENT_CONFIG_DIR=str(tmp_path / "user"))
    async with acp_agent(client, workspace, env) as (conn, _process):
        info = await conn.initialize(protocol_version=1, client_capabilities=client.capabilities())
        capabilities = info.agent_capabilities
        assert capabilities is not None and capabilities.mcp_capabilities is not None
        assert capabilities.mcp_capabilities.http and not capabilities.mcp_capabilities.sse
        session = await conn.new_session(
            cwd=str(workspace),
            mcp_servers=[
                McpServerStdio(
                    name="time",
                    command=str(TIME),
                    args=[],
                    env=[EnvVariable(name="TZ", value="UTC")],
                ),
                SseMcpServer(type="sse", name="old", url="http://127.0.0.1:9/sse", headers=[]),
            ],
        )
        await wait_for(
            lambda: "MCP server time: ready (2 tools)" in client.text(),
            timeout=20,
            what="the server's state",
        )

        assert await prompt(conn, session.session_id, "what time is it in Tokyo?") == "end_turn"

        names = [t["name"] for t in model.requests[0].body["tools"]]
        assert "mcp__time__get_current_time" in names and "mcp__old__" not in " ".join(names)
        (question,) = client.permission_requests
        assert "get_current_time of the MCP server time" in str(question["toolCall"])
        (result,) = tool_results(model.requests[1].body)
        assert "Asia/Tokyo" in result["content"] and not result.get("is_error")
        assert "old: sse servers are not supported" in client.text()
        assert time_servers() != []
    await wait_for(lambda: time_servers() == [], timeout=10, what="the server process gone")


def test_the_typescript_sdk_client_gets_mcp_tools_from_session_new(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path
):
    """The official TypeScript ACP SDK (tests/acp_ts_client) passes an mcpServers stdio
    entry; it validates every message the agent sends, the MCP tool call's included."""
    require_servers()
    client_dir = Path(__file__).resolve().parents[1] / "acp_ts_client"
    node = shutil.which("node")
    assert node and (client_dir / "node_modules" / "@agentclientprotocol" / "sdk").is_dir()
    model.load(
        script_of(
            reply(tool("mcp__time__get_current_time", {"timezone": "Europe/Berlin"})),
            reply(text("Done.")),
        )
    )
    servers = [{"name": "time", "command": str(TIME), "args": [], "env": []}]
    env = agent_env(
        model,
        WORKSPACE_AGENT_CONFIG_DIR=str(tmp_path / "user"),
        ACP_TEST_MCP_SERVERS=json.dumps(servers),
        # The first request waits for the server (bounded); 10 s was too short for it to
        # start on a loaded machine, and the tool was then missing from request 1.
        WORKSPACE_AGENT_MCP_STARTUP_WAIT="60",
    )
    agent = [sys.executable, "-m", "workspace_agent", "acp"]
    done = subprocess.run(
        [node, str(client_dir / "client.mjs"), str(workspace), "time in Berlin?", "--", *agent],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=client_dir,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])

    assert result["stopReason"] == "end_turn"
    assert "mcp__time__get_current_time" in [t["name"] for t in model.requests[0].body["tools"]]
    calls = [u for u in result["updates"] if u and u.get("sessionUpdate") == "tool_call"]
    assert [c["kind"] for c in calls] == ["execute"]
    (permission,) = result["permissions"]
    assert permission["toolCall"]["toolCallId"] == calls[0]["toolCallId"]
    (answer,) = tool_results(model.requests[1].body)
    assert "Europe/Berlin" in answer["content"] and not answer.get("is_error")


def slow_time_server(seconds: float) -> McpServerStdio:
    """mcp-server-time that takes `seconds` to start (a server that installs itself, say)."""
    return McpServerStdio(
        name="time",
        command="/bin/sh",
        args=["-c", f'sleep {seconds} && exec "$0"', str(TIME)],
        env=[EnvVariable(name="TZ", value="UTC")],
    )


async def test_the_first_request_waits_for_a_server_still_starting_and_says_so(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path
):
    """Issue 32: a prompt sent as the session opens got an answer without the server's
    tools (first offered in request 3); now the first request waits for it, bounded."""
    require_servers()
    client = EditorClient(False, "allow_once")
    model.load(script_of(reply(text("It is late in Tokyo."))))
    env = agent_env(
        model,
        WORKSPACE_AGENT_CONFIG_DIR=str(tmp_path / "user"),
        WORKSPACE_AGENT_MCP_STARTUP_WAIT="60",  # bounded, and more than a loaded machine needs
    )
    async with acp_agent(client, workspace, env) as (conn, _process):
        await conn.initialize(protocol_version=1, client_capabilities=client.capabilities())
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[slow_time_server(1.5)])
        assert await prompt(conn, session.session_id, "what time is it in Tokyo?") == "end_turn"

    said = client.text()
    names = [t["name"] for t in model.requests[0].body["tools"]]
    assert "mcp__time__get_current_time" in names, said
    assert "> Waiting for MCP server time…" in said
    assert said.index("Waiting for MCP server time…") < said.index("It is late in Tokyo.")


async def test_a_server_slower_than_the_wait_is_reported_and_the_run_goes_on(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path
):
    require_servers()
    client = EditorClient(False, "allow_once")
    model.load(script_of(reply(text("I cannot tell the time."))))
    env = agent_env(
        model,
        WORKSPACE_AGENT_CONFIG_DIR=str(tmp_path / "user"),
        # counted from the server's start: the prompt comes well within it, even on a
        # loaded machine, and the slow server needs 30 s
        WORKSPACE_AGENT_MCP_STARTUP_WAIT="3",
    )
    async with acp_agent(client, workspace, env) as (conn, _process):
        await conn.initialize(protocol_version=1, client_capabilities=client.capabilities())
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[slow_time_server(30)])
        assert await prompt(conn, session.session_id, "what time is it?") == "end_turn"

    names = [t["name"] for t in model.requests[0].body.get("tools", [])]
    assert not any(name.startswith("mcp__time__") for name in names)
    said = client.text()
    assert "> Waiting for MCP server time…" in said
    assert "MCP servers: time starting" in said  # reported as it is, and the run went on
    assert said.endswith("I cannot tell the time.")
