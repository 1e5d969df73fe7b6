"""What a person granted up front (`Grants`: --yes, --allow-unsandboxed) against the bash
tool, where the sandbox cannot start: --yes never falls back to running commands on the
host; --allow-unsandboxed (or sandbox.mode off) says otherwise. And the one-line notice
each front end prints for those flags."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from workspace_agent.agent.front_end import StartOptions, allowed_hosts, sandbox_notice
from workspace_agent.config import AgentSettings
from workspace_agent.guard.approvals import NO_GRANTS, Approvals, Grants
from workspace_agent.sandbox import backend
from workspace_agent.sandbox.status import SandboxStatus
from workspace_agent.shared.todo import TodoList
from workspace_agent.tools.base import ToolContext, ToolError
from workspace_agent.tools.bash import BASH


@pytest.fixture
def no_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(backend, "backend", lambda system=None: backend.Unsupported("TestOS"))


def context(root: Path, grants: Grants, mode: str = "auto") -> ToolContext:
    settings = replace(AgentSettings(), sandbox_mode=mode)
    approvals = Approvals({"bash": "allow", "write": "allow"}, grants=grants)
    return ToolContext(root, settings, TodoList(), approvals, session_id="grants")


async def test_yes_refuses_a_command_the_sandbox_cannot_hold(tmp_path: Path, no_sandbox: None):
    with pytest.raises(ToolError) as refused:
        await BASH.handler(context(tmp_path, Grants(unattended=True)), {"command": "touch m"})
    assert str(refused.value).startswith(
        "not run: --yes runs commands only in the sandbox, and it cannot start here "
        "(TestOS: commands cannot be sandboxed here"
    )
    assert "--allow-unsandboxed" in str(refused.value) and "--sandbox off" in str(refused.value)
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize(
    ("grants", "mode"),
    [
        (Grants(unattended=True, unsandboxed=True), "auto"),
        (Grants(unattended=True), "off"),
        (NO_GRANTS, "auto"),
    ],
    ids=["--allow-unsandboxed", "sandbox off", "the editor"],
)
async def test_what_a_person_chose_runs_outside(
    tmp_path: Path, no_sandbox: None, grants: Grants, mode: str
):
    answer = await BASH.handler(context(tmp_path, grants, mode), {"command": "touch m"})
    assert not isinstance(answer, str) and answer.sandboxed is False
    assert (tmp_path / "m").exists()


def test_the_notice_says_what_yes_allows_and_what_it_refuses():
    active = SandboxStatus("auto", True)
    missing = SandboxStatus("auto", False, "no bwrap", "apt install bubblewrap")
    yes = StartOptions(yes=True)
    assert "--yes: network only to sandbox.allowedDomains and --allow-host" in sandbox_notice(
        active, yes
    )
    assert sandbox_notice(missing, yes) == (
        "sandbox: unavailable (no bwrap); to fix: apt install bubblewrap; --yes refuses "
        "commands (--allow-unsandboxed or --sandbox off runs them outside it)"
    )
    assert sandbox_notice(missing, StartOptions(yes=True, allow_unsandboxed=True)).endswith(
        "--allow-unsandboxed: commands run outside it, unasked"
    )
    assert sandbox_notice(active, StartOptions()) == active.line()


def test_allow_host_takes_what_allowed_domains_takes_and_refuses_no_wall():
    assert allowed_hosts(["Example.com", "*.corp.example", "localhost:8000", "example.com"]) == (
        "example.com",
        "*.corp.example",
        "localhost:8000",
    )
    for bad in ("*", "*.com", "http://x", ""):
        with pytest.raises(ValueError, match="--allow-host"):
            allowed_hosts([bad])


def test_allow_host_adds_to_the_users_hosts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    users = tmp_path / "users"
    users.mkdir()
    (users / "settings.json").write_text('{"sandbox": {"allowedDomains": ["pypi.org"]}}')
    monkeypatch.setenv("WORKSPACE_AGENT_CONFIG_DIR", str(users))
    settings = StartOptions(yes=True, allow_hosts=("localhost:8000",)).settings()(tmp_path)
    assert settings.sandbox_allowed_domains == ("pypi.org", "localhost:8000")
    assert settings.approval_policy["bash"] == "allow"
