"""MCP tools from real servers someone else wrote (npm server-everything and
server-filesystem, PyPI mcp-server-time), through the real SDK, in the agent core driven
against the scripted Messages API over HTTP: names, approval, output, timeouts, cancel,
a crash, and no process left behind."""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from workspace_agent.mcp.config import ServerConfig
from workspace_agent.mcp.runtime import McpRuntime
from workspace_agent.mcp.servers import McpServers
from workspace_agent.protocol import RunRequest
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.acp import real
from tests.support.lsp import tool_results, wait_for
from tests.support.mcp import (
    EVERYTHING,
    FILESYSTEM,
    TIME,
    Recorder,
    agent_with,
    require_servers,
    write_user_config,
)

# Tests that start the real MCP servers share one pytest-xdist worker: some count those
# servers' processes machine-wide.
pytestmark = pytest.mark.xdist_group("mcp-servers")

NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def server_processes(started_after: set[int] | None = None) -> list[psutil.Process]:
    """This test process's descendants, leaving out those in `started_after` (processes
    earlier tests in this process left running, such as a checkpoint store's long-lived
    `git cat-file --batch`, are not the MCP runtime's)."""
    return [
        process
        for process in psutil.Process().children(recursive=True)
        if process.pid not in (started_after or set())
    ]


@pytest.fixture
async def runtime(
    tmp_path: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[McpRuntime]:
    require_servers()
    earlier = {process.pid for process in server_processes()}
    # What a server must never see, though our own environment has it.
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-never-pass-this-on")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_never_pass_this_on")
    user_dir = tmp_path / "user"
    write_user_config(
        user_dir,
        {
            "everything": {"command": str(EVERYTHING), "args": ["stdio"], "timeoutSeconds": 3},
            "fs": {"command": str(FILESYSTEM), "args": [str(workspace)]},
            "time": {"command": str(TIME)},
        },
    )
    mcp = McpRuntime(user_dir)
    servers = mcp.refresh(workspace)
    await asyncio.gather(*(c.settled(15) for c in servers.connections.values()))
    assert {c.name: c.state for c in servers.connections.values()} == {
        "everything": "ready",
        "fs": "ready",
        "time": "ready",
    }
    yield mcp
    await mcp.shutdown()
    assert server_processes(earlier) == []  # every server process is gone


def result_text(body: dict[str, Any]) -> tuple[str, bool]:
    (result,) = tool_results(body)
    content = result["content"]
    if isinstance(content, list):
        content = "\n".join(b.get("text", "") for b in content if b["type"] == "text")
    return content, bool(result.get("is_error"))


async def test_tools_are_listed_asked_about_and_answered(
    runtime: McpRuntime, model: ScriptedModelServer, workspace: Path
):
    recorder = Recorder(answers=["allow", "allow_session"])
    agent = agent_with(runtime, workspace, model.url, recorder)
    model.load(
        script_of(
            reply(tool("mcp__everything__echo", {"message": "hi there"})),
            reply(tool("mcp__time__get_current_time", {"timezone": "UTC"})),
            reply(tool("mcp__time__get_current_time", {"timezone": "Europe/Paris"})),
            reply(text("done")),
        )
    )

    result = await agent.run(RunRequest("use the tools"))

    assert result.stop_reason == "end_turn"
    tools = {t["name"]: t for t in model.requests[0].body["tools"]}
    assert all(NAME.match(name) for name in tools) and len(tools) == len(
        model.requests[0].body["tools"]
    )
    # server-filesystem brings its own read_file: ours keeps the name, its one is namespaced.
    assert not tools["read_file"]["description"].startswith("[MCP")
    assert tools["mcp__fs__read_file"]["description"].startswith("[MCP server fs, tool read_file]")
    assert {"mcp__everything__echo", "mcp__time__convert_time"} <= set(tools)
    assert "$schema" not in tools["mcp__everything__echo"]["input_schema"]
    # Asked about with what would be sent; "for this session" stops asking for that server.
    assert [kind for kind, _ in recorder.questions] == ["mcp:everything", "mcp:time"]
    assert (
        'echo of the MCP server everything with {"message": "hi there"}' in recorder.questions[0][1]
    )
    assert "the server says this tool only reads" in recorder.questions[0][1]
    assert result_text(model.requests[1].body) == ("Echo: hi there", False)
    answer, failed = result_text(model.requests[2].body)
    assert '"timezone": "UTC"' in answer and not failed
    assert "Europe/Paris" in result_text(model.requests[3].body)[0]
    (notice,) = [n for n in recorder.of("notice") if n["message"].startswith("MCP servers:")]
    assert "everything ready (" in notice["message"] and "time ready (2 tools)" in notice["message"]
    assert {s["name"]: s["state"] for s in notice["mcpServers"]} == {
        "everything": "ready",
        "fs": "ready",
        "time": "ready",
    }


