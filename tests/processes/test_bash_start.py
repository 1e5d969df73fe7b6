"""A run cancelled while its command is still starting leaves no process behind."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from workspace_agent.config import AgentSettings
from workspace_agent.guard.approvals import Approvals
from workspace_agent.shared.todo import TodoList
from workspace_agent.tools.base import ToolContext
from workspace_agent.tools.bash import BASH

from tests.support.lsp import wait_for
from tests.support.processes import SLEEPER, gone, sleeping_pid


async def test_a_cancel_while_the_command_starts_kills_its_process_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    real_start = asyncio.create_subprocess_exec

    async def slow_start(*args: Any, **kwargs: Any) -> asyncio.subprocess.Process:
        """The command runs, but asyncio has not handed it over yet (pipes connecting on a
        busy machine): the window in which a cancel used to leave its children behind."""
        proc = await real_start(*args, **kwargs)
        await asyncio.sleep(0.5)
        return proc

    monkeypatch.setattr(asyncio, "create_subprocess_exec", slow_start)
    ctx = ToolContext(
        tmp_path, AgentSettings(), TodoList(), Approvals({"bash": "allow", "write": "allow"})
    )
    running = asyncio.ensure_future(BASH.handler(ctx, {"command": SLEEPER}))
    pid = await sleeping_pid(tmp_path)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    await wait_for(lambda: gone(pid), 5, "the sleep to be killed")
