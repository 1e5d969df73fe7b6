"""The user's Claude Code hooks in a headless `workspace-agent run`, as a terminal shows
them: the test HOME's `~/.claude/settings.json` and real scripts (tests/support/hooks.py),
a line per hook's run under its call, the item's check under the item. A workspace's own
hook is skipped without a terminal, with one line that says how to trust it, and
`workspace-agent hooks` lists and trusts it."""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

from workspace_agent.testing.scripted_model import ScriptedModelServer

from tests.support import hooks
from tests.support.cli import CLI, cli_env

HOME = hooks.claude_home(Path(tempfile.mkdtemp(prefix="wa-hooks-home-")))


def cli(model: ScriptedModelServer, config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = cli_env(
        model, HOME=str(HOME), CLAUDE_CONFIG_DIR="", WORKSPACE_AGENT_CONFIG_DIR=str(config)
    )
    return subprocess.run(
        [*CLI, *args], env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60
    )


def test_the_users_claude_code_hooks_in_a_headless_run(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path
):
    hooks.prepare(workspace)
    (workspace / ".claude").mkdir()
    repo_hook = {"hooks": [{"type": "command", "command": "touch repo-hook-ran"}]}
    (workspace / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"UserPromptSubmit": [repo_hook]}})
    )
    model.load(hooks.the_run())
    config = tmp_path / "config"
    done = cli(model, config, "run", hooks.PROMPT, "-w", str(workspace))

    assert done.returncode == 0, done.stdout + done.stderr
    hooks.check_what_the_model_got(model.requests, workspace)
    out = done.stdout
    assert "    ↳ UserPromptSubmit: context.sh — " in out
    assert f" · blocked the call: {hooks.REFUSED}\n" in out
    assert "    ↳ PostToolUse: fmt.sh — " in out
    assert f"    [>] #1 Set x\n        check failed: {hooks.CHECK_FAILED}\n" in out
    assert "    [x] #1 Set x\n        check passed\n" in out
    assert f" · kept the agent working: {hooks.STOP_REASON}\n" in out
    skipped = (
        "    ↳ UserPromptSubmit: touch — 0 ms · not trusted (no one could be asked); trust it "
        f"when asked, or with `workspace-agent hooks trust --workspace {workspace}`\n"
    )
    assert skipped in out and not (workspace / "repo-hook-ran").exists()

    listed = cli(model, config, "hooks", "-w", str(workspace))
    assert listed.returncode == 0, listed.stdout
    assert "  1  UserPromptSubmit: " in listed.stdout
    assert "     from ~/.claude/settings.json:" in listed.stdout
    assert "; runs on the host\n" in listed.stdout
    assert "  6  UserPromptSubmit: touch repo-hook-ran\n" in listed.stdout
    assert (
        "     from .claude/settings.json:1; runs in the sandbox, not trusted yet\n" in listed.stdout
    )
    trusted = cli(model, config, "hooks", "trust", "6", "-w", str(workspace))
    assert trusted.stdout.startswith("trusted 6: `touch repo-hook-ran`, a UserPromptSubmit hook")
    relisted = cli(model, config, "hooks", "-w", str(workspace))
    assert "runs in the sandbox, trusted\n" in relisted.stdout
    wrong = cli(model, config, "hooks", "trust", "9", "-w", str(workspace))
    assert wrong.returncode == 2
    assert wrong.stdout == "workspace-agent: there is no hook 9 (the hooks are numbered 1-6)\n"
