"""The MCP Servers view's requests over the real language server, against real MCP servers:
workspaceAgent/mcpRestart starts a new server process, mcpTrust trusts only the exact
config the user was shown (and starts it), mcpSetEnabled stops a server and keeps it off
(recorded outside the repository, by fingerprint) until enabled again. Every refusal
says what to do instead, in its message and as `data.nextStep`."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from workspace_agent import protocol as p
from workspace_agent.mcp.disabled import DisabledStore
from workspace_agent.mcp.runtime import McpRuntime
from workspace_agent.mcp.sources import discover
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, text

from tests.support.client import RecordingClient
from tests.support.lsp import request, run, wait_for
from tests.support.mcp import (
    TIME,
    in_state,
    marker,
    processes_of,
    record_states,
    require_servers,
    state_of,
    write_user_config,
)
from tests.support.server import USER_CONFIG

# Tests that start the real MCP servers share one pytest-xdist worker: some count those
# servers' processes machine-wide.
pytestmark = pytest.mark.xdist_group("mcp-servers")


@pytest.fixture
def user_config() -> Iterator[Path]:
    """The servers' user config folder, left as it was found."""
    yield USER_CONFIG
    for name in ("mcp.json", "mcp-trust.json", "mcp-disabled.json"):
        (USER_CONFIG / name).unlink(missing_ok=True)


async def refused(client: RecordingClient, method: str, params: Any) -> JsonRpcException:
    with pytest.raises(JsonRpcException) as error:
        await request(client, method, params)
    return error.value


async def test_restart_trust_and_disable_act_on_the_servers_as_configured_now(
    user_config: Path, editor: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    require_servers()
    double = editor.double
    states = record_states(editor)
    write_user_config(user_config, {"time": {"command": str(TIME)}})
    marker(workspace, "MARK")
    double.answers = ["Deny"]  # the trust question the server asks on its own
    model.load({"conversations": [{"replies": [reply(text("ok"))]}], "on_exhausted": "repeat"})
    await run(editor, "warm up")
    await wait_for(lambda: in_state(states, "time", "ready"), timeout=20, what="time ready")
    await wait_for(lambda: double.questions, what="the trust question")
    marker_state = state_of(states, "marker")
    assert marker_state is not None and marker_state["state"] == "not started"
    sh = shutil.which("sh")  # shown by its full path, as it would start
    assert marker_state["detail"] == f"{sh} -c 'touch MARK'; cwd (the workspace)"

    # Restart: a new process serves the same tools.
    (old,) = processes_of(TIME, workspace)
    answer = await request(editor, p.MCP_RESTART_REQUEST, {"name": "time"})
    assert [s["name"] for s in answer["servers"]] == ["time", "marker"]
    await wait_for(lambda: in_state(states, "time", "ready"), timeout=20, what="time ready again")
    (new,) = processes_of(TIME, workspace)
    assert new.pid != old.pid and not old.is_running()

    # A candidate that is not trusted cannot be restarted: trust it first.
    error = await refused(editor, p.MCP_RESTART_REQUEST, {"name": "marker"})
    assert "the MCP server marker is not trusted yet" in error.message
    assert "trust it first" in error.message and error.data == {"nextStep": "trust"}

    # Trust names the config the user saw: a file changed since is not trusted.
    seen = marker_state["fingerprint"]
    marker(workspace, "OTHER")
    error = await refused(editor, p.MCP_TRUST_REQUEST, {"name": "marker", "fingerprint": seen})
    assert f"changed since it was shown: it now runs {sh} -c 'touch OTHER'" in error.message
    assert error.data == {"nextStep": "trust"}
    assert not (user_config / "mcp-trust.json").exists() and not (workspace / "OTHER").exists()
    marker(workspace, "MARK")
    await request(editor, p.MCP_TRUST_REQUEST, {"name": "marker", "fingerprint": seen})
    await wait_for(lambda: (workspace / "MARK").exists(), what="the trusted server to start")
    # Acting in the view raises no second question about the config it found changed.
    assert len(double.questions) == 1
    (record,) = json.loads((user_config / "mcp-trust.json").read_text())["approved"].items()
    assert record[0] == seen and record[1]["name"] == "marker"

    # Disable: stopped now, listed as disabled, its tools gone from the next request.
    answer = await request(editor, p.MCP_SET_ENABLED_REQUEST, {"name": "time", "enabled": False})
    assert state_of([answer["servers"]], "time") == {
        **(state_of(states, "time") or {}),
        "state": "disabled",
        "tools": 0,
        "toolNames": [],
        "reason": "turned off by you: Enable (VS Code's MCP Servers view) starts it again",
    }
    await wait_for(lambda: not processes_of(TIME, workspace), what="the disabled server to stop")
    records = json.loads((user_config / "mcp-disabled.json").read_text())["disabled"]
    assert [r["name"] for r in records.values()] == ["time"]
    assert list(records) == [state_of(states, "time")["fingerprint"]]  # type: ignore[index]
    await run(editor, "what tools are there?")
    sent = [t["name"] for t in model.requests[-1].body["tools"]]
    assert not [name for name in sent if name.startswith("mcp__time__")]
    error = await refused(editor, p.MCP_RESTART_REQUEST, {"name": "time"})
    assert "the MCP server time is disabled: enable it first" in error.message
    assert error.data == {"nextStep": "enable"}

    await request(editor, p.MCP_SET_ENABLED_REQUEST, {"name": "time", "enabled": True})
    await wait_for(lambda: in_state(states, "time", "ready"), timeout=20, what="time enabled")
    assert json.loads((user_config / "mcp-disabled.json").read_text()) == {"disabled": {}}


async def test_a_server_added_to_the_setting_starts_without_waiting_for_a_run(
    user_config: Path, editor: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    require_servers()
    states = record_states(editor)
    servers = {"time": {"command": str(TIME)}}
    editor.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"workspaceAgent": {"baseUrl": model.url, "mcp.servers": servers}}
        )
    )
    await wait_for(lambda: in_state(states, "time", "ready"), timeout=20, what="time ready")
    assert state_of(states, "time")["source"] == "editor"  # type: ignore[index]
    assert model.requests == []  # no run was needed

    editor.workspace_did_change_configuration(  # and removed: stopped, the list empty
        types.DidChangeConfigurationParams(settings={"workspaceAgent": {"baseUrl": model.url}})
    )
    await wait_for(lambda: states[-1] == [], what="the server gone from the list")
    await wait_for(lambda: not processes_of(TIME, workspace), what="the server process to stop")


