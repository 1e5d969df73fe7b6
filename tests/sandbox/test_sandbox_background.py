"""A background command in the real sandbox, through the real bash tool (issue 46): a dev
server started with `run_in_background` answers at once with its id and its port while it
goes on running, the host reaches it through the forward on 127.0.0.1, bash_output gives
only what came since, and bash_stop leaves nothing of it on the host."""

from __future__ import annotations

import asyncio
import shutil
import socket
import tempfile
import urllib.request
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import psutil
import pytest

from workspace_agent.config import AgentSettings
from workspace_agent.guard.approvals import Approvals
from workspace_agent.shared.todo import TodoList
from workspace_agent.tools.background import BackgroundCommands
from workspace_agent.tools.background_tools import BASH_OUTPUT, BASH_STOP
from workspace_agent.tools.base import ToolContext, ToolResult
from workspace_agent.tools.bash import BASH
from workspace_agent.tools.process_groups import descendants

from tests.support.processes import gone


@pytest.fixture
def ws(sandbox_works: None) -> Iterator[Path]:
    base = Path(tempfile.mkdtemp(prefix="wa-background-", dir="/var/tmp"))
    (base / "hello.txt").write_text("hello\n")
    yield base
    shutil.rmtree(base, ignore_errors=True)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return str(answer.read().decode())


async def test_a_dev_server_in_the_sandbox_is_reached_from_the_host_and_stopped(ws: Path):
    commands = BackgroundCommands(lambda: ws)
    settings = replace(AgentSettings(), sandbox_mode="required")
    ctx = ToolContext(
        ws,
        settings,
        TodoList(),
        Approvals({"bash": "allow"}, None),
        session_id="bg-sandbox",
        background=commands,
    )
    port = free_port()
    command = f"python3 -m http.server {port} --bind 127.0.0.1"
    answer = await BASH.handler(ctx, {"command": command, "run_in_background": True})

    assert isinstance(answer, ToolResult) and answer.sandboxed is True
    [running] = commands.running("bg-sandbox")  # it answered while the server runs
    assert answer.text.startswith("id: b1\n") and answer.background == "b1"
    assert f"Serving HTTP on 127.0.0.1 port {port}" in answer.text
    assert f"[listening on port {port} in the sandbox; open http://localhost:{port} " in answer.text
    assert running.ports[port].forwarded and running.ports[port].host_port == port
    assert running.proc is not None
    group = [running.proc.pid, *descendants(running.proc.pid)]

    listing = await asyncio.to_thread(get, f"http://127.0.0.1:{port}/")
    assert "Directory listing for /" in listing and "hello.txt" in listing
    listeners = [c.laddr for c in psutil.net_connections("tcp") if c.status == "LISTEN"]
    assert all(address.ip == "127.0.0.1" for address in listeners if address.port == port)

    for _ in range(200):  # the request's log line on its way through the pipe
        if '"GET / HTTP/1.1" 200' in running.log.read(0, 100_000)[0]:
            break
        await asyncio.sleep(0.05)
    new = await BASH_OUTPUT.handler(ctx, {"id": "b1"})
    assert '"GET / HTTP/1.1" 200' in new and "Serving HTTP" not in new
    assert new.startswith(f"[b1 `{command}` is running (for ")
    assert (await BASH_OUTPUT.handler(ctx, {"id": "b1"})).splitlines()[1] == "(no new output)"

    stopped = await BASH_STOP.handler(ctx, {"id": "b1"})
    assert stopped.startswith("b1 stopped after ")
    assert all(gone(pid) for pid in group), [p for p in group if not gone(p)]
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0  # the forward is gone with it
