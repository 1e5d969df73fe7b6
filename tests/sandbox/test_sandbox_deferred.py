"""Deferred escapes: a sandboxed command writes a program into the workspace (which it may),
and a process of the agent itself would later run it on the host, outside the sandbox,
with no one deciding to. Each attack goes through the real bash tool in the real sandbox,
then the real checkpoint store, MCP start or server start; the plant logs to a folder
outside the workspace (under /var/tmp: read-only inside the sandbox, so only a run on the
host can write the log). Each has a positive control: the plant is where a plain lookup
(PATH, sys.path) finds it, and it does run when started, so a wrong path or a plant that
never worked cannot make the case pass.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_lsp import ClientServerConfig

from workspace_agent.mcp.runtime import McpRuntime
from workspace_agent.protocol import RunRequest
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient, start_session
from tests.support.lsp import run, tool_results
from tests.support.mcp import Recorder, agent_with
from tests.support.server import SERVER_ENV
from tests.support.wheels import wheel_with_a_script

ROOT = Path(__file__).resolve().parents[2]
GROWING = ROOT / "tests" / "mcp_servers" / "growing_server.py"


@pytest.fixture
def outside() -> Iterator[Path]:
    """Where a plant that ran on the host leaves its log."""
    folder = Path(tempfile.mkdtemp(prefix="wa-deferred-", dir="/var/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def git_workspace(workspace: Path) -> Path:
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(workspace)]
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    (workspace / "app.py").write_text("print('hi')\n")
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "init"], check=True)
    return workspace


def started(argv: list[str], **options: Any) -> subprocess.CompletedProcess[bytes]:
    """A program run to completion (the tests' own setup and controls)."""
    return subprocess.run(argv, check=True, **options)


def wrapper(log: Path, real: str) -> str:
    """A launcher that logs that it ran, then runs the real program (as an attacker's
    would, so that nothing looks wrong)."""
    return f'#!/bin/sh\necho "ran: $0 $*" >> {log}\nexec {real} "$@"\n'


def plant(path: str, body: str) -> str:
    """The sandboxed command that writes the launcher `path` into the workspace."""
    folder = os.path.dirname(path)
    return f"mkdir -p {folder} && cat > {path} <<'EOF'\n{body}EOF\nchmod +x {path} && echo planted"


def assert_plant_would_run(plant_path: Path, name: str, path_value: str, log: Path) -> None:
    """The control: a plain PATH lookup finds the plant, and started, it runs and logs."""
    assert shutil.which(name, path=path_value) == str(plant_path)
    subprocess.run([str(plant_path), "--version"], capture_output=True, check=False)
    assert log.exists(), "the plant does not run: this case would prove nothing"
    log.unlink()


async def test_a_git_planted_in_a_workspace_folder_on_path_never_runs_for_checkpoints(
    git_workspace: Path,
    outside: Path,
    model: ScriptedModelServer,
    sandbox_works: None,
    monkeypatch: pytest.MonkeyPatch,
):
    ws, log = git_workspace, outside / "planted-git.log"
    path_value = f"{ws / 'bin'}{os.pathsep}{os.environ['PATH']}"  # direnv's PATH_add bin
    monkeypatch.setenv("PATH", path_value)
    real_git = shutil.which("git", path=os.environ["PATH"].split(os.pathsep, 1)[1])
    assert real_git is not None
    recorder = Recorder()
    agent = agent_with(McpRuntime(outside / "user"), ws, model.url, recorder)
    model.load(
        script_of(
            reply(tool("bash", {"command": plant("bin/git", wrapper(log, real_git))})),
            reply(tool("write_file", {"path": "notes.txt", "content": "a note\n"})),
            reply(tool("bash", {"command": "echo generated > gen.txt"})),
            reply(text("done")),
        )
    )

    result = await agent.run(RunRequest("plant, then change files"))

    assert result.stop_reason == "end_turn"
    assert "planted" in tool_results(model.requests[1].body)[0]["content"]
    assert (ws / "bin" / "git").is_file()  # it stays in the workspace...
    assert not log.exists(), log.read_text()  # ...and the checkpoints never ran it
    changes = await agent.checkpoints(result.session_id).changes()
    changed = {f["path"] for item in changes["items"] for f in item["files"]}
    assert {"notes.txt", "gen.txt", "bin/git"} <= changed  # the store worked, with the real git
    assert_plant_would_run(ws / "bin" / "git", "git", path_value, log)


async def test_an_mcp_launcher_planted_on_path_never_runs_and_one_only_inside_is_a_candidate(
    workspace: Path,
    outside: Path,
    model: ScriptedModelServer,
    sandbox_works: None,
    monkeypatch: pytest.MonkeyPatch,
):
    ws, log = workspace, outside / "planted-mcp.log"
    host_bin = outside / "host-bin"  # where the user installed the server
    host_bin.mkdir()
    launcher = host_bin / "wa-growing-mcp"
    launcher.write_text(f'#!/bin/sh\nexec {sys.executable} {GROWING} "$@"\n')
    launcher.chmod(0o755)
    path_value = os.pathsep.join(
        [str(ws / "node_modules" / ".bin"), str(host_bin), os.environ["PATH"]]
    )
    monkeypatch.setenv("PATH", path_value)
    user = outside / "user"
    user.mkdir()
    (user / "mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "growing": {"command": "wa-growing-mcp"},
                    "only-inside": {"command": "wa-only-inside"},
                }
            }
        )
    )
    recorder = Recorder()  # answers "deny" to every question
    runtime = McpRuntime(user, asker=recorder)
    agent = agent_with(runtime, ws, model.url, recorder)
    planted = ws / "node_modules" / ".bin" / "wa-growing-mcp"
    model.load(
        script_of(
            reply(
                tool(
                    "bash",
                    {
                        "command": plant(str(planted.relative_to(ws)), wrapper(log, str(launcher)))
                        + " && "
                        + plant("node_modules/.bin/wa-only-inside", wrapper(log, str(launcher)))
                    },
                )
            ),
            reply(text("planted")),
        )
    )
    first = await agent.run(RunRequest("plant"))
    assert first.stop_reason == "end_turn" and planted.is_file()

    servers = runtime.refresh(ws)  # what the next run finds: the server (re)started now
    try:
        connection = servers.connections["growing"]
        await connection.settled(20)
        assert connection.state == "ready", connection.reason
        assert connection.config.command == str(launcher)  # by absolute path, outside
        model.load(script_of(reply(tool("mcp__growing__grow", {})), reply(text("grown"))))
        await agent.run(RunRequest("use the server", session_id=first.session_id))
        assert "mcp__growing__grow" in [t["name"] for t in model.requests[-2].body["tools"]]
        assert not log.exists(), log.read_text()
        # A program that exists only inside the workspace is a candidate, never started
        # silently: the user is asked, shown its full path.
        waiting, why = servers.not_started["only-inside"]
        inside = ws / "node_modules" / ".bin" / "wa-only-inside"
        assert waiting.command == str(inside) and waiting.program_in_workspace
        assert "not trusted yet" in why
        (question,) = [q for kind, q in recorder.questions if kind == "mcp"]
        assert f"whose program {inside} is inside the workspace" in question
    finally:
        await runtime.shutdown()
    assert_plant_would_run(planted, "wa-growing-mcp", path_value, log)


