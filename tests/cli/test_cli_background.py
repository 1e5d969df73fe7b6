"""A background command in `workspace-agent run` (issue 46): its output comes line by line
prefixed by its id, with the URL of the port it opens; the run's end stops it and says so
in one line, and nothing of it is left."""

from __future__ import annotations

import contextlib
import socket
import subprocess
from pathlib import Path

import psutil

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.cli import CLI, cli_env


def test_run_shows_a_background_command_and_stops_it_at_the_end(
    model: ScriptedModelServer, workspace: Path, sandbox_works: None
):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = f"python3 -m http.server {port} --bind 127.0.0.1"
    model.load(
        script_of(
            reply(tool("bash", {"command": command, "run_in_background": True})),
            reply(text("Served.")),
        )
    )
    done = subprocess.run(
        [*CLI, "run", "Serve the folder", "--workspace", str(workspace)],
        env=cli_env(model),
        capture_output=True,
        text=True,
        timeout=90,
    )

    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert f"  [b1] Serving HTTP on 127.0.0.1 port {port} (http://127.0.0.1:{port}/) ..." in lines
    assert (
        f"  ◆ b1 listens on port {port}: http://localhost:{port} (a host port that leads into "
        "the sandbox)"
    ) in lines
    assert lines[-1] == "stopped 1 background command as the run ended: b1"
    assert f"  ◆ b1 `{command}` was stopped when the headless run ended (exit status 143)" in lines
    left = []
    for proc in psutil.process_iter(["cmdline"]):
        with contextlib.suppress(psutil.Error):
            if f"http.server {port}" in " ".join(proc.info["cmdline"] or []):
                left.append(proc.pid)
    assert left == []