async def test_a_denied_call_never_reaches_the_server(
    runtime: McpRuntime, model: ScriptedModelServer, workspace: Path
):
    recorder = Recorder(answers=["deny"])
    agent = agent_with(runtime, workspace, model.url, recorder)
    target = workspace / "made-by-mcp.txt"
    model.load(
        script_of(
            reply(tool("mcp__fs__write_file", {"path": str(target), "content": "x"})),
            reply(text("ok")),
        )
    )

    await agent.run(RunRequest("write it"))

    assert (
        len(recorder.questions) == 1
        and "write_file of the MCP server fs" in recorder.questions[0][1]
    )
    answer, failed = result_text(model.requests[1].body)
    assert failed and "the user declined" in answer
    assert not target.exists()


async def test_the_server_environment_has_no_api_key_and_images_are_image_blocks(
    runtime: McpRuntime, model: ScriptedModelServer, workspace: Path
):
    recorder = Recorder(answers=["allow_session"])
    agent = agent_with(runtime, workspace, model.url, recorder)
    model.load(
        script_of(
            reply(tool("mcp__everything__get-env", {})),
            reply(tool("mcp__everything__get-tiny-image", {})),
            reply(text("ok")),
        )
    )

    await agent.run(RunRequest("env and image"))

    env_text, failed = result_text(model.requests[1].body)
    assert not failed and '"PATH"' in env_text
    assert "ANTHROPIC" not in env_text and "sk-ant-never" not in env_text
    assert "GITHUB_TOKEN" not in env_text
    (image_result,) = tool_results(model.requests[2].body)
    blocks = image_result["content"]
    assert [b["type"] for b in blocks] == ["text", "image"]
    assert blocks[1]["source"]["media_type"] == "image/png" and blocks[1]["source"]["data"]


async def test_a_timed_out_call_is_a_tool_error_and_the_next_call_works(
    runtime: McpRuntime, model: ScriptedModelServer, workspace: Path
):
    recorder = Recorder(answers=["allow_session"])
    agent = agent_with(runtime, workspace, model.url, recorder)
    model.load(
        script_of(
            reply(
                tool(
                    "mcp__everything__trigger-long-running-operation", {"duration": 20, "steps": 2}
                )
            ),
            reply(tool("mcp__everything__echo", {"message": "still here"})),
            reply(text("ok")),
        )
    )

    await agent.run(RunRequest("slow then fast"))

    answer, failed = result_text(model.requests[1].body)
    assert failed
    assert "did not answer within 3 s; the call was cancelled (the server keeps running)" in answer
    assert result_text(model.requests[2].body) == ("Echo: still here", False)


