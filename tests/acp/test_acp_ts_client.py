"""`workspace-agent acp` driven by a client nobody here wrote: the official TypeScript ACP
SDK (@agentclientprotocol/sdk, installed by `make test` into tests/acp_ts_client), which
validates every message the agent sends against the ACP schema.

The client (tests/acp_ts_client/client.mjs) runs a short scripted task in a new session,
with an unsaved buffer, a permission request and client-side file writes, then loads the
session in a fresh agent process. In plan mode (switched with the `mode` config option),
it gets the plan question at planReady, approves, and the run goes on in act mode.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.acp import agent_env, real
from tests.support.lsp import tool_results

CLIENT = Path(__file__).resolve().parents[1] / "acp_ts_client"
PROMPT = "Make app.py greet the world"


def plan(*statuses: str) -> dict:
    steps = ["Read app.py", "Change the greeting", "Check the file"]
    return {
        "items": [
            {"id": str(n + 1), "text": step, "status": status}
            for n, (step, status) in enumerate(zip(steps, statuses, strict=True))
        ]
    }


TASK = script_of(
    reply(text("Plan first."), tool("todo", plan("in_progress", "pending", "pending"))),
    reply(tool("read_file", {"path": "app.py"})),
    reply(
        tool("todo", plan("completed", "in_progress", "pending")),
        tool("edit_file", {"path": "app.py", "old_text": "'hello'", "new_text": "'hello, world'"}),
    ),
    reply(
        tool("todo", plan("completed", "completed", "in_progress")),
        tool("bash", {"command": "cat app.py"}),
    ),
    reply(tool("todo", plan("completed", "completed", "completed"))),
    reply(text("Done: app.py greets the world.")),
)


def run_client(
    workspace: Path, model: ScriptedModelServer, prompt: str = PROMPT, **env: str
) -> dict:
    node = shutil.which("node")
    assert node, "node is not installed (the TypeScript ACP client needs it)"
    assert (CLIENT / "node_modules" / "@agentclientprotocol" / "sdk").is_dir(), (
        "the TypeScript ACP SDK is not installed: run `make test-python` (it runs "
        "`npm ci` in tests/acp_ts_client)"
    )
    agent = [sys.executable, "-m", "workspace_agent", "acp"]
    done = subprocess.run(
        [node, str(CLIENT / "client.mjs"), str(workspace), prompt, "--", *agent],
        capture_output=True,
        text=True,
        timeout=120,
        # unsandboxed, so that the command is a permission request (in the sandbox, with
        # the default approvals, a plain command needs none: tests/acp/test_acp_sandbox.py)
        env=agent_env(model, WORKSPACE_AGENT_SANDBOX="off", **env),
        cwd=CLIENT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_the_typescript_sdk_client_runs_a_task_and_loads_it_back(
    model: ScriptedModelServer, workspace: Path
):
    app = workspace / "app.py"
    app.write_text("GREETING = 'hi'\n")  # on disk; the editor holds unsaved text
    (workspace.parent / "buffers.json").write_text(
        json.dumps({str(real(app)): "GREETING = 'hello'\n"})
    )
    model.load(TASK)

    result = run_client(workspace, model)

    assert result["initialized"]["protocolVersion"] == 1
    assert result["initialized"]["agentCapabilities"]["loadSession"] is True
    assert result["stopReason"] == "end_turn"
    updates = result["updates"]
    chunks = [u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk"]
    assert "".join(chunks) == "Plan first.Done: app.py greets the world."
    plans = [u["entries"] for u in updates if u["sessionUpdate"] == "plan"]
    assert [[e["status"] for e in entries] for entries in plans] == [
        ["in_progress", "pending", "pending"],
        ["completed", "in_progress", "pending"],
        ["completed", "completed", "in_progress"],
        ["completed", "completed", "completed"],
    ]
    # The plan changes show once each, as `plan` updates: no todo tool calls besides.
    calls = [u for u in updates if u["sessionUpdate"] == "tool_call"]
    assert [c["kind"] for c in calls] == ["read", "edit", "execute"]
    ends = {
        u["toolCallId"]: u
        for u in updates
        if u["sessionUpdate"] == "tool_call_update" and u.get("status") in ("completed", "failed")
    }
    edit, command = calls[1], calls[2]
    # The whole file as the editor had it (unsaved text included) and as it became.
    assert ends[edit["toolCallId"]]["content"] == [
        {
            "type": "diff",
            "path": str(real(app)),
            "oldText": "GREETING = 'hello'\n",
            "newText": "GREETING = 'hello, world'\n",
        }
    ]
    assert ends[edit["toolCallId"]]["locations"] == [{"path": str(real(app)), "line": 1}]
    assert ends[command["toolCallId"]]["content"][0]["content"]["text"] == (
        "```\nGREETING = 'hello, world'\n[exit status 0]\n```"
    )
    assert all(u["status"] == "completed" for u in ends.values())

    # The editor's side: the unsaved buffer was read, the edit written through the editor
    # (which saved it), the command asked about once.
    assert str(real(app)) in result["reads"]
    assert result["writes"] == [{"path": str(real(app)), "content": "GREETING = 'hello, world'\n"}]
    assert app.read_text() == "GREETING = 'hello, world'\n"
    (permission,) = result["permissions"]
    assert permission["toolCall"]["toolCallId"] == command["toolCallId"]
    assert [o["optionId"] for o in permission["options"]] == [
        "allow_once",
        "allow_always",
        "reject_once",
    ]
    (read,) = tool_results(model.requests[2].body)
    assert "GREETING = 'hello'" in read["content"] and "(open in the editor)" in read["content"]

    # A fresh agent process replays the saved session to the client.
    loaded = result["loaded"]
    assert loaded[0] == {
        "sessionUpdate": "user_message_chunk",
        "content": {"type": "text", "text": PROMPT},
    }
    assert [u["kind"] for u in loaded if u["sessionUpdate"] == "tool_call"] == [
        c["kind"] for c in calls
    ]
    # The edit replays as the diff the live run showed.
    replayed_ends = {u["toolCallId"]: u for u in loaded if u["sessionUpdate"] == "tool_call_update"}
    assert replayed_ends[edit["toolCallId"]] == ends[edit["toolCallId"]]
    # Then the slash commands, as the TypeScript SDK parses them (test_acp_commands.py).
    assert loaded[-1]["sessionUpdate"] == "available_commands_update"
    assert "cost" in [c["name"] for c in loaded[-1]["availableCommands"]]
    assert loaded[-2]["sessionUpdate"] == "plan"
    assert [e["status"] for e in loaded[-2]["entries"]] == ["completed"] * 3


def test_the_typescript_sdk_client_switches_to_plan_mode_approves_the_plan_and_it_runs(
    model: ScriptedModelServer, workspace: Path
):
    steps = {"items": [{"id": "1", "text": "Write hello.txt", "status": "pending"}]}
    done = {"items": [{"id": "1", "text": "Write hello.txt", "status": "completed"}]}
    model.load(
        script_of(
            reply(
                tool("write_file", {"path": "hello.txt", "content": "too early\n"}),
                tool("todo", steps),
            ),
            reply(text("One file.")),
            reply(tool("write_file", {"path": "hello.txt", "content": "hello\n"})),
            reply(tool("todo", done)),
            reply(text("Done.")),
        )
    )
    hello = real(workspace) / "hello.txt"

    result = run_client(workspace, model, "Say hello in a file", ACP_TEST_MODE="plan")

    # The client saw the mode both ways, and switched it with the config option.
    option, *others = result["newSession"]["configOptions"]
    assert [o["id"] for o in others] == ["model", "thought_level"]
    assert (option["id"], option["category"], option["type"]) == ("mode", "mode", "select")
    assert option["currentValue"] == "ask"
    assert [o["value"] for o in option["options"]] == ["ask", "plan"]
    assert result["newSession"]["modes"]["currentModeId"] == "ask"
    assert [m["id"] for m in result["newSession"]["modes"]["availableModes"]] == ["ask", "plan"]
    assert result["configured"]["configOptions"][0]["currentValue"] == "plan"
    updates = result["updates"]
    modes = [
        (u["sessionUpdate"], u.get("currentModeId") or u["configOptions"][0]["currentValue"])
        for u in updates
        if u["sessionUpdate"] in ("current_mode_update", "config_option_update")
    ]
    assert modes == [
        ("current_mode_update", "plan"),
        ("config_option_update", "plan"),
        ("current_mode_update", "ask"),  # the approved plan runs in act mode
        ("config_option_update", "ask"),
    ]

    # The plan question at planReady, with the plan; approved.
    (question,) = result["permissions"]
    assert [o["optionId"] for o in question["options"]] == ["run_plan", "keep_planning", "reject"]
    assert question["toolCall"]["content"][0]["content"]["text"] == (
        "One file.\n\nThe plan:\n1. Write hello.txt"
    )
    assert result["stopReason"] == "end_turn"

    # Planning wrote nothing; the approved run did, through the editor, in the same turn.
    (refused, _) = tool_results(model.requests[1].body)
    assert refused["content"].startswith("not done: you are in plan mode")
    approval = model.requests[2].body["messages"][-1]["content"][-1]["text"]
    assert approval.startswith("The user approved this plan")
    assert "- [#1] Write hello.txt" in approval
    assert result["writes"] == [{"path": str(hello), "content": "hello\n"}]
    assert hello.read_text() == "hello\n"
    chunks = [u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk"]
    assert "".join(chunks) == "One file.Done."
    # A fresh agent process loads the session in ask (the mode is the process's).
    assert result["loadAnswer"]["modes"]["currentModeId"] == "ask"
    assert result["loadAnswer"]["configOptions"][0]["currentValue"] == "ask"


def test_the_typescript_sdk_client_picks_the_model_and_the_thought_level(
    model: ScriptedModelServer, workspace: Path
):
    model.load(script_of(reply(text("Picked."))))
    picks = [["model", "claude-sonnet-4-5"], ["thought_level", "medium"]]

    result = run_client(workspace, model, "Say hi", ACP_TEST_OPTIONS=json.dumps(picks))

    # the SDK parsed the options (and their updates) against the ACP schema
    offered = {o["id"]: o for o in result["newSession"]["configOptions"]}
    assert (offered["model"]["category"], offered["thought_level"]["category"]) == (
        "model",
        "thought_level",
    )
    now = {o["id"]: o["currentValue"] for o in result["configured"]["configOptions"]}
    assert now == {"mode": "ask", "model": "claude-sonnet-4-5", "thought_level": "medium"}
    assert result["stopReason"] == "end_turn"
    body = next(r.body for r in model.requests if r.path == "/v1/messages")
    assert body["model"] == "claude-sonnet-4-5"
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 10_000}
