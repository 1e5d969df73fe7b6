"""Nothing a background command started survives the server killed outright (issue 46):
SIGKILL runs none of the server's ways out, so the kernel does it, for a command in the
sandbox (bwrap's --die-with-parent) and for one outside it (the parent-death signal of
the small shell it runs under, which kills its whole group)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import start_server, start_session
from tests.support.lsp import push_settings, run, wait_for
from tests.support.processes import gone, host_pid


def sleeper(name: str) -> dict[str, object]:
    """A dev server (its port makes bash answer at once) that writes its pid down."""
    command = f"python3 -m http.server 0 --bind 127.0.0.1 & echo $! > {name}.pid; wait"
    return tool("bash", {"command": command, "run_in_background": True})


async def started(workspace: Path, name: str) -> int:
    pid_file = workspace / f"{name}.pid"
    await wait_for(lambda: pid_file.exists() and pid_file.read_text().strip(), 30, name)
    pid = host_pid(int(pid_file.read_text()), workspace)
    assert pid is not None and not gone(pid)
    return pid


async def test_the_server_killed_outright_leaves_no_background_command(
    workspace: Path, model: ScriptedModelServer, sandbox_works: None
):
    model.load(
        script_of(
            reply(sleeper("in-sandbox")),
            reply(text("one")),
            reply(sleeper("on-host")),
            reply(text("two")),
        )
    )
    client = await start_server()
    pids: list[int] = []
    try:
        await start_session(client, workspace, model)
        first = await run(client, "Start one in the sandbox")
        pids.append(await started(workspace, "in-sandbox"))
        await push_settings(client, model, {"sandbox": {"mode": "off"}})
        await run(client, "And one outside it", first["sessionId"])
        pids.append(await started(workspace, "on-host"))
        [inside, outside] = client.events_of("toolResult")
        assert (inside["sandboxed"], outside["sandboxed"]) == (True, False)

        assert client._server is not None
        client._server.kill()  # SIGKILL: no handler, no atexit, nothing of the server runs
        await asyncio.wait_for(client._server.wait(), 20)

        await wait_for(lambda: all(gone(pid) for pid in pids), 20, "the commands to be gone")
    finally:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.stop(), 10)