async def test_cancel_stops_the_call_and_the_server_stays_usable(
    runtime: McpRuntime, model: ScriptedModelServer, workspace: Path
):
    recorder = Recorder(answers=["allow_session"])
    agent = agent_with(runtime, workspace, model.url, recorder, approvals={"mcp": "allow"})
    session = agent.new_session()
    model.load(
        script_of(
            reply(
                tool("mcp__everything__trigger-long-running-operation", {"duration": 2, "steps": 1})
            ),
            reply(text("not reached")),
        )
    )
    running = asyncio.ensure_future(agent.run(RunRequest("slow", session.id)))
    await wait_for(lambda: recorder.of("toolCall"), what="the MCP call")
    await asyncio.sleep(0.3)
    agent.cancel(session.id)
    assert (await running).stop_reason == "cancelled"
    assert recorder.questions == []  # approvals {"mcp": "allow"}: nothing asked

    model.load(
        script_of(reply(tool("mcp__everything__echo", {"message": "again"})), reply(text("ok")))
    )
    await agent.run(RunRequest("again", session.id))
    assert result_text(model.requests[-1].body) == ("Echo: again", False)


async def test_a_killed_server_shows_failed_and_its_tools_leave_the_map(runtime: McpRuntime):
    servers = runtime.servers
    assert servers is not None
    assert "mcp__time__get_current_time" in runtime.tools()
    (time_server,) = [p for p in server_processes() if "mcp-server-time" in " ".join(p.cmdline())]
    time_server.kill()

    connection = servers.connections["time"]
    await wait_for(lambda: connection.state == "failed", timeout=15, what="the crash noticed")
    assert connection.describe_state() == "failed: the server exited"
    assert not [name for name in runtime.tools() if name.startswith("mcp__time__")]
    assert "mcp__everything__echo" in runtime.tools()  # the others go on
    assert {s["name"]: s["state"] for s in servers.states()}["time"] == "failed"


async def test_list_changed_updates_the_map_before_the_next_turn(
    tmp_path: Path, workspace: Path, model: ScriptedModelServer
):
    grower = Path(__file__).parents[1] / "mcp_servers" / "growing_server.py"
    user_dir = tmp_path / "user"
    write_user_config(user_dir, {"growing": {"command": sys.executable, "args": [str(grower)]}})
    mcp = McpRuntime(user_dir)
    servers = mcp.refresh(workspace)
    try:
        await servers.connections["growing"].settled(15)
        recorder = Recorder()
        agent = agent_with(
            runtime=mcp,
            workspace=workspace,
            model_url=model.url,
            recorder=recorder,
            approvals={"mcp": "allow"},
        )
        model.load(
            script_of(
                reply(tool("mcp__growing__grow", {})),
                reply(tool("mcp__growing__grown", {})),
                reply(text("ok")),
            )
        )

        await agent.run(RunRequest("grow"))

        names = [[t["name"] for t in r.body["tools"]] for r in model.requests]
        assert "mcp__growing__grown" not in names[0]
        assert "mcp__growing__grown" in names[1]
        assert result_text(model.requests[2].body) == ("grown here", False)
    finally:
        await mcp.shutdown()


GROWING = {
    # the Python SDK's MCPServer speaks 2026-07-28: the change comes on a listen stream
    "2026-07-28": (sys.executable, Path(__file__).parents[1] / "mcp_servers" / "growing_server.py"),
    # the TypeScript SDK's McpServer speaks 2025-11-25: a plain notification
    "2025-11-25": ("node", Path(__file__).parents[1] / "mcp_servers" / "growing_server.mjs"),
}


@pytest.mark.parametrize("protocol", sorted(GROWING))
async def test_a_change_sent_ahead_of_a_calls_result_is_in_the_map_when_the_call_returns(
    protocol: str, workspace: Path
):
    require_servers()
    command, script = GROWING[protocol]
    servers = McpServers(workspace)
    (connection,) = servers.configure(
        [ServerConfig("growing", "stdio", command=command, args=(str(script),))]
    )
    try:
        await connection.settled(15)
        assert connection.describe_state() == "ready (1 tools)"
        assert connection.protocol_version == protocol
        assert sorted(servers.tools()) == ["mcp__growing__grow"]

        await connection.call("grow", {})
        # no await in between: nothing else got to run since the call returned
        assert sorted(servers.tools()) == ["mcp__growing__grow", "mcp__growing__grown"]
        result = await connection.call("grown", {})
        assert [block.text for block in result.content] == ["grown here"]
    finally:
        await servers.shutdown()


