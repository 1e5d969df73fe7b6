"""MCP from the command line, as a user runs it: a workspace's `.mcp.json` is a candidate
only (its command never runs without `--mcp NAME` or the user's recorded trust, and a
changed argument is not trusted), `workspace-agent mcp list` shows the states, and a run
with no server configured never imports the SDK."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from workspace_agent.mcp.config import parse_document
from workspace_agent.mcp.sources import located
from workspace_agent.mcp.trust import TrustStore
from workspace_agent.testing.scripted_model import (
    ScriptedModelServer,
    reply,
    script_of,
    text,
    tool,
)

from tests.support.cli import CLI, cli_env
from tests.support.mcp import FILESYSTEM, GIT, TIME, require_servers, write_user_config

# Tests that start the real MCP servers share one pytest-xdist worker: some count those
# servers' processes machine-wide.
pytestmark = pytest.mark.xdist_group("mcp-servers")


def marker_config(workspace: Path, marker: str) -> dict:
    return {"mcpServers": {"marker": {"command": "sh", "args": ["-c", f"touch {marker}"]}}}


def run_cli(
    model: ScriptedModelServer,
    workspace: Path,
    user_dir: Path,
    *extra: str,
    until: str | None = None,
):
    """A headless run that lasts until the file `until` is there (a server that should start
    has started; at most 20 s), else a few seconds: time enough for a server to start."""
    wait = (
        f"for i in $(seq 200); do [ -e {until} ] && break; sleep 0.1; done" if until else "sleep 3"
    )
    model.load(script_of(reply(tool("bash", {"command": wait})), reply(text("Done."))))
    return subprocess.run(
        [*CLI, "run", "hello", "--workspace", str(workspace), "--yes", *extra],
        env=cli_env(model, WORKSPACE_AGENT_CONFIG_DIR=str(user_dir)),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_workspace_server_never_starts_headless_without_being_named(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path
):
    user_dir = tmp_path / "user"
    (workspace / ".mcp.json").write_text(json.dumps(marker_config(workspace, "MARK")))

    done = run_cli(model, workspace, user_dir)

    assert done.returncode == 0, done.stderr
    assert not (workspace / "MARK").exists()
    assert "marker not started" in done.stdout and "only with --mcp marker" in done.stdout
    assert not (user_dir / "mcp-trust.json").exists()  # headless records no trust

    named = run_cli(model, workspace, user_dir, "--mcp", "marker", until="MARK")
    assert named.returncode == 0, named.stderr
    assert (workspace / "MARK").exists()  # named: it ran (and, being `touch`, failed)


def test_recorded_trust_is_for_the_exact_config(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path
):
    user_dir = tmp_path / "user"
    config = marker_config(workspace, "MARK")
    (workspace / ".mcp.json").write_text(json.dumps(config))
    (server,) = parse_document(
        config, source="workspace", origin=".mcp.json", root=workspace
    ).servers
    # as the editor records a "Trust" answer: for the config it showed, its program located
    TrustStore(user_dir).approve(located(server, workspace))

    assert run_cli(model, workspace, user_dir, until="MARK").returncode == 0
    assert (workspace / "MARK").exists()

    # One argument changed: another fingerprint, not trusted, not started.
    (workspace / ".mcp.json").write_text(json.dumps(marker_config(workspace, "MARK2")))
    done = run_cli(model, workspace, user_dir)
    assert done.returncode == 0 and not (workspace / "MARK2").exists()
    assert "marker not started" in done.stdout


def test_mcp_list_shows_ready_failed_and_untrusted_servers(workspace: Path, tmp_path: Path):
    require_servers()
    user_dir = tmp_path / "user"
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    write_user_config(
        user_dir,
        {
            "time": {"command": str(TIME)},
            "git": {"command": str(GIT), "args": ["--repository", str(workspace)]},
            "broken": {"command": str(tmp_path / "no-such-server")},
        },
    )
    (workspace / ".mcp.json").write_text(json.dumps(marker_config(workspace, "MARK")))

    done = subprocess.run(
        [*CLI, "mcp", "list", "--workspace", str(workspace)],
        env={**_env(), "WORKSPACE_AGENT_CONFIG_DIR": str(user_dir)},
        capture_output=True,
        text=True,
        timeout=60,
    )

    out = done.stdout
    assert done.returncode == 1, out  # a server failed
    assert "time  [user: " in out and "ready (2 tools)" in out
    assert "    mcp__time__get_current_time" in out and "    mcp__git__git_status" in out
    assert "broken  [user: " in out and "failed: " in out
    assert "marker  [workspace: " in out and "not started: " in out
    assert f"runs: {shutil.which('sh')} -c 'touch MARK'" in out
    assert not (workspace / "MARK").exists()
    left = [
        p.pid
        for p in psutil.process_iter(["cmdline"])
        if any(str(server) in " ".join(p.info["cmdline"] or []) for server in (TIME, GIT))
    ]
    assert left == []  # the command stopped every server it started


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}


PROBE = """
import asyncio, sys
from pathlib import Path
from workspace_agent.cli.run import run_task
status = asyncio.run(run_task(Path(sys.argv[1]), "hello", {}))
late = ("mcp", "mcp_types", "workspace_agent.mcp.runtime", "workspace_agent.mcp.connection")
loaded = [m for m in sys.modules if m in late or m.startswith(("mcp.", "mcp_types."))]
print(f"loaded {loaded}" if loaded else "mcp not loaded", status)
"""


def test_a_run_without_servers_never_loads_the_sdk(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path
):
    model.load(script_of(reply(text("Hi."))))
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(workspace)],
        env=cli_env(model, WORKSPACE_AGENT_CONFIG_DIR=str(tmp_path / "user")),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout.strip().endswith("mcp not loaded 0"), done.stdout + done.stderr


def test_a_server_named_with_mcp_is_waited_for_before_the_first_request(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path
):
    """`--mcp fs` names the server for this run: the first request waits for it (bounded
    by mcp.startupWaitSeconds), so the model's first call of its tool is known."""
    require_servers()
    config = {"mcpServers": {"fs": {"command": str(FILESYSTEM), "args": [str(workspace)]}}}
    (workspace / ".mcp.json").write_text(json.dumps(config))
    target = str(workspace / "report.md")
    model.load(
        script_of(
            reply(tool("mcp__fs__write_file", {"path": target, "content": "# Report\n"})),
            reply(text("written")),
        )
    )

    done = subprocess.run(
        [*CLI, "run", "write the report with fs", "-w", str(workspace), "--yes", "--mcp", "fs"],
        env=cli_env(model, WORKSPACE_AGENT_CONFIG_DIR=str(tmp_path / "user")),
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert done.returncode == 0, done.stdout + done.stderr
    first = {t["name"] for t in model.requests[0].body["tools"]}
    assert "mcp__fs__write_file" in first
    assert (workspace / "report.md").read_text() == "# Report\n"
