"""Hooks in a run, in this process: the user's Claude Code settings file with real shell
scripts, each event as Claude Code's scripts expect it, through the session manager and
the scripted Messages API (what the model was sent, the files on disk, the checkpoint's
step, the plan, the rows the user sees)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from workspace_agent.agent.sessions import SessionManager
from workspace_agent.config import resolve_settings
from workspace_agent.protocol import FileVersionParams, RevertParams, RunRequest
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

GUARD = """#!/bin/sh
if grep -q 'rm -rf' ; then echo "no rm -rf in this project (hook policy)" >&2; exit 2; fi
"""
FORMAT = """#!/bin/sh
path=$(sed -n 's/.*"file_path": *"\\([^"]*\\)".*/\\1/p')
sed -i -E 's/ *= */ = /g' "$path"
"""
CONTEXT = """#!/bin/sh
echo '{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "on branch release-7"}}'
"""
ONCE = """#!/bin/sh
# exit 2 the first time ($1 names the state file), 0 after
if [ ! -e "$1" ]; then touch "$1"; echo "$2" >&2; exit 2; fi
"""


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.plans: list[list[Any]] = []

    def on_event(self, session_id: str, kind: str, fields: dict[str, Any]) -> None:
        self.events.append((kind, fields))

    def on_todos(self, session_id: str, items: list[Any]) -> None:
        self.plans.append(items)

    def on_changes(self, session_id: str, changes: dict[str, Any]) -> None: ...

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [fields for k, fields in self.events if k == kind]


def user_hooks(home: Path, scripts: Path, hooks: dict[str, Any]) -> None:
    """`~/.claude/settings.json` (CLAUDE_CONFIG_DIR) with `hooks`, scripts made runnable."""
    for script in scripts.iterdir():
        script.chmod(0o755)
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.json").write_text(json.dumps({"model": "opus", "hooks": hooks}, indent=2))


def command(script: Path, *args: str) -> dict[str, Any]:
    return {"type": "command", "command": " ".join([str(script), *args])}


def manager(workspace: Path, model: ScriptedModelServer, listener: Recorder) -> SessionManager:
    settings = {"baseUrl": model.url, "approvals": {"bash": "allow"}}
    return SessionManager(
        listener,
        root=lambda: workspace,
        settings=lambda root: resolve_settings(root, settings, {"ANTHROPIC_API_KEY": "k"}),
    )


@pytest.fixture
def scripts(tmp_path: Path) -> Path:
    folder = tmp_path / "scripts"
    folder.mkdir()
    for name, body in {"guard.sh": GUARD, "fmt.sh": FORMAT, "context.sh": CONTEXT}.items():
        (folder / name).write_text(body)
    (folder / "once.sh").write_text(ONCE)
    return folder


async def test_a_run_with_the_users_claude_code_hooks(
    workspace: Path,
    model: ScriptedModelServer,
    scripts: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
):
    home = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    state = tmp_path / "state"
    state.mkdir()
    user_hooks(
        home,
        scripts,
        {
            "UserPromptSubmit": [{"hooks": [command(scripts / "context.sh")]}],
            "PreToolUse": [{"matcher": "Bash", "hooks": [command(scripts / "guard.sh")]}],
            "PostToolUse": [{"matcher": "Edit|Write", "hooks": [command(scripts / "fmt.sh")]}],
            "TaskCompleted": [
                {"hooks": [command(scripts / "once.sh", str(state / "t"), "'test_a fails'")]}
            ],
            "Stop": [{"hooks": [command(scripts / "once.sh", str(state / "s"), "'run the tests'")]}],
        },
    )
    (workspace / "a.py").write_text("x=0\n")
    (workspace / "build").mkdir()
    item = {"id": "1", "text": "set x", "status": "in_progress"}
    model.load(
        script_of(
            reply(tool("todo", {"items": [item]})),
            reply(tool("bash", {"command": "rm -rf build"})),
            reply(tool("write_file", {"path": "a.py", "content": "x=1\n"})),
            reply(tool("todo", {"items": [{**item, "status": "completed"}]})),
            reply(tool("todo", {"items": [{**item, "status": "completed"}]})),
            reply(text("done")),
            reply(text("really done")),
        )
    )
    listener = Recorder()
    agent = manager(workspace, model, listener)
    result = await agent.run(RunRequest("set x to 1"))

    assert result.stop_reason == "end_turn" and result.text == "really done"
    first = model.requests[0].body["messages"][0]["content"]
    assert any("on branch release-7" in block.get("text", "") for block in first)
    # PreToolUse: the command never ran, the model got the hook's stderr
    refused = model.requests[2].body["messages"][-1]["content"][0]
    assert refused["is_error"] and "no rm -rf in this project" in refused["content"]
    assert "guard.sh" in refused["content"] and (workspace / "build").is_dir()
    # PostToolUse: formatted on disk, and the step's after side is the formatted text
    assert (workspace / "a.py").read_text() == "x = 1\n"
    after = await agent.checkpoints(result.session_id).file_version(
        FileVersionParams(result.session_id, "1", "a.py", "after")
    )
    assert after == "x = 1\n"
    # TaskCompleted: refused once (the item stayed in progress, the model was told), then done
    told = model.requests[4].body["messages"][-1]["content"][0]["content"]
    assert "Plan item #1 is not done" in told and "test_a fails" in told
    checked = [plan[0] for plan in listener.plans if plan and plan[0].check is not None]
    reopened = checked[0]
    assert reopened.status == "in_progress" and not reopened.check.passed
    assert reopened.check.first_line == "test_a fails" and reopened.check.hook == "once.sh"
    final = result.todos[0]
    assert final.status == "completed" and final.check.passed
    # Stop: one more turn with the hook's reason, then the end
    again = model.requests[6].body["messages"][-1]
    assert again["role"] == "user" and "run the tests" in again["content"][0]["text"]
    rows = [(f["event"], f["hook"], f["outcome"]) for f in listener.of("hook")]
    assert rows == [
        ("UserPromptSubmit", "context.sh", "ok"),
        ("PreToolUse", "guard.sh", "blocked"),
        ("PostToolUse", "fmt.sh", "ok"),
        ("TaskCompleted", "once.sh", "blocked"),
        ("TaskCompleted", "once.sh", "ok"),
        ("Stop", "once.sh", "blocked"),
        ("Stop", "once.sh", "ok"),
    ]
    post = listener.of("hook")[2]
    assert post["toolUseId"] and post["source"] == "user"
    assert post["origin"].endswith("settings.json:" + str(post["origin"]).rsplit(":", 1)[1])
    # revert the item: the formatter's change goes back with the call's
    await agent.checkpoints(result.session_id).revert(
        RevertParams(result.session_id, "1", force=True)
    )
    assert (workspace / "a.py").read_text() == "x=0\n"