async def test_unknown_servers_and_bad_params_are_refused_with_what_to_do(
    user_config: Path, editor: RecordingClient, workspace: Path
):
    # Nothing configured at all: the error says where servers are added.
    error = await refused(editor, p.MCP_RESTART_REQUEST, {"name": "github"})
    assert "there is no MCP server named 'github' (none is configured)" in error.message
    assert "workspaceAgent.mcp.servers setting" in error.message
    assert error.data == {"nextStep": "openSettings"}

    marker(workspace, "MARK")
    error = await refused(editor, p.MCP_SET_ENABLED_REQUEST, {"name": "git", "enabled": False})
    assert "there is no MCP server named 'git' (the servers are marker)" in error.message
    assert not (user_config / "mcp-disabled.json").exists()

    error = await refused(editor, p.MCP_TRUST_REQUEST, {"name": "marker"})
    assert "needs 'fingerprint'" in error.message
    error = await refused(editor, p.MCP_SET_ENABLED_REQUEST, {"name": "marker", "enabled": "no"})
    assert "needs 'enabled': true or false" in error.message
    error = await refused(editor, p.MCP_RESTART_REQUEST, {})
    assert "needs 'name'" in error.message
    assert not (workspace / "MARK").exists()


async def test_a_server_of_the_users_own_config_needs_no_trust(tmp_path: Path, workspace: Path):
    user_dir = tmp_path / "user"
    write_user_config(user_dir, {"late": {"command": "sh", "args": ["-c", "sleep 30"]}})
    runtime = McpRuntime(user_dir)
    try:
        runtime.refresh(workspace)
        servers = runtime.servers
        assert servers is not None
        fingerprint = servers.config("late").fingerprint()  # type: ignore[union-attr]
        with pytest.raises(Exception, match="it needs no trust") as error:
            runtime.trust_server(workspace, "late", fingerprint)
        assert getattr(error.value, "next_step", None) == "restart"
        assert not (user_dir / "mcp-trust.json").exists()
    finally:
        await runtime.shutdown()


async def test_a_disabled_server_stays_off_for_the_next_process_until_its_config_changes(
    tmp_path: Path, workspace: Path
):
    user_dir = tmp_path / "user"
    write_user_config(user_dir, {"off": {"command": "sh", "args": ["-c", "touch ran"]}})
    first = McpRuntime(user_dir)
    first.refresh(workspace)
    first.set_enabled(workspace, "off", False)
    await first.shutdown()
    (workspace / "ran").unlink(missing_ok=True)

    second = McpRuntime(user_dir)  # another process: the same record applies
    try:
        assert [(s["name"], s["state"]) for s in second.refresh(workspace).states()] == [
            ("off", "disabled")
        ]
        assert "off disabled" in (second.refresh(workspace).summary() or "")
        write_user_config(user_dir, {"off": {"command": "sh", "args": ["-c", "touch ran2"]}})
        assert [s["state"] for s in second.refresh(workspace).states()] == ["starting"]
    finally:
        await second.shutdown()
    assert not (workspace / "ran").exists()


async def test_a_server_whose_command_is_missing_fails_saying_so(tmp_path: Path, workspace: Path):
    user_dir = tmp_path / "user"
    missing = tmp_path / "bin" / "no-such-server"
    write_user_config(user_dir, {"gone": {"command": str(missing)}})
    runtime = McpRuntime(user_dir)
    try:
        servers = runtime.refresh(workspace)
        await servers.connections["gone"].settled(10)
        (state,) = servers.states()
        assert (state["state"], state["reason"]) == ("failed", f"command not found: {missing}")
    finally:
        await runtime.shutdown()


def test_mcp_list_shows_a_disabled_server_and_does_not_start_it(tmp_path: Path, workspace: Path):
    import os
    import subprocess
    import sys

    user_dir = tmp_path / "user"
    write_user_config(user_dir, {"off": {"command": "sh", "args": ["-c", "touch ran"]}})
    (config,) = discover(workspace, user_dir).servers
    DisabledStore(user_dir).disable(config)  # as the editor's Disable records it
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}

    done = subprocess.run(
        [sys.executable, "-m", "workspace_agent", "mcp", "list", "--workspace", str(workspace)],
        env={**env, "WORKSPACE_AGENT_CONFIG_DIR": str(user_dir)},
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert done.returncode == 0, done.stdout + done.stderr
    assert f"off  [user: {user_dir / 'mcp.json'}]  disabled (in the editor)" in done.stdout
    assert "no MCP servers configured" not in done.stdout
    assert not (workspace / "ran").exists()
