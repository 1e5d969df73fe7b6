"""A run that changes nothing never waits for another session's command, whatever the
order: its answer may come back before its first look at the workspace has even opened
the store (a loaded machine), and the look then finds the folder held by the command. The
run must end with its answer, not wait for that command (which may run for minutes). The
core runs in this process (the real SDK over real HTTP to the scripted model); the store's
opening is held back until the run ends, which is that order made certain."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from workspace_agent.agent.sessions import SessionManager
from workspace_agent.checkpoints.observer import CheckpointObserver
from workspace_agent.config import resolve_settings
from workspace_agent.protocol import RunRequest
from workspace_agent.testing.scripted_model import (
    ScriptedModelServer,
    reply,
    script_of,
    text,
    tool,
)

LONG_JOB = "sleep 300 & echo $! > sleep.pid; wait"


class Quiet:
    def on_event(self, session_id: str, kind: str, fields: dict[str, Any]) -> None: ...
    def on_todos(self, session_id: str, items: list[Any]) -> None: ...
    def on_changes(self, session_id: str, changes: Any) -> None: ...
    def on_context(self, session_id: str, meter: Any) -> None: ...


async def wait_until(predicate: Any, what: str) -> None:
    for _ in range(1500):
        if predicate():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


async def test_an_answer_that_comes_before_the_store_opens_does_not_wait_for_a_command(
    workspace: Path, model: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch
):
    model.load(
        script_of(reply(tool("bash", {"command": LONG_JOB})), reply(text("Nothing to change.")))
    )
    editor = {"baseUrl": model.url, "approvals": {"bash": "allow"}, "bashTimeoutSeconds": 600}
    core = SessionManager(
        Quiet(),
        root=lambda: workspace,
        settings=lambda root: resolve_settings(root, editor, {"ANTHROPIC_API_KEY": "sk-test"}),
    )
    long_job = asyncio.ensure_future(core.run(RunRequest("A long job")))
    await wait_until(lambda: (workspace / "sleep.pid").exists(), "the long job's command")
    (busy,) = core.running()

    # From here on a store opens only once a run is ending: the answer is first.
    ending = asyncio.Event()
    service = core.checkpoint_service
    open_store = service.handle

    async def opened_late(root: Path, watch: bool = False) -> Any:
        await ending.wait()
        return await open_store(root, watch)

    end_run = CheckpointObserver.end_run

    async def end_first(self: CheckpointObserver, stop: Any) -> None:
        ending.set()
        await end_run(self, stop)

    monkeypatch.setattr(service, "handle", opened_late)
    monkeypatch.setattr(CheckpointObserver, "end_run", end_first)
    try:
        other = await asyncio.wait_for(core.run(RunRequest("A question")), timeout=60)
        assert (other.stop_reason, other.text) == ("end_turn", "Nothing to change."), (
            "the run waited for the other session's command (cut off by the test's timeout)"
        )
        assert core.in_memory(busy.id) is busy and busy.busy  # the command still runs
    finally:
        core.cancel(busy.id)
        stopped = await asyncio.wait_for(long_job, timeout=60)
    assert stopped.stop_reason == "cancelled"
