"""Every way the language server ends kills the commands it is running first.

Editors stop a server in many ways: `shutdown` + `exit`, `exit` alone, SIGTERM when that is
slow, closing its stdin, or simply going away (the LSP rule: a server whose
`initialize.processId` is gone exits). A terminal sends SIGHUP or SIGINT. Commands run in
process groups of their own, so none of these reaches them by itself: each test starts its
own server process (so that it can signal it), has the agent run `sleep 300` through the
bash tool, ends the server one way and checks the server is gone and the sleep with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
import pytest
import pytest_lsp
from lsprotocol import types

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient
from tests.support.lsp import run, wait_for
from tests.support.processes import SLEEPER, gone, host_pid, invisible_pid
from tests.support.server import SERVER_COLD, SERVER_ENV, default_signals

EXIT_DEADLINE = 20.0
"""Seconds a server gets to end (generous: a loaded 2-core CI machine)."""
START_DEADLINE = 30.0
"""Seconds to reach the running command: a fresh server's first run loads the SDK."""


@dataclass
class Server:
    client: RecordingClient
    process: asyncio.subprocess.Process


@pytest.fixture
async def start_server(workspace: Path, model: ScriptedModelServer) -> AsyncIterator[Any]:
    """Start a server process of the test's own; whatever a failing test leaves behind
    (the server, the sleep) is killed afterwards."""
    started: list[Server] = []

    async def start(process_id: int | None = None) -> Server:
        client = RecordingClient()
        await client.start_io(*SERVER_COLD, env=SERVER_ENV, preexec_fn=default_signals)
        assert client._server is not None
        server = Server(client, client._server)
        started.append(server)
        await client.initialize_session(
            types.InitializeParams(
                process_id=process_id,
                capabilities=pytest_lsp.client_capabilities("visual-studio-code"),
                root_uri=workspace.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
                initialization_options={
                    "workspaceAgent": {"baseUrl": model.url, "approvals": {"bash": "allow"}}
                },
            )
        )
        return server

    yield start
    for server in started:
        if server.process.returncode is None:
            server.process.kill()
            await server.process.wait()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(server.client.stop(), 10)
    pid_file = workspace / "sleep.pid"
    if pid_file.exists() and pid_file.read_text().strip():
        left = host_pid(int(pid_file.read_text()), workspace)
        if left is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(os.getpgid(left), signal.SIGKILL)


async def running_a_command(server: Server, workspace: Path, model: ScriptedModelServer) -> int:
    """Have the agent start `sleep 300` (in its own process group); return the sleep's pid."""
    model.load(script_of(reply(tool("bash", {"command": SLEEPER}))))
    asyncio.ensure_future(run(server.client, "Wait")).add_done_callback(
        lambda f: f.cancelled() or f.exception()  # the server ends before it answers
    )
    pid_file = workspace / "sleep.pid"
    await wait_for(
        lambda: pid_file.exists() and pid_file.read_text().strip(),
        START_DEADLINE,
        "the command to start",
    )
    pid = host_pid(int(pid_file.read_text()), workspace)
    assert pid is not None and not gone(pid)
    return pid


async def ends_and_takes_the_command_along(server: Server, sleep_pid: int) -> int:
    """The server's exit status, once it has exited and the sleep is gone."""
    status = await asyncio.wait_for(server.process.wait(), EXIT_DEADLINE)
    await wait_for(lambda: gone(sleep_pid), EXIT_DEADLINE, "the command to be killed")
    return status


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=str)
async def test_a_signal_kills_the_running_command_then_the_server(
    start_server: Any, workspace: Path, model: ScriptedModelServer, sig: signal.Signals
):
    server = await start_server()
    sleep_pid = await running_a_command(server, workspace, model)

    server.process.send_signal(sig)

    assert await ends_and_takes_the_command_along(server, sleep_pid) == 128 + sig


async def test_exit_without_shutdown_kills_the_running_command(
    start_server: Any, workspace: Path, model: ScriptedModelServer
):
    server = await start_server()
    sleep_pid = await running_a_command(server, workspace, model)

    server.client.exit(None)

    assert await ends_and_takes_the_command_along(server, sleep_pid) == 1


async def test_shutdown_stops_the_running_command_and_exit_ends_with_0(
    start_server: Any, workspace: Path, model: ScriptedModelServer
):
    server = await start_server()
    sleep_pid = await running_a_command(server, workspace, model)

    await server.client.shutdown_async(None)  # cancels the run, which kills its command
    await wait_for(lambda: gone(sleep_pid), EXIT_DEADLINE, "the command to be killed")
    assert server.process.returncode is None
    server.client.exit(None)

    assert await ends_and_takes_the_command_along(server, sleep_pid) == 0


