"""A background command through the real server (issue 46), end to end over LSP: the run
that starts a dev server in the sandbox ends while the server goes on serving the host's
browser through its forward; the editor hears its state (`background` events, the
starting call's `background` id), lists it, reads its output, is refused an unknown one;
the server's shutdown stops it and nothing of it is left after exit."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import urllib.request
from pathlib import Path

import psutil
import pytest
from pygls.exceptions import JsonRpcException

from workspace_agent import protocol as p
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import start_server, start_session
from tests.support.lsp import request, run, wait_for
from tests.support.processes import gone


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return str(answer.read().decode())


def serving(port: int) -> list[int]:
    """Live processes of the dev server on `port` (in or out of a sandbox)."""
    found = []
    for proc in psutil.process_iter(["pid", "cmdline", "status"]):
        with contextlib.suppress(psutil.Error):
            line = " ".join(proc.info["cmdline"] or [])
            if f"http.server {port}" in line and proc.info["status"] != psutil.STATUS_ZOMBIE:
                found.append(proc.info["pid"])
    return found


async def test_a_dev_server_outlives_its_run_is_shown_and_ends_with_the_server(
    workspace: Path, model: ScriptedModelServer, sandbox_works: None
):
    (workspace / "hello.txt").write_text("hello\n")
    port = free_port()
    command = f"python3 -m http.server {port} --bind 127.0.0.1"
    model.load(
        script_of(
            reply(tool("bash", {"command": command, "run_in_background": True})),
            reply(text("It runs.")),
        )
    )
    client = await start_server()
    pids: list[int] = []
    try:
        await start_session(client, workspace, model)
        result = await run(client, "Start the dev server")
        session = result["sessionId"]
        assert result["stopReason"] == "end_turn"

        [started] = client.events_of(p.EVENT_TOOL_RESULT)
        assert started["background"] == "b1" and started["output"].startswith("id: b1\n")
        await wait_for(lambda: any(e["ports"] for e in client.events_of(p.EVENT_BACKGROUND)))
        shown = client.events_of(p.EVENT_BACKGROUND)[-1]
        assert (shown["id"], shown["state"], shown["toolUseId"]) == (
            "b1",
            "running",
            started["toolUseId"],
        )
        assert shown["ports"] == [
            {"port": port, "hostPort": port, "url": f"http://localhost:{port}", "forwarded": True}
        ]

        # The run is over; the server still serves the host.
        listing = await asyncio.to_thread(get, f"http://127.0.0.1:{port}/")
        assert "Directory listing for /" in listing and "hello.txt" in listing
        pids = serving(port)
        assert pids

        listed = await request(client, p.BACKGROUND_REQUEST, {"sessionId": session})
        assert [(c["id"], c["state"], c["command"]) for c in listed["commands"]] == [
            ("b1", "running", command)
        ]
        params = {"sessionId": session, "id": "b1"}
        await wait_for(
            lambda: any("GET /" in e["text"] for e in client.events_of(p.EVENT_BACKGROUND_OUTPUT))
        )
        output = await request(client, p.BACKGROUND_OUTPUT_REQUEST, params)
        assert f"Serving HTTP on 127.0.0.1 port {port}" in output["text"]
        assert '"GET / HTTP/1.1" 200' in output["text"]
        assert (output["state"], output["exitCode"], output["dropped"]) == ("running", None, 0)
        later = await request(
            client, p.BACKGROUND_OUTPUT_REQUEST, {**params, "offset": output["offset"]}
        )
        assert later["text"] == ""
        with pytest.raises(JsonRpcException, match="there is no background command 'b9'"):
            await request(client, p.BACKGROUND_OUTPUT_REQUEST, {**params, "id": "b9"})

        await client.shutdown_async(None)  # stops it: SIGTERM, then SIGKILL
        await wait_for(lambda: all(gone(pid) for pid in pids), 20, "the dev server to stop")
        ended = client.events_of(p.EVENT_BACKGROUND)[-1]
        assert (ended["state"], ended["ports"]) == ("stopped", [])
        assert ended["note"] == "stopped when the server stopped"
        client.exit(None)
        assert client._server is not None
        assert await asyncio.wait_for(client._server.wait(), 20) == 0
        assert serving(port) == []
        with socket.socket() as probe:
            assert probe.connect_ex(("127.0.0.1", port)) != 0
    finally:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.stop(), 10)
