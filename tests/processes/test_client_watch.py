"""Watching the client's process (initialize.processId): the end of the process is noticed
through a pidfd, or by the slow check where there is none; a pid not visible here (the
server in a container) is not watched at all."""

from __future__ import annotations

import asyncio
import os
import sys

import pytest

from workspace_agent.lsp.client_watch import ProcessWatch

from tests.support.processes import invisible_pid


@pytest.fixture(params=["pidfd", "polling"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "polling":  # as on systems without pidfd (macOS, Linux < 5.3)
        monkeypatch.delattr(os, "pidfd_open", raising=False)
    elif not hasattr(os, "pidfd_open"):
        pytest.skip("no pidfd on this system")
    return str(request.param)


async def test_the_end_of_the_process_is_noticed(mode: str):
    client = await asyncio.create_subprocess_exec(
        sys.executable, "-c", "import time; time.sleep(300)"
    )
    gone = asyncio.Event()
    watch = ProcessWatch.start(client.pid, gone.set, poll_seconds=0.05)
    try:
        assert watch is not None
        await asyncio.sleep(0.2)
        assert not gone.is_set()

        client.kill()
        await client.wait()

        await asyncio.wait_for(gone.wait(), 20)
    finally:
        if watch is not None:
            watch.close()
        if client.returncode is None:
            client.kill()
            await client.wait()


async def test_a_pid_not_visible_here_is_not_watched(mode: str):
    assert ProcessWatch.start(invisible_pid(), lambda: None, poll_seconds=0.05) is None
