"""The macOS Seatbelt profile generated from the sandbox policy (on paper: not run here)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from workspace_agent.sandbox.policy import SandboxPolicy
from workspace_agent.sandbox.seatbelt import command_line, profile


def policy_in(tmp_path: Path) -> SandboxPolicy:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    ws = tmp_path / 'my "ws"'
    (ws / ".git").mkdir(parents=True)
    return SandboxPolicy(ws, tmp_path / "tmp", str(home))


def test_everything_is_denied_first_and_reads_are_allowed_but_credentials(tmp_path: Path):
    text = profile(policy_in(tmp_path))
    lines = text.splitlines()
    assert lines[:2] == ["(version 1)", "(deny default)"]
    ssh = str(tmp_path / "home" / ".ssh")
    deny_read = next(line for line in lines if line.startswith("(deny file-read*"))
    assert f'(subpath "{ssh}")' in deny_read
    # the last matching rule wins: the deny comes after the allow
    assert lines.index("(allow file-read*)") < lines.index(deny_read)


def test_writes_only_in_the_workspace_and_temp_dir_and_never_to_protected_paths(tmp_path: Path):
    lines = profile(policy_in(tmp_path)).splitlines()
    ws = str(tmp_path / 'my \\"ws\\"')  # quotes escaped in SBPL strings
    allow = next(line for line in lines if line.startswith("(allow file-write*"))
    assert f'(subpath "{ws}")' in allow and f'(subpath "{tmp_path / "tmp"}")' in allow
    assert '(literal "/dev/null")' in allow
    deny = next(line for line in lines if line.startswith("(deny file-write* "))
    assert f'(subpath "{ws}/.git")' in deny and f'(literal "{ws}/.mcp.json")' in deny
    assert lines.index(allow) < lines.index(deny)
    unlink = next(line for line in lines if line.startswith("(deny file-write-unlink"))
    assert f'(literal "{ws}/.git")' in unlink  # `mv .git .g` is refused too


def test_there_is_no_network_and_the_command_follows_the_profile(tmp_path: Path):
    policy = policy_in(tmp_path)
    text = profile(policy)
    assert text.rstrip().endswith("(deny network*)")
    assert "allow network" not in text
    argv = command_line(policy, ["/bin/bash", "-c", "make"])
    assert argv[:2] == ["/usr/bin/sandbox-exec", "-p"] and argv[2] == text
    assert argv[3:] == ["/bin/bash", "-c", "make"]


def test_in_plan_mode_only_the_temp_dir_is_writable(tmp_path: Path):
    policy = replace(policy_in(tmp_path), read_only=True)
    allow = next(line for line in profile(policy).splitlines() if "(allow file-write*" in line)
    assert f'(subpath "{tmp_path / "tmp"}")' in allow
    assert "my" not in allow  # no rule lets the workspace be written