@pytest.mark.parametrize("read_only", [False, True])
async def test_an_mcp_call_is_checkpointed_unless_the_user_marked_the_server_read_only(
    read_only: bool, tmp_path: Path, workspace: Path, model: ScriptedModelServer
):
    require_servers()
    user_dir = tmp_path / "user"
    fs = {"command": str(FILESYSTEM), "args": [str(workspace)], "readOnly": read_only}
    write_user_config(user_dir, {"fs": fs})
    mcp = McpRuntime(user_dir)
    servers = mcp.refresh(workspace)
    try:
        await servers.connections["fs"].settled(15)
        agent = agent_with(mcp, workspace, model.url, Recorder(), approvals={"mcp": "allow"})
        session = agent.new_session()
        target = real(workspace) / "from-mcp.txt"
        model.load(
            script_of(
                reply(
                    tool(
                        "todo",
                        {"items": [{"id": "1", "text": "Write it", "status": "in_progress"}]},
                    )
                ),
                reply(tool("mcp__fs__write_file", {"path": str(target), "content": "hello\n"})),
                reply(text("ok")),
            )
        )

        await agent.run(RunRequest("write through MCP", session.id))

        assert target.read_text() == "hello\n"
        changes = json.dumps(await agent.checkpoints(session.id).changes())
        assert ("from-mcp.txt" in changes) is not read_only
    finally:
        await mcp.shutdown()


@pytest.fixture
def http_everything() -> Iterator[str]:
    """server-everything over Streamable HTTP on a free port: its URL."""
    require_servers()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [str(EVERYTHING), "streamableHttp"],
        env={"PATH": os.environ["PATH"], "PORT": str(port)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert server.stdout is not None
        while "listening" not in server.stdout.readline():
            assert server.poll() is None, "server-everything did not start"
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.terminate()
        server.wait(10)


async def test_an_http_server_with_headers_serves_its_tools(
    http_everything: str, tmp_path: Path, workspace: Path, model: ScriptedModelServer
):
    user_dir = tmp_path / "user"
    config = {"type": "http", "url": http_everything, "headers": {"X-A": "b"}}
    write_user_config(user_dir, {"ev": config})
    mcp = McpRuntime(user_dir)
    servers = mcp.refresh(workspace)
    try:
        await servers.connections["ev"].settled(15)
        agent = agent_with(mcp, workspace, model.url, Recorder(), approvals={"mcp": "allow"})
        model.load(
            script_of(reply(tool("mcp__ev__echo", {"message": "over http"})), reply(text("ok")))
        )
        await agent.run(RunRequest("echo over http"))
        assert result_text(model.requests[1].body) == ("Echo: over http", False)
    finally:
        await mcp.shutdown()


async def test_a_server_slower_than_its_startup_timeout_fails_and_leaves_nothing(
    tmp_path: Path, workspace: Path
):
    earlier = {process.pid for process in server_processes()}
    user_dir = tmp_path / "user"
    slow = {"command": "sh", "args": ["-c", "sleep 60"], "startupTimeoutSeconds": 1}
    write_user_config(
        user_dir, {"slow": slow, "slower": {"command": "sh", "args": ["-c", "sleep 60"]}}
    )
    mcp = McpRuntime(user_dir)
    servers = mcp.refresh(workspace)
    connection = servers.connections["slow"]
    await wait_for(lambda: connection.state == "failed", timeout=5, what="the startup timeout")
    assert connection.describe_state() == "failed: did not start within 1 s"
    assert servers.connections["slower"].state == "starting"
    started = asyncio.get_running_loop().time()
    await mcp.shutdown()  # a server still starting is stopped without waiting for it
    assert asyncio.get_running_loop().time() - started < 8
    await wait_for(lambda: server_processes(earlier) == [], timeout=10, what="no process left")