async def test_stdin_closing_kills_the_running_command(
    start_server: Any, workspace: Path, model: ScriptedModelServer
):
    server = await start_server()
    sleep_pid = await running_a_command(server, workspace, model)

    assert server.process.stdin is not None
    server.process.stdin.close()  # the client is gone without a word

    assert await ends_and_takes_the_command_along(server, sleep_pid) == 1


@pytest.mark.parametrize("delay", [0.0, 0.002, 0.01, 0.03])
async def test_stdin_closing_while_the_command_starts_leaves_nothing_running(
    start_server: Any, workspace: Path, model: ScriptedModelServer, delay: float
):
    """The client goes away while the server is starting the command (between the bash
    tool call and the spawn's completion): whether it started or not, nothing survives."""
    server = await start_server()
    model.load(script_of(reply(tool("bash", {"command": SLEEPER}))))
    asyncio.ensure_future(run(server.client, "Wait")).add_done_callback(
        lambda f: f.cancelled() or f.exception()
    )
    await wait_for(
        lambda: any(e["kind"] == "toolCall" for e in server.client.events),
        START_DEADLINE,
        "the bash tool call",
    )
    await asyncio.sleep(delay)
    assert server.process.stdin is not None
    server.process.stdin.close()

    assert await asyncio.wait_for(server.process.wait(), EXIT_DEADLINE) == 1
    try:
        await wait_for(
            lambda: not running_in(workspace), EXIT_DEADLINE, "the command's processes to be gone"
        )
    except AssertionError:
        left = [psutil.Process(pid) for pid in running_in(workspace)]
        raise AssertionError(
            "left running: "
            + "; ".join(
                f"{p.pid} ppid {p.ppid()} pgid {os.getpgid(p.pid)} {p.cmdline()}" for p in left
            )
        ) from None


def running_in(folder: Path) -> list[int]:
    """Live processes whose working folder is `folder` (the command's shell and sleep)."""
    found = []
    for proc in psutil.process_iter(["pid", "cwd", "status"]):
        with contextlib.suppress(psutil.Error):
            if proc.info["cwd"] == str(folder) and proc.info["status"] != psutil.STATUS_ZOMBIE:
                found.append(proc.info["pid"])
    return found


async def test_the_server_exits_when_the_client_process_is_gone(
    start_server: Any, workspace: Path, model: ScriptedModelServer
):
    editor = await asyncio.create_subprocess_exec(
        sys.executable, "-c", "import time; time.sleep(300)"
    )
    try:
        server = await start_server(process_id=editor.pid)
        sleep_pid = await running_a_command(server, workspace, model)
        assert server.process.returncode is None

        editor.kill()
        await editor.wait()

        assert await ends_and_takes_the_command_along(server, sleep_pid) == 1
    finally:
        if editor.returncode is None:
            editor.kill()
            await editor.wait()


def catches(pid: int, sig: signal.Signals) -> bool:
    """Whether process `pid` has a handler for `sig` (its SigCgt mask in /proc)."""
    status = Path(f"/proc/{pid}/status").read_text()
    caught = next(line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught, 16) & (1 << (sig - 1)))


async def test_a_signal_before_initialize_ends_the_server_at_once():
    """Before `initialize` no command can run, but the server must still go (pygls alone
    would wait for its stdin reader thread on Ctrl-C, that is, forever)."""
    server = await asyncio.create_subprocess_exec(
        *SERVER_COLD,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=SERVER_ENV,
        preexec_fn=default_signals,
    )
    try:
        # Python catches SIGINT from the start; SIGHUP only once the server set up its own.
        await wait_for(
            lambda: catches(server.pid, signal.SIGHUP), START_DEADLINE, "the signal handlers"
        )
        server.send_signal(signal.SIGINT)

        assert await asyncio.wait_for(server.wait(), EXIT_DEADLINE) == 128 + signal.SIGINT
    finally:
        if server.returncode is None:
            server.kill()
            await server.wait()


async def test_a_client_pid_that_is_not_visible_here_does_not_end_the_server(
    start_server: Any, model: ScriptedModelServer
):
    """A server in a container cannot see the editor's pid: it keeps serving (stdin closing
    still ends it), unlike servers that exit a few seconds after every start."""
    server = await start_server(process_id=invisible_pid())
    model.load(script_of(reply(text("Still here."))))

    assert (await run(server.client, "Are you there?"))["text"] == "Still here."
    assert server.process.returncode is None
    await server.client.shutdown_session()
    assert server.process.returncode == 0
