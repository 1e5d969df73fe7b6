"""Headless runs and the command guard, as a user runs `workspace-agent run`: `--yes`
allows what the guard asks about (and says so); with no terminal and no `--yes` there is
no one to ask, so nothing that needs approval runs, and the message says how to allow it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.cli import CLI, cli_env
from tests.support.lsp import tool_results

WHY = "the command word is a variable (`$x`), so what runs cannot be checked"


def run_cli(
    model: ScriptedModelServer, workspace: Path, *flags: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, "run", "Make markers", "-w", str(workspace), *flags],
        env=cli_env(model),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_yes_runs_what_the_guard_asks_about_and_prints_it(
    model: ScriptedModelServer, workspace: Path
):
    model.load(
        script_of(reply(tool("bash", {"command": "x=touch; $x yes.marker"})), reply(text("ok")))
    )
    done = run_cli(model, workspace, "--yes")

    assert done.returncode == 0, done.stdout + done.stderr
    assert f"! allowed by --yes: run `x=touch; $x yes.marker` (asked because {WHY})" in done.stdout
    assert (workspace / "yes.marker").exists()


@pytest.mark.parametrize("sandbox", ["off", "auto"])
def test_without_a_terminal_nothing_that_needs_approval_runs(
    model: ScriptedModelServer, workspace: Path, sandbox: str, request: pytest.FixtureRequest
):
    """Unsandboxed, every command needs approval; in the sandbox a plain one does not
    (approvals.bash "sandboxed", the default), while the one the guard asks about still does."""
    if sandbox == "auto":
        request.getfixturevalue("sandbox_works")
    model.load(
        script_of(
            reply(
                tool("bash", {"command": "x=touch; $x flagged.marker"}),
                tool("bash", {"command": "touch plain.marker"}),
            ),
            reply(text("ok")),
        )
    )
    done = run_cli(model, workspace, "--sandbox", sandbox)

    assert done.returncode == 0, done.stdout + done.stderr
    flagged, plain = (r["content"] for r in tool_results(model.requests[1].body))
    no_terminal = (
        "and there is no terminal to ask on (standard input is not a terminal); "
        "run workspace-agent with --yes to allow every command"
    )
    assert flagged == (
        "not allowed: the agent may run `x=touch; $x flagged.marker` only with the user's "
        f"approval (asked because {WHY}), {no_terminal}"
    )
    assert not (workspace / "flagged.marker").exists()
    if sandbox == "off":
        assert "sandbox: off (sandbox.mode is off); commands are asked about" in done.stdout
        assert plain == (
            "not allowed: the agent may run `touch plain.marker` only with the user's approval, "
            f"{no_terminal}"
        )
        assert not (workspace / "plain.marker").exists()
    else:
        assert "sandbox: on (bubblewrap" in done.stdout
        assert plain == "(no output)\n[exit status 0]"
        assert (workspace / "plain.marker").exists()


def test_without_a_terminal_a_sandboxed_command_reaches_no_host_and_is_told_why(
    model: ScriptedModelServer, workspace: Path, sandbox_works: None
):
    from tests.support.host_server import HostServer

    host = HostServer("127.0.0.1")
    try:
        model.load(
            script_of(
                reply(tool("bash", {"command": f"curl -sS -m 10 {host.url}"})),
                reply(tool("bash", {"command": "curl -sS -m 5 http://169.254.169.254/"})),
                reply(text("ok")),
            )
        )
        done = run_cli(model, workspace, "--sandbox", "auto")
    finally:
        host.close()

    assert done.returncode == 0, done.stdout + done.stderr
    assert host.hits == [0]
    (result,) = (r["content"] for r in tool_results(model.requests[1].body))
    assert f"[network access to {host.name} was blocked by the sandbox (there was no one" in result
    (metadata,) = (r["content"] for r in tool_results(model.requests[2].body))
    assert "[network access to 169.254.169.254 was refused: an instance-metadata address" in (
        metadata
    )


async def test_the_terminal_network_question_names_the_host(monkeypatch):
    import io

    from workspace_agent.cli.asker import TerminalAsker
    from workspace_agent.guard.approvals import Approvals

    monkeypatch.setattr("sys.stdin", io.StringIO("a\n"))
    out = io.StringIO()
    approvals = Approvals(asker=TerminalAsker(out))
    assert await approvals.ask_host("pypi.org", "pip install requests") == "allowed"
    assert out.getvalue() == (
        "\n? Allow network access to `pypi.org` (from `pip install requests`)? It stays in the "
        "sandbox.\n  Allow? [y]es, for this command / [a]lways in this session, this host / "
        "[N]o: "
    )
    assert await approvals.ask_host("pypi.org", "pip install rich") == "allowed"  # not asked
    assert out.getvalue().count("Allow network access") == 1


async def test_the_terminal_question_says_why_and_offers_no_session_answer(monkeypatch):
    import io

    from workspace_agent.cli.asker import TerminalAsker

    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))
    out = io.StringIO()
    assert await TerminalAsker(out).ask("bash", "run `$x ls`", WHY) == "allow"
    assert out.getvalue() == (
        f"\n? The agent wants to run `$x ls`.\n  Asked because {WHY}.\n  Allow? [y]es / [N]o: "
    )


async def test_the_terminal_question_says_when_a_command_destroys_work(monkeypatch):
    import io

    from workspace_agent.cli.asker import TerminalAsker
    from workspace_agent.guard.approvals import Details, Question, Reply

    monkeypatch.setattr("sys.stdin", io.StringIO("\n"))
    out = io.StringIO()
    question = Question(
        "bash",
        "run `git reset --hard`",
        "Workspace Agent wants to run `git reset --hard`.",
        details=Details(
            command="git reset --hard",
            destructive="discards uncommitted changes (git reset --hard)",
        ),
    )
    assert await TerminalAsker(out).ask_in_detail(question) == Reply("deny")  # Enter: No
    assert out.getvalue() == (
        "\n? The agent wants to run `git reset --hard`.\n"
        "  Careful: this discards uncommitted changes (git reset --hard).\n"
        "  Allow? [y]es / [a]lways in this session / [N]o: "
    )


def test_yes_does_not_open_the_network_allow_host_and_the_user_settings_do(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path, sandbox_works: None
):
    """`run --yes` is the unattended case: a sandboxed curl to a host service is refused
    (the service sees nothing) and told both ways to allow it; `--allow-host` and the
    user's sandbox.allowedDomains each let the same command reach it, from the sandbox."""
    import json

    from tests.support.host_server import HostServer

    host = HostServer("127.0.0.1")
    curl = f"curl -sS -m 10 {host.url}"
    users = tmp_path / "user-config"
    users.mkdir()
    runs = [
        ((), {}),
        ((f"--allow-host={host.name}",), {}),
        ((), {"sandbox": {"allowedDomains": [host.name]}}),
    ]
    results = []
    try:
        for flags, settings in runs:
            (users / "settings.json").write_text(json.dumps(settings))
            model.load(script_of(reply(tool("bash", {"command": curl})), reply(text("ok"))))
            done = subprocess.run(
                [*CLI, "run", "Check the service", "-w", str(workspace), "--yes", *flags],
                env=cli_env(model, WORKSPACE_AGENT_CONFIG_DIR=str(users)),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert done.returncode == 0, done.stdout + done.stderr
            (result,) = (r["content"] for r in tool_results(model.requests[-1].body))
            results.append((result, list(host.hits), done.stdout))
    finally:
        host.close()

    refused, by_flag, by_setting = results
    assert refused[1] == [0]  # the service saw nothing
    assert (
        f"[network access to {host.name} was refused: --yes does not open the network; allow "
        f"this host with --allow-host {host.name} or sandbox.allowedDomains in your settings "
        "file]"
    ) in refused[0]
    assert "--yes: network only to sandbox.allowedDomains and --allow-host" in refused[2]
    assert "hello from the host" in by_flag[0] and by_flag[1] == [1]
    assert "hello from the host" in by_setting[0] and by_setting[1] == [2]
    assert f"[network: {host.name} allowed]" in by_setting[0]


def test_a_bare_star_for_allow_host_is_refused_before_anything_runs(
    model: ScriptedModelServer, workspace: Path
):
    done = run_cli(model, workspace, "--yes", "--allow-host", "*")
    assert done.returncode == 2
    assert "--allow-host '*': not a host name" in done.stdout
    assert model.requests == []
