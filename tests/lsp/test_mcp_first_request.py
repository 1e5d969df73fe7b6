"""The first model request with MCP servers configured, over the real language server: a
run sent right after `initialize`, while a slow server is still starting, does not wait
for it and sends the model byte for byte the request a server without MCP sends; once
the server is ready its tools are in the next run's request; nothing is left after
shutdown."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.lsp.client import LanguageClient

from workspace_agent import protocol as p
from workspace_agent.lsp.wire import to_plain
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text

from tests.support.lsp import wait_for
from tests.support.mcp import TIME, processes_of, require_servers, write_user_config
from tests.support.server import SERVER, TEST_KEY, server_env

# Tests that start the real MCP servers share one pytest-xdist worker: some count those
# servers' processes machine-wide.
pytestmark = pytest.mark.xdist_group("mcp-servers")


async def first_request_and_later(
    workspace: Path, model: ScriptedModelServer, user_dir: Path, wait_ready: bool
) -> tuple[dict[str, Any], dict[str, Any] | None, list[list[dict[str, Any]]]]:
    """A fresh server: its first run's request (sent right after `initialize`) and, with
    `wait_ready`, the request of a run once the MCP servers are ready; their states."""
    client = LanguageClient("first-request-test", "1")
    states: list[list[dict[str, Any]]] = []
    client.feature(p.MCP_SERVERS_NOTIFICATION)(
        lambda params: states.append(to_plain(params)["servers"])
    )
    env = server_env(ANTHROPIC_API_KEY=TEST_KEY, WORKSPACE_AGENT_CONFIG_DIR=str(user_dir))
    await client.start_io(*SERVER, env=env)
    server = client._server
    assert server is not None
    later = None
    try:
        await client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(),
                root_uri=workspace.as_uri(),
                initialization_options={"workspaceAgent": {"baseUrl": model.url}},
            )
        )
        client.initialized(types.InitializedParams())
        model.load(script_of(reply(text("Hi.")), reply(text("Hi again."))))
        await client.protocol.send_request_async(p.RUN_REQUEST, {"prompt": "hello"})
        first = model.requests[-1].body
        if wait_ready:
            await wait_for(
                lambda: any(s["state"] == "ready" for batch in states for s in batch),
                timeout=30,
                what="the MCP server ready",
            )
            await client.protocol.send_request_async(p.RUN_REQUEST, {"prompt": "again"})
            later = model.requests[-1].body
    finally:
        await client.shutdown_async(None)
        client.exit(None)
        await asyncio.wait_for(server.wait(), 20)
        await client.stop()
    return first, later, states


def tool_names(body: dict[str, Any]) -> list[str]:
    return [t["name"] for t in body["tools"]]


async def test_a_slow_server_neither_delays_nor_changes_the_first_request(
    workspace: Path, model: ScriptedModelServer, tmp_path: Path
):
    require_servers()
    without, _, no_states = await first_request_and_later(
        workspace, model, tmp_path / "no-mcp", wait_ready=False
    )
    slow = {"command": "sh", "args": ["-c", f"sleep 2; exec {TIME}"]}
    write_user_config(tmp_path / "slow", {"slow": slow})
    first, later, states = await first_request_and_later(
        workspace, model, tmp_path / "slow", wait_ready=True
    )

    assert no_states == []  # no server configured: nothing of MCP is said or sent
    assert json.dumps(first, sort_keys=True) == json.dumps(without, sort_keys=True)
    assert not any(name.startswith("mcp__") for name in tool_names(first))
    assert states[0][0]["state"] == "starting"  # the first run did not wait for it
    assert later is not None
    mcp_tools = [name for name in tool_names(later) if name.startswith("mcp__")]
    assert mcp_tools == ["mcp__slow__get_current_time", "mcp__slow__convert_time"]
    await wait_for(lambda: not processes_of(TIME, workspace), what="no MCP server process left")
