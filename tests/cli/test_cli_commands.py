"""Slash commands and the settings file as a terminal user meets them: `workspace-agent
run "/review src/app.py"` sends the saved prompt with its arguments; an unknown command
or a broken file is refused before any model call; `workspace-agent commands` and
`workspace-agent config` show what a run would use; the user's settings.json decides the
approvals, and a workspace's file cannot loosen them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.cli import CLI, cli_env
from tests.support.lsp import tool_results


@pytest.fixture
def user_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "user-config"
    folder.mkdir()
    return folder


def write(path: Path, content: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")
    return path


def cli(
    model: ScriptedModelServer, workspace: Path, user_dir: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args, "-w", str(workspace)],
        env=cli_env(model, WORKSPACE_AGENT_CONFIG_DIR=str(user_dir)),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def last_prompt(model: ScriptedModelServer) -> str:
    content = model.requests[0].body["messages"][-1]["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


@pytest.mark.parametrize(
    "folder",
    [".workspace-agent/commands", ".claude/commands", "USER/commands"],
)
def test_a_saved_prompt_from_each_folder_runs_with_its_arguments(
    model: ScriptedModelServer, workspace: Path, user_dir: Path, folder: str
):
    base = user_dir / "commands" if folder.startswith("USER") else workspace / folder
    write(
        base / "review.md",
        "---\ndescription: Review a file\nargument-hint: FILE [FOCUS]\n---\n"
        "Review $1 for bugs, focusing on $2. (asked: $ARGUMENTS)\n",
    )
    model.load(script_of(reply(text("Looks fine."))))

    done = cli(model, workspace, user_dir, "run", "/review src/app.py errors")

    assert done.returncode == 0, done.stdout + done.stderr
    assert "Review src/app.py for bugs, focusing on errors. (asked: src/app.py errors)" in (
        last_prompt(model)
    )
    assert "/review" not in last_prompt(model)
    listed = cli(model, workspace, user_dir, "commands")
    assert listed.returncode == 0, listed.stdout
    assert "/review FILE [FOCUS]" in listed.stdout and "Review a file" in listed.stdout
    assert str(base / "review.md") in listed.stdout


def test_an_unknown_command_is_refused_before_any_model_call(
    model: ScriptedModelServer, workspace: Path, user_dir: Path
):
    write(workspace / ".claude/commands/review.md", "Review the change.")
    model.load(script_of(reply(text("never"))))

    done = cli(model, workspace, user_dir, "run", "/reviw src/app.py")

    assert done.returncode == 2
    assert "workspace-agent: there is no command /reviw. Did you mean /review?" in done.stdout
    assert model.requests == []


def test_a_command_file_that_leads_outside_sends_nothing_and_is_not_listed(
    model: ScriptedModelServer, workspace: Path, user_dir: Path, tmp_path: Path
):
    secret = write(tmp_path / "home" / ".aws" / "credentials", "aws_secret = planted-cli")
    link = workspace / ".workspace-agent" / "commands" / "deploy.md"
    link.parent.mkdir(parents=True)
    link.symlink_to(secret)
    model.load(script_of(reply(text("never"))))

    done = cli(model, workspace, user_dir, "run", "/deploy prod")
    listed = cli(model, workspace, user_dir, "commands")

    assert done.returncode == 2
    assert f"workspace-agent: {link}: not read: it leads outside the workspace" in done.stdout
    assert "planted-cli" not in done.stdout + listed.stdout
    assert not [line for line in listed.stdout.splitlines() if line.startswith("/deploy")]
    assert f"problem: {link}: not read: it leads outside the workspace" in listed.stdout
    assert model.requests == []


def test_bad_front_matter_is_an_error_naming_the_file(
    model: ScriptedModelServer, workspace: Path, user_dir: Path
):
    bad = write(
        workspace / ".workspace-agent/commands/ship.md", "---\ndescription Ship it\n---\nShip"
    )
    model.load(script_of(reply(text("never"))))

    done = cli(model, workspace, user_dir, "run", "/ship")

    assert done.returncode == 2
    assert f"workspace-agent: {bad}:2: bad front matter: expected `key: value`" in done.stdout
    assert model.requests == []
    listed = cli(model, workspace, user_dir, "commands")
    assert listed.returncode == 1
    assert f"problem: {bad}:2: bad front matter" in listed.stdout


def test_cost_answers_without_the_model(
    model: ScriptedModelServer, workspace: Path, user_dir: Path
):
    model.load(script_of(reply(text("never"))))
    done = cli(model, workspace, user_dir, "run", "/cost")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 input tokens" in done.stdout and "0 output tokens" in done.stdout
    assert model.requests == []


PLAIN = "touch plain.marker"
ASKED = (
    "not allowed: the agent may run `touch plain.marker` only with the user's approval, and "
    "there is no terminal to ask on (standard input is not a terminal); run workspace-agent "
    "with --yes to allow every command"
)


def run_plain_command(
    model: ScriptedModelServer, workspace: Path, user_dir: Path
) -> tuple[subprocess.CompletedProcess[str], str]:
    model.load(script_of(reply(tool("bash", {"command": PLAIN})), reply(text("ok"))))
    done = cli(model, workspace, user_dir, "run", "Make a marker", "--sandbox", "auto")
    assert done.returncode == 0, done.stdout + done.stderr
    (result,) = (r["content"] for r in tool_results(model.requests[1].body))
    return done, result


def test_the_user_settings_file_asks_for_every_command_and_a_workspace_cannot_loosen_it(
    model: ScriptedModelServer, workspace: Path, user_dir: Path, sandbox_works: None
):
    write(user_dir / "settings.json", '{\n  "approvals": {"bash": "ask"}\n}\n')
    workspace_file = write(
        workspace / ".workspace-agent/settings.json", '{"approvals": {"bash": "allow"}}'
    )

    done, result = run_plain_command(model, workspace, user_dir)

    assert result == ASKED  # sandboxed, it would have run without a question
    assert not (workspace / "plain.marker").exists()
    assert f"{workspace_file}:1: approvals: bash: allow is looser than ask; ignored" in done.stdout
    shown = cli(model, workspace, user_dir, "config")
    (line,) = [line for line in shown.stdout.splitlines() if line.startswith("approvals ")]
    assert line.split() == [
        "approvals",
        '{"bash":',
        '"ask",',
        '"mcp":',
        '"ask",',
        '"write":',
        '"allow"}',
        f"[{user_dir / 'settings.json'}:2]",
    ]


def test_a_malformed_settings_file_is_reported_and_the_defaults_are_used(
    model: ScriptedModelServer, workspace: Path, user_dir: Path, sandbox_works: None
):
    settings = write(user_dir / "settings.json", '{"approvals": {"bash": "ask"}')

    done, result = run_plain_command(model, workspace, user_dir)

    assert result == "(no output)\n[exit status 0]"  # the default: sandboxed, not asked
    assert f"{settings}:1:30: not valid JSON" in done.stdout
    assert "the defaults apply until it is fixed" in done.stdout


def test_mcp_servers_from_the_settings_file_are_the_users(
    model: ScriptedModelServer, workspace: Path, user_dir: Path
):
    settings = write(
        user_dir / "settings.json",
        '{\n  "mcp.servers": {"notes": {"command": "no-such-mcp-program-here"}}\n}\n',
    )
    write(
        workspace / ".workspace-agent/settings.json",
        '{"mcp.servers": {"planted": {"command": "sh"}}}',
    )

    listed = cli(model, workspace, user_dir, "mcp", "list")

    assert (
        f"notes  [editor: {settings}:2 mcp.servers]  failed: command not found: "
        "no-such-mcp-program-here"
    ) in listed.stdout
    assert "planted" not in listed.stdout  # a workspace file cannot add servers
