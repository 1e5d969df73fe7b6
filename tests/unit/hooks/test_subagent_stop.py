"""SubagentStop: once a `task` call's subagent has ended, the user's SubagentStop hooks
whose matcher names its agent run, once, with Claude Code's fields on stdin, their row
under the task's call; the subagent has ended, so a block is told to the main agent after
the task's result. Stop hooks are the main agent's: a subagent's end does not run them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from workspace_agent.agent.sessions import SessionManager
from workspace_agent.config import resolve_settings
from workspace_agent.protocol import RunRequest
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, text, tool

CHECK = """#!/bin/sh
cat > "$1"
echo 'cite the line numbers' >&2
exit 2
"""
RECORD = """#!/bin/sh
cat >> "$1"
echo >> "$1"
"""


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def on_event(self, session_id: str, kind: str, fields: dict[str, Any]) -> None:
        self.events.append((kind, fields))

    def on_todos(self, session_id: str, items: list[Any]) -> None: ...

    def on_context(self, session_id: str, meter: dict[str, Any]) -> None: ...

    def on_changes(self, session_id: str, changes: dict[str, Any]) -> None: ...

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [fields for k, fields in self.events if k == kind]


def manager(workspace: Path, model: ScriptedModelServer, listener: Recorder) -> SessionManager:
    settings = {"baseUrl": model.url, "sandbox": {"mode": "off"}}
    return SessionManager(
        listener,
        root=lambda: workspace,
        settings=lambda root: resolve_settings(root, settings, {"ANTHROPIC_API_KEY": "k"}),
    )


async def test_subagent_stop_runs_once_per_subagent_and_its_block_reaches_the_main_agent(
    workspace: Path, model: ScriptedModelServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    home, seen = tmp_path / "claude", tmp_path / "seen"
    home.mkdir()
    seen.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    for name, body in {"check.sh": CHECK, "record.sh": RECORD}.items():
        (home / name).write_text(body)
        (home / name).chmod(0o755)

    def hook(script: str, out: str) -> dict[str, str]:
        return {"type": "command", "command": f"{home / script} {seen / out}"}

    hooks = {
        "SubagentStop": [
            {"matcher": "explore", "hooks": [hook("check.sh", "explore.json")]},
            {"matcher": "general", "hooks": [hook("record.sh", "general.jsonl")]},
        ],
        "Stop": [{"hooks": [hook("record.sh", "stop.jsonl")]}],
    }
    (home / "settings.json").write_text(json.dumps({"hooks": hooks}))
    (workspace / "a.py").write_text("A = 1\n")
    task = {"description": "Find A", "prompt": "where is A", "agent": "explore"}
    model.load(
        {
            "conversations": [
                {
                    "match": "where is A",
                    "match_system": '"explore" subagent',
                    "replies": [reply(text("A is set in a.py."))],
                },
                {
                    "match": "find A",
                    "replies": [reply(tool("task", task, "task_a")), reply(text("Found it."))],
                },
            ]
        }
    )
    listener = Recorder()

    result = await manager(workspace, model, listener).run(RunRequest("find A"))

    assert result.stop_reason == "end_turn" and result.text == "Found it."
    assert len(model.requests) == 3  # the subagent answered once: no Stop hook kept it going
    rows = [(f["event"], f["hook"], f["outcome"], f.get("toolUseId")) for f in listener.of("hook")]
    assert rows == [
        ("SubagentStop", "check.sh", "blocked", "task_a"),
        ("Stop", "record.sh", "ok", None),
    ]
    stdin = json.loads((seen / "explore.json").read_text())
    assert stdin["hook_event_name"] == "SubagentStop" and stdin["stop_hook_active"] is False
    assert (stdin["agent_type"], stdin["agent_id"]) == ("explore", "task_a")
    assert not (seen / "general.jsonl").exists()  # its matcher names another agent
    stops = [json.loads(line) for line in (seen / "stop.jsonl").read_text().splitlines()]
    assert [s["hook_event_name"] for s in stops] == ["Stop"]  # the main agent's end only
    answered = model.requests[2].body["messages"][-1]["content"][0]
    assert answered["tool_use_id"] == "task_a"
    words = answered["content"]
    assert words.startswith("A is set in a.py.\n\n[subagent explore: finished after 0 tool calls")
    assert words.endswith(
        f"The SubagentStop hook `check.sh` ({home / 'settings.json'}:1) on the explore "
        "subagent's work: cite the line numbers"
    )


async def test_side_by_side_subagents_keep_their_own_calls_while_hooks_run_for_each(
    workspace: Path, model: ScriptedModelServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """A PreToolUse hook on every call lets the other task call of the answer go on while it
    runs: each subagent still knows its own task call (its calls, its SubagentStop row)."""
    home = tmp_path / "claude"
    home.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    every = [{"matcher": "*", "hooks": [{"type": "command", "command": "cat > /dev/null"}]}]
    hooks = {"PreToolUse": every, "SubagentStop": every}
    (home / "settings.json").write_text(json.dumps({"hooks": hooks}))
    (workspace / "a.py").write_text("A = 1\n")
    (workspace / "b.py").write_text("B = 2\n")

    def explorer(question: str, path: str) -> dict[str, object]:
        return {
            "match": question,
            "match_system": '"explore" subagent',
            "replies": [reply(tool("read_file", {"path": path})), reply(text(f"in {path}"))],
        }

    def task(question: str) -> dict[str, str]:
        return {"description": question, "prompt": question, "agent": "explore"}

    model.load(
        {
            "conversations": [
                explorer("where is A", "a.py"),
                explorer("where is B", "b.py"),
                {
                    "match": "find A and B",
                    "replies": [
                        reply(
                            tool("task", task("where is A"), "task_a"),
                            tool("task", task("where is B"), "task_b"),
                        ),
                        reply(text("Both found.")),
                    ],
                },
            ]
        }
    )
    listener = Recorder()

    result = await manager(workspace, model, listener).run(RunRequest("find A and B"))

    assert result.text == "Both found."
    inner = {
        f["input"]["path"]: f["parentToolUseId"]
        for f in listener.of("toolCall")
        if "parentToolUseId" in f
    }
    assert inner == {"a.py": "task_a", "b.py": "task_b"}
    stops = sorted(f["toolUseId"] for f in listener.of("hook") if f["event"] == "SubagentStop")
    assert stops == ["task_a", "task_b"]