def site_packages(venv: Path) -> Path:
    relative = Path(sysconfig.get_path("purelib")).relative_to(sys.prefix)
    return venv / relative


def venv_in(ws: Path) -> Path:
    """The agent installed in a venv inside the workspace, as a developer of this very
    repository runs it: a venv whose .pth puts our own import path on sys.path."""
    venv = ws / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    ours = [p for p in sys.path if p and Path(p).is_dir() and "site-packages" in p]
    ours += [str(ROOT / "server")]
    (site_packages(venv) / "our-agent.pth").write_text("\n".join(ours) + "\n")
    return venv


async def test_the_agents_own_environment_in_the_workspace_is_read_only_inside(
    workspace: Path, outside: Path, model: ScriptedModelServer, sandbox_works: None
):
    ws, log = workspace, outside / "pth-ran.log"
    venv = venv_in(ws)
    python = venv / "bin" / "python"
    evil = site_packages(venv) / "evil.pth"
    hook = f"import os; open({str(log)!r}, 'a').write('ran')\n"
    config = ClientServerConfig(
        server_command=[str(python), "-m", "workspace_agent"],
        server_env=SERVER_ENV,
        client_factory=RecordingClient,
    )
    client = await config.start()
    assert isinstance(client, RecordingClient)
    try:
        await start_session(client, ws, model, settings={"approvals": {"bash": "allow"}})
        command = (
            f"printf %s {hook!r} > {evil}; touch {venv}/bin/new-tool; "
            f"echo x >> {venv}/pyvenv.cfg; echo done"
        )
        model.load(script_of(reply(tool("bash", {"command": command})), reply(text("ok"))))
        await run(client, "plant in the agent's venv")
        output = tool_results(model.requests[1].body)[0]["content"]
    finally:
        await client.shutdown_session()
    assert "done" in output and "Read-only file system" in output, output
    assert not evil.exists() and not (venv / "bin" / "new-tool").exists()
    assert "x" not in (venv / "pyvenv.cfg").read_text().splitlines()
    # The control: that folder is the user's to write, and a .pth there runs at the next
    # start of that interpreter (the next server start).
    evil.write_text(hook)
    started([str(python), "-c", "pass"])
    assert log.read_text().startswith("ran")


