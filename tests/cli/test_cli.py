"""The terminal front ends: `workspace-agent run` and `workspace-agent demo`, as a user
runs them (real subprocesses, the real SDK over HTTP to the scripted model)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import psutil
import pytest

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.cli import CLI, cli_env
from tests.support.processes import host_pid
from tests.support.server import default_signals


def test_run_prints_the_work_and_exits_zero(model: ScriptedModelServer, workspace: Path):
    model.load(
        script_of(
            reply(
                text("On it."),
                tool(
                    "todo", {"items": [{"id": "1", "text": "Write notes", "status": "in_progress"}]}
                ),
            ),
            reply(tool("write_file", {"path": "notes.md", "content": "# Notes\n"})),
            reply(
                tool("todo", {"items": [{"id": "1", "text": "Write notes", "status": "completed"}]})
            ),
            reply(text("Wrote notes.md.")),
        )
    )
    done = subprocess.run(
        [*CLI, "run", "Write notes", "--workspace", str(workspace)],
        env=cli_env(model),
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "▶ Write notes" in out and "On it." in out
    assert "→ write_file notes.md" in out and "✓ Created notes.md (1 lines, 8 bytes)" in out
    assert "plan 0/1\n    [>] #1 Write notes" in out and "plan 1/1\n    [x] #1 Write notes" in out
    (end,) = [line for line in out.splitlines() if line.startswith("■ end_turn")]
    assert re.search(r" · context \d+ k / 200 k$", end), end  # the meter, from the last request
    assert (workspace / "notes.md").read_text() == "# Notes\n"


def test_a_key_too_short_to_be_a_secret_is_not_cut_out_of_the_words_shown(
    model: ScriptedModelServer, workspace: Path
):
    """A gateway's dummy key "x" (issue 32): redacting it cut `new1.txt` into
    `new1.t[redacted]t` everywhere; a real key is still redacted (tests/lsp/test_lsp_editor.py)."""
    model.load(
        script_of(
            reply(tool("bash", {"command": "echo 'exit' > next.txt && cat next.txt"})),
            reply(tool("write_file", {"path": "new1.txt", "content": "text\n"})),
            reply(text("Wrote new1.txt and next.txt.")),
        )
    )
    done = subprocess.run(
        [*CLI, "run", "Write two files", "--workspace", str(workspace), "--yes"],
        env=cli_env(model, ANTHROPIC_API_KEY="x"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "[redacted]" not in done.stdout
    assert "→ write_file new1.txt" in done.stdout and "Wrote new1.txt and next.txt." in done.stdout
    assert (
        "exit\n[exit status 0]" in model.requests[1].body["messages"][-1]["content"][0]["content"]
    )


def test_run_without_a_key_says_which_variable_and_fails(
    model: ScriptedModelServer, workspace: Path
):
    env = cli_env(model)
    del env["ANTHROPIC_API_KEY"]
    done = subprocess.run(
        [*CLI, "run", "Anything", "-w", str(workspace)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "error: ANTHROPIC_API_KEY is not set" in done.stdout


def run_until_the_command_runs(
    model: ScriptedModelServer, workspace: Path
) -> tuple[subprocess.Popen[str], int]:
    """A headless run that has started `sleep 300` through the bash tool; the sleep's pid."""
    model.load(script_of(reply(tool("bash", {"command": "sleep 300 & echo $! > sleep.pid; wait"}))))
    proc = subprocess.Popen(
        [*CLI, "run", "Wait", "-w", str(workspace), "--yes"],
        env=cli_env(model),
        preexec_fn=default_signals,  # run by `nohup`, the CLI would rightly keep SIGHUP ignored
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    pid_file = workspace / "sleep.pid"
    deadline = time.monotonic() + 30
    while not (pid_file.exists() and pid_file.read_text().strip()):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            out, err = proc.communicate()
            pytest.fail(
                f"the run never reached the command (exit {proc.returncode}):\n{out}\n{err}"
            )
        time.sleep(0.05)
    pid = host_pid(int(pid_file.read_text()), workspace)
    assert pid is not None, "the sleep is not running"
    return proc, pid


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_ctrl_c_cancels_cleanly(model: ScriptedModelServer, workspace: Path):
    proc, sleep_pid = run_until_the_command_runs(model, workspace)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=10)

    assert proc.returncode == 130, f"exit {proc.returncode}:\n{out}\n{err}"
    assert "■ cancelled" in out
    assert "Traceback" not in err
    assert gone(sleep_pid)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=str)
def test_sigterm_and_sighup_kill_the_command_and_end_the_run(
    model: ScriptedModelServer, workspace: Path, sig: signal.Signals
):
    proc, sleep_pid = run_until_the_command_runs(model, workspace)
    try:
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=20)

        assert proc.returncode == 128 + sig, f"exit {proc.returncode}:\n{out}\n{err}"
        assert "■ cancelled" in out  # the run ended as cancelled: the session was saved
        assert "Traceback" not in err
        deadline = time.monotonic() + 10
        while not gone(sleep_pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert gone(sleep_pid), "the command outlived the run"
    finally:
        proc.kill()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(os.getpgid(sleep_pid), signal.SIGKILL)


def test_demo_runs_offline_and_says_the_model_is_scripted():
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    done = subprocess.run(
        [*CLI, "demo", "--pace", "0", "--keep"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "the model is SCRIPTED" in out and "no Claude model" in out
    assert "plan 3/3" in out
    assert "exit status 0 · OK" in out  # the sample project's tests pass after the fix
    kept = Path(out.rsplit("The demo workspace is kept at ", 1)[1].strip())
    try:
        assert "return len(text.split())" in (kept / "wordstats.py").read_text()
        assert (kept / "wordstats_cli.py").exists()
    finally:
        shutil.rmtree(kept)


def test_every_stop_reason_has_an_exit_status():
    from workspace_agent.cli.run import EXIT_CODES
    from workspace_agent.protocol import STOP_REASONS

    assert set(EXIT_CODES) == set(STOP_REASONS)
    # a plan ready to be approved is a success, and so is an answer ended at a stop sequence
    successes = ("end_turn", "stop_sequence", "planReady")
    assert all(EXIT_CODES[r] == 0 for r in successes) and all(
        EXIT_CODES[r] for r in STOP_REASONS if r not in successes
    )


def test_the_server_accepts_the_stdio_flag_lsp_clients_add():
    from workspace_agent.cli.main import build_parser

    assert build_parser().parse_args(["serve", "--stdio"]).stdio is True
    done = subprocess.run([*CLI, "--stdio"], input="", capture_output=True, text=True, timeout=60)
    assert "unrecognized arguments" not in done.stderr


async def test_the_server_exits_promptly_with_the_status_lsp_asks_for(tmp_path: Path):
    from lsprotocol import types
    from pygls.lsp.client import LanguageClient

    for shutdown_first, status in ((True, 0), (False, 1)):
        client = LanguageClient("exit-test", "1")
        await client.start_io(*CLI)
        await client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(), root_uri=tmp_path.as_uri()
            )
        )
        client.initialized(types.InitializedParams())
        if shutdown_first:
            await client.shutdown_async(None)
        started = time.monotonic()
        client.exit(None)
        assert await asyncio.wait_for(client._server.wait(), 10) == status
        # Editors kill a server that takes long to go (VS Code after 2 s); this one leaves
        # without tearing the interpreter down (the bound is generous for a loaded machine).
        assert time.monotonic() - started < 10.0
        await client.stop()
