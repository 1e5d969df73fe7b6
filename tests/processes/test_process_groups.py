"""The registry of the commands' process groups: whatever is running or starting when the
program ends gets killed, children included, and nothing starts afterwards."""

from __future__ import annotations

import asyncio
import inspect
import os
import signal
from collections.abc import AsyncIterator, Coroutine
from typing import Any

import pytest

from workspace_agent.shared.errors import ToolError
from workspace_agent.tools.process_groups import ProcessGroups

from tests.support.lsp import wait_for
from tests.support.processes import gone

SHELL_WITH_A_CHILD = "sleep 300 & echo $!; wait"


def spawn(command: str) -> Coroutine[Any, Any, asyncio.subprocess.Process]:
    return asyncio.create_subprocess_exec(
        "/bin/bash", "-c", command, stdout=asyncio.subprocess.PIPE, start_new_session=True
    )


@pytest.fixture
async def groups() -> AsyncIterator[ProcessGroups]:
    """A registry of the test's own; anything a failing test leaves running is killed."""
    registry = ProcessGroups()
    yield registry
    registry.kill_all()


async def child_pid(proc: asyncio.subprocess.Process) -> int:
    assert proc.stdout is not None
    return int(await asyncio.wait_for(proc.stdout.readline(), 20))


async def test_kill_all_kills_each_command_with_its_children(groups: ProcessGroups):
    first = await groups.start(spawn(SHELL_WITH_A_CHILD))
    second = await groups.start(spawn(SHELL_WITH_A_CHILD))
    children = [await child_pid(first), await child_pid(second)]

    assert groups.kill_all() == 2

    assert await asyncio.wait_for(first.wait(), 20) == -signal.SIGKILL
    assert await asyncio.wait_for(second.wait(), 20) == -signal.SIGKILL
    await wait_for(lambda: all(gone(pid) for pid in children), 20, "the children to die")


async def test_nothing_starts_once_the_program_is_ending(groups: ProcessGroups):
    groups.kill_all()
    spawning = spawn("echo never")

    with pytest.raises(ToolError, match="not started: the program is shutting down"):
        await groups.start(spawning)
    assert inspect.getcoroutinestate(spawning) == inspect.CORO_CLOSED  # never run


async def test_a_command_starting_while_the_program_ends_is_killed_too(groups: ProcessGroups):
    gate = asyncio.Event()

    async def slow_spawn() -> asyncio.subprocess.Process:
        await gate.wait()  # the fork has not returned yet when the end begins
        return await spawn(SHELL_WITH_A_CHILD)

    starting = asyncio.ensure_future(groups.start(slow_spawn()))
    await asyncio.sleep(0)
    ending = asyncio.ensure_future(groups.kill_all_and_settle(timeout=20))
    await asyncio.sleep(0)
    assert not ending.done()  # it waits for the start under way
    gate.set()

    proc = await starting
    await ending
    assert await asyncio.wait_for(proc.wait(), 20) == -signal.SIGKILL


async def test_a_finished_command_is_no_longer_the_registrys_to_kill(groups: ProcessGroups):
    proc = await groups.start(spawn(SHELL_WITH_A_CHILD))
    groups.finished(proc.pid)
    try:
        assert groups.kill_all() == 0
        assert proc.returncode is None and not gone(proc.pid)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()


async def test_kill_all_reaches_a_child_in_a_session_of_its_own(groups: ProcessGroups):
    """As bwrap's `--new-session` leaves a sandboxed command: killing the leader's group
    alone misses it (its `--die-with-parent` comes too late when the leader dies at once)."""
    proc = await groups.start(spawn("setsid sleep 300 & echo $!; wait"))
    loner = await child_pid(proc)
    await wait_for(lambda: os.getpgid(loner) == loner, 10, "the child's own session")

    assert groups.kill_all() == 1

    await wait_for(lambda: gone(loner), 10, "the child in its own session to be killed")
    await proc.wait()