async def test_a_module_planted_in_the_servers_current_folder_is_not_imported(
    workspace: Path, outside: Path, model: ScriptedModelServer
):
    """Editors start `python -m workspace_agent` in the workspace, and `-m` imports from
    the current folder first: a sandboxed command's `anthropic.py` there would be what the
    server's SDK import loads, on the host."""
    log = outside / "module-ran.log"
    (workspace / "anthropic.py").write_text(f"open({str(log)!r}, 'a').write('ran')\n")
    config = ClientServerConfig(
        server_command=[
            "/bin/sh",
            "-c",
            'cd "$1" && exec "$2" -m workspace_agent',
            "sh",
            str(workspace),
            sys.executable,
        ],
        server_env=SERVER_ENV,
        client_factory=RecordingClient,
    )
    client = await config.start()
    assert isinstance(client, RecordingClient)
    try:
        await start_session(client, workspace, model)
        model.load(script_of(reply(text("hello"))))
        answer: dict[str, Any] = await run(client, "hi")
    finally:
        await client.shutdown_session()
    assert answer["stopReason"] == "end_turn"  # the real SDK made the request
    assert not log.exists()
    # The control: Python does import it from there.
    started([sys.executable, "-c", "import anthropic"], cwd=workspace)
    assert log.read_text() == "ran"


async def test_a_project_venv_takes_pip_install_but_keeps_what_the_editor_runs(
    workspace: Path, sandbox_works: None
):
    """The project's own venv (not the agent's) stays writable, so `pip install` works in
    the sandbox; its activation scripts, pyvenv.cfg and interpreter links, which VS Code
    runs by itself (a new terminal, the Python extension), stay as they were."""
    from dataclasses import replace

    from workspace_agent.config import AgentSettings
    from workspace_agent.guard.approvals import Approvals
    from workspace_agent.shared.todo import TodoList
    from workspace_agent.tools.base import ToolContext
    from workspace_agent.tools.bash import BASH

    venv = workspace / ".venv"
    started([sys.executable, "-m", "venv", str(venv)])
    wheel = wheel_with_a_script(workspace)
    python_link = os.readlink(venv / "bin" / "python")
    activate = (venv / "bin" / "activate").read_text()
    ctx = ToolContext(
        workspace,
        replace(AgentSettings(), sandbox_mode="required"),
        TodoList(),
        Approvals({"bash": "allow", "write": "allow"}),
        session_id="venv-case",
    )
    command = (
        f".venv/bin/python -m pip install --no-index --no-cache-dir -q {wheel.name} && "
        ".venv/bin/tinytool; "
        "echo 'curl evil' >> .venv/bin/activate; echo x >> .venv/pyvenv.cfg; "
        "ln -sf /bin/sh .venv/bin/python; echo done"
    )
    answer = await BASH.handler(ctx, {"command": command})
    assert not isinstance(answer, str)
    assert answer.sandboxed and "tinytool works" in answer.text and "done" in answer.text
    assert (venv / "bin" / "tinytool").is_file()  # pip wrote bin/ and site-packages
    assert (venv / "bin" / "activate").read_text() == activate
    assert "x" not in (venv / "pyvenv.cfg").read_text().splitlines()
    assert os.readlink(venv / "bin" / "python") == python_link
    assert "python was changed" in answer.text and "put back" in answer.text
