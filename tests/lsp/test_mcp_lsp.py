"""MCP over the real language server: a workspace's `.mcp.json` runs nothing until the user
trusts that exact config (asked with window/showMessageRequest, showing the command line);
a changed argument asks again; the user's servers start at `initialized`, their states go
out as `workspaceAgent/mcpServers`, their tools reach the model, and no server process is
left after shutdown."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient
from tests.support.lsp import run, tool_results, wait_for
from tests.support.mcp import TIME, marker, processes_of, record_states, require_servers
from tests.support.server import USER_CONFIG

# Tests that start the real MCP servers share one pytest-xdist worker: some count those
# servers' processes machine-wide.
pytestmark = pytest.mark.xdist_group("mcp-servers")


@pytest.fixture
def user_mcp() -> Iterator[Path]:
    """The servers' user config folder, left as it was found."""
    yield USER_CONFIG
    for name in ("mcp.json", "mcp-trust.json", "mcp-disabled.json"):
        (USER_CONFIG / name).unlink(missing_ok=True)


async def test_a_workspace_server_runs_only_once_its_exact_config_is_trusted(
    user_mcp: Path, editor: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    double = editor.double
    model.load({"conversations": [{"replies": [reply(text("ok"))]}], "on_exhausted": "repeat"})
    marker(workspace, "MARK")
    double.answers = ["Deny"]

    await run(editor, "first")
    await wait_for(lambda: double.questions, what="the trust question")

    (question,) = double.questions
    sh = shutil.which("sh")  # the program by its full path, as it will start
    assert f"start the MCP server marker from the workspace's .mcp.json: {sh} -c 'touch MARK'" in (
        question
    )
    assert "cwd (the workspace)" in question and "runs a program on your machine" in question
    assert double.offered == [["Allow", "Deny"]]
    await run(editor, "second")  # denied: not asked again in this process, never started
    assert len(double.questions) == 1 and not (workspace / "MARK").exists()
    assert not (user_mcp / "mcp-trust.json").exists()

    marker(workspace, "MARK2")  # another config: asked again; this time trusted
    double.answers = ["Allow"]
    await run(editor, "third")
    await wait_for(lambda: (workspace / "MARK2").exists(), what="the trusted server to start")
    assert len(double.questions) == 2 and "touch MARK2" in double.questions[1]
    trusted = json.loads((user_mcp / "mcp-trust.json").read_text())["approved"]
    assert [r["name"] for r in trusted.values()] == ["marker"]

    marker(workspace, "MARK3")  # one argument changed: the trust does not carry over
    double.answers = []
    await run(editor, "fourth")
    await wait_for(lambda: len(double.questions) == 3, what="the question about the change")
    assert "touch MARK3" in double.questions[2] and not (workspace / "MARK3").exists()


async def test_user_servers_start_report_their_state_and_serve_the_model(
    no_server_left: None,
    user_mcp: Path,
    editor: RecordingClient,
    model: ScriptedModelServer,
    workspace: Path,
):
    require_servers()
    double = editor.double
    states = record_states(editor)
    (user_mcp / "mcp.json").write_text(json.dumps({"mcpServers": {"time": {"command": str(TIME)}}}))
    model.load(script_of(reply(text("ok"))))
    double.answers = ["Allow"]
    await run(editor, "warm up")  # the first run finds the config (it was written after start)
    await wait_for(
        lambda: any(s["state"] == "ready" for batch in states for s in batch),
        timeout=20,
        what="the server ready",
    )
    (ready,) = [s for s in states[-1] if s["name"] == "time"]
    assert ready == {
        "name": "time",
        "source": "user",
        "origin": str(user_mcp / "mcp.json"),
        "state": "ready",
        "tools": 2,
        "reason": None,
        "toolNames": ["get_current_time", "convert_time"],
        "detail": f"{TIME}; cwd (the workspace)",
        "fingerprint": ready["fingerprint"],
    }
    assert len(ready["fingerprint"]) == 64

    model.load(
        script_of(
            reply(
                tool(
                    "mcp__time__convert_time",
                    {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"},
                )
            ),
            reply(text("21:00 in Tokyo.")),
        )
    )
    result = await run(editor, "convert noon UTC to Tokyo")

    assert result["stopReason"] == "end_turn"
    assert "call the tool convert_time of the MCP server time" in double.questions[-1]
    (answer,) = tool_results(model.requests[-1].body)
    assert "Asia/Tokyo" in answer["content"] and not answer.get("is_error")
    assert time_servers()


@pytest.fixture
def no_server_left() -> Iterator[None]:
    """After the test's client shut the server down: no MCP server process is left."""
    yield
    deadline = time.monotonic() + 10
    while time_servers() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert time_servers() == []


def time_servers() -> list[psutil.Process]:
    return processes_of(TIME)
