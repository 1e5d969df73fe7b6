"""Background commands (bash's `run_in_background`, issue 46) in runs of a real session
manager against the scripted model, outside the sandbox (tests/sandbox has them in it):
a watcher's writes are the step's that started it, the ninth command is refused with the
list, a compaction keeps them running and listed, the model hears of an end once; and
bash_stop leaves nothing of the group, SIGKILL after the grace when SIGTERM is ignored."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from workspace_agent.agent.sessions import SessionManager
from workspace_agent.config import resolve_settings
from workspace_agent.protocol import RevertParams, RunRequest
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool
from workspace_agent.tools import background, background_command
from workspace_agent.tools.background import BackgroundCommands
from workspace_agent.tools.process_groups import descendants

WATCHER = (
    "mkdir -p dist gen; while true; do date +%s%N | tee dist/out.txt > gen/stamp.txt; "
    "sleep 0.1; done"
)
"""dist/ is left out of checkpoints by default: gen/stamp.txt is what the watcher's step
must keep (and a revert of a later step leave alone)."""
ENDS_ON_CUE = "until [ -e go ]; do sleep 0.05; done; echo bye; exit 3"
"""A command that ends when the test says so (the file `go`), not on a timer."""


class Events:
    def __init__(self) -> None:
        self.seen: list[tuple[str, dict[str, Any]]] = []

    def on_event(self, session_id: str, kind: str, fields: dict[str, Any]) -> None:
        self.seen.append((kind, fields))

    def on_todos(self, session_id: str, items: Any) -> None: ...

    def on_context(self, session_id: str, meter: Any) -> None: ...

    def on_changes(self, session_id: str, changes: Any) -> None: ...


def manager(workspace: Path, model: ScriptedModelServer, events: Events) -> SessionManager:
    settings = {"baseUrl": model.url, "approvals": {"bash": "allow"}, "sandbox": {"mode": "off"}}
    return SessionManager(
        events,
        root=lambda: workspace,
        settings=lambda root: resolve_settings(root, settings, {"ANTHROPIC_API_KEY": "k"}),
    )


def todo(*items: tuple[str, str, str]) -> dict[str, Any]:
    return tool("todo", {"items": [{"id": i, "text": t, "status": s} for i, t, s in items]})


def in_background(command: str) -> dict[str, Any]:
    return tool("bash", {"command": command, "run_in_background": True})


async def until(condition: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    with open(f"/proc/{pid}/stat") as stat:  # a zombie not yet reaped is gone too
        return stat.read().rsplit(")", 1)[1].split()[0] == "Z"


async def test_a_watchers_writes_are_the_step_that_started_it(
    workspace: Path, model: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(background, "FIRST_LOOK_SECONDS", 0.3)
    (workspace / "src").mkdir()
    (workspace / "src" / "a.py").write_text("x = 1\n")
    model.load(
        script_of(
            reply(todo(("1", "Start the watcher", "in_progress"), ("2", "Edit a", "pending"))),
            reply(in_background(WATCHER)),
            reply(todo(("1", "Start the watcher", "completed"), ("2", "Edit a", "in_progress"))),
            reply(tool("edit_file", {"path": "src/a.py", "old_text": "1", "new_text": "2"})),
            reply(tool("bash", {"command": "sleep 0.4"})),  # the watcher writes meanwhile
            reply(text("done")),
        )
    )
    agent = manager(workspace, model, Events())
    result = await agent.run(RunRequest("go"))
    session = result.session_id
    try:
        assert result.stop_reason == "end_turn"
        [started] = agent.background.running(session)  # it outlived the run
        changes = await agent.checkpoints(session).changes()
        files = {item["todoId"]: [f["path"] for f in item["files"]] for item in changes["items"]}
        assert files["2"] == ["src/a.py"]  # exactly its own file
        assert files["1"] == ["gen/stamp.txt"]

        # Before the step that started it, its writes go back too (deleted, or left alone
        # when it wrote again since the last look); before the next, not even considered.
        whole = await agent.checkpoints(session).revert(
            RevertParams(session, todo_id="1", dry_run=True)
        )
        assert "gen/stamp.txt" in [*whole["deleted"], *(s["path"] for s in whole["skipped"])]
        outcome = await agent.checkpoints(session).revert(RevertParams(session, todo_id="2"))
        assert (outcome["restored"], outcome["deleted"], outcome["skipped"]) == (
            ["src/a.py"],
            [],
            [],
        )
        assert (workspace / "src" / "a.py").read_text() == "x = 1\n"
        assert (workspace / "dist" / "out.txt").exists()
        assert (workspace / "gen" / "stamp.txt").exists()
        assert started.running  # a revert does not stop it either
    finally:
        await agent.background.stop(session)


async def test_the_ninth_is_refused_a_compaction_keeps_them_and_an_end_is_told_once(
    workspace: Path, model: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(background, "FIRST_LOOK_SECONDS", 0.05)
    seven = [in_background(f"sleep 60 # {n}") for n in range(1, 8)]
    model.load(
        script_of(
            reply(*seven, in_background(ENDS_ON_CUE)),
            reply(in_background("sleep 60 # the ninth")),
            reply(text("started")),
            reply(tool("bash_output", {"id": "b1"})),
            reply(text("still going")),
        )
    )
    events = Events()
    agent = manager(workspace, model, events)
    first = await agent.run(RunRequest("start them"))
    session = first.session_id
    try:
        refused = model.requests[2].body["messages"][-1]["content"][0]
        assert refused["is_error"] is True
        assert refused["content"].startswith(
            "not started: 8 background commands are running in this session, the most at "
            "once; stop one with bash_stop first. Running: b1 `sleep 60 # 1` (running for "
        )
        assert f"b8 `{ENDS_ON_CUE}`" in refused["content"]
        # Offered once the session has one (not before: no bytes until then).
        tools = [[t["name"] for t in r.body["tools"]] for r in model.requests]
        assert "bash_output" not in tools[0] and {"bash_output", "bash_stop"} <= set(tools[1])

        b8 = agent.background.find(session, "b8")
        assert b8.running
        (workspace / "go").touch()  # it ends now, between the runs
        await until(lambda: not b8.running)
        assert (b8.state, b8.exit_code) == ("exited", 3)
        state = agent.get(session)
        state.last_input_tokens = 190_000  # the next request compacts first
        state.messages[:0] = padding()
        second = await agent.run(RunRequest("and now?", session))
        assert second.stop_reason == "end_turn"

        exit_line = f"background command b8 `{ENDS_ON_CUE}` exited with status 3"
        told = [json.dumps(r.body["messages"]).count(exit_line) for r in model.requests]
        assert told == [0, 0, 0, 1, 1]  # in the first request after it ended, and kept once
        tail = model.requests[3].body["messages"][-1]["content"][-1]["text"]
        assert 'its last lines: "bye"' in tail
        assert "[background commands still running: b1 `sleep 60 # 1` (running for" in tail
        assert any(kind == "notice" and "Compacted" in f["message"] for kind, f in events.seen)
        listed = agent.background.listing(session)["commands"]
        assert [c["state"] for c in listed] == ["running"] * 7 + ["exited"]
        assert [kind for kind, f in events.seen if kind == "background" and f["id"] == "b8"] == [
            "background",
            "background",
        ]  # started, ended
    finally:
        await agent.background.stop(session)
    # After a reload (another server on the workspace): read back from their files.
    again = BackgroundCommands(lambda: workspace)
    states = [(c["id"], c["state"], c["exitCode"]) for c in again.listing(session)["commands"]]
    assert states == [(f"b{n}", "stopped", 143) for n in range(1, 8)] + [("b8", "exited", 3)]
    assert again.read(session, "b8", 0)["text"] == "bye\n"
    assert again.find(session, "b1").note == "stopped by the user"


async def test_bash_stop_ends_the_group_and_kills_what_ignores_sigterm(
    workspace: Path, model: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(background, "FIRST_LOOK_SECONDS", 0.3)
    monkeypatch.setattr(background_command, "STOP_GRACE_SECONDS", 0.5)
    model.load(
        script_of(
            reply(in_background("trap '' TERM; sleep 60 & sleep 61; wait")),
            reply(tool("bash_stop", {"id": "b1"})),
            reply(tool("bash_output", {"id": "b1"})),
            reply(text("stopped")),
        )
    )
    agent = manager(workspace, model, Events())
    pids: list[int] = []

    async def watch() -> None:
        await until(lambda: bool(agent.background.running(first_session())))
        [found] = agent.background.running(first_session())
        assert found.proc is not None
        await until(lambda: len(descendants(found.proc.pid)) >= 3)  # the shells, two sleeps
        pids.extend([found.proc.pid, *descendants(found.proc.pid)])

    def first_session() -> str:
        return next(iter(agent.background._sessions), "")

    watching = asyncio.ensure_future(watch())
    result = await agent.run(RunRequest("stop it"))
    await watching
    stopped = model.requests[2].body["messages"][-1]["content"][0]["content"]
    assert stopped.startswith("b1 stopped after ") and "(exit status 137)" in stopped
    assert all(gone(pid) for pid in pids)
    output = model.requests[3].body["messages"][-1]["content"][0]["content"]
    assert output.startswith("[background command b1 ")
    assert "was stopped by bash_stop (exit status 137)" in output
    assert agent.background.find(result.session_id, "b1").state == "stopped"


def padding() -> list[dict[str, Any]]:
    """An earlier conversation long enough for a compaction to shorten."""
    messages: list[dict[str, Any]] = []
    for n in range(10):
        messages.append({"role": "user", "content": [{"type": "text", "text": f"ask {n}"}]})
        messages.append(
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": f"p{n}", "name": "bash", "input": {}}],
            }
        )
        messages.append(
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"p{n}", "content": "x" * 9000}],
            }
        )
        messages.append({"role": "assistant", "content": [{"type": "text", "text": "ok"}]})
    return messages


async def test_a_cancelled_run_leaves_its_background_command_running(
    workspace: Path, model: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(background, "FIRST_LOOK_SECONDS", 0.05)
    model.load(
        script_of(
            reply(in_background("sleep 60")),
            reply(tool("bash", {"command": "sleep 60"})),
            reply(text("never")),
        )
    )
    agent = manager(workspace, model, Events())
    running = asyncio.ensure_future(agent.run(RunRequest("go")))
    await until(lambda: len(model.requests) == 2)  # the foreground sleep runs
    [session] = list(agent.background._sessions)
    assert agent.cancel(session)
    result = await running
    try:
        assert result.stop_reason == "cancelled"
        [left] = agent.background.running(session)  # Cancel stops the run, not what it started
        assert left.id == "b1" and left.proc is not None and not gone(left.proc.pid)
    finally:
        await agent.background.stop(session)
