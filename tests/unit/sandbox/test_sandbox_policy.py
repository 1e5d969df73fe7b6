"""The sandbox policy as a bwrap command line: what is writable, read-only and masked.

These read the argument list (fast, no bwrap needed); tests/sandbox/test_sandbox_escapes.py runs
real commands in the real sandbox and checks the host.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from workspace_agent.config import resolve_settings
from workspace_agent.sandbox.blocked import describe, walls
from workspace_agent.sandbox.policy import (
    Missing,
    SandboxPolicy,
    bwrap_argv,
    sandbox_env,
)
from workspace_agent.sandbox.probe import APPARMOR_FIX, classify


def binds(argv: list[str], flag: str) -> list[tuple[str, str]]:
    return [(argv[i + 1], argv[i + 2]) for i, a in enumerate(argv) if a == flag]


def layout(tmp_path: Path) -> tuple[SandboxPolicy, Path, Path]:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".netrc").write_text("machine x password y")
    ws = tmp_path / "ws"
    (ws / ".git").mkdir(parents=True)
    (ws / ".vscode").mkdir()
    empty = tmp_path / "empty"
    empty.mkdir()
    (tmp_path / "empty-file").touch()
    policy = SandboxPolicy(ws, tmp_path / "session-tmp", str(home))
    return policy, ws, home


def argv_of(policy: SandboxPolicy, tmp_path: Path, missing: Missing | None = None) -> list[str]:
    return bwrap_argv(
        "/usr/bin/bwrap",
        policy,
        ["/bin/bash", "-c", "true"],
        policy.workspace,
        tmp_path / "empty",
        tmp_path / "empty-file",
        7,
        missing,
    )


def test_writes_go_to_the_workspace_and_the_session_temp_dir_only(tmp_path: Path):
    policy, ws, _ = layout(tmp_path)
    argv = argv_of(policy, tmp_path)
    assert binds(argv, "--bind") == [(str(tmp_path / "session-tmp"), "/tmp"), (str(ws), str(ws))]
    assert ("/", "/") in binds(argv, "--ro-bind")
    for flag in ("--cap-drop", "--unshare-pid", "--unshare-net", "--disable-userns"):
        assert flag in argv
    assert argv[argv.index("--seccomp") + 1] == "7"
    assert argv[-4:] == ["--", "/bin/bash", "-c", "true"]
    # the workspace is bound after /tmp: a workspace under /tmp stays visible
    assert argv.index(str(tmp_path / "session-tmp")) < argv.index(str(ws))


def test_git_and_editor_configs_stay_read_only_and_missing_ones_are_watched(tmp_path: Path):
    policy, ws, _ = layout(tmp_path)
    missing = Missing()
    argv = argv_of(policy, tmp_path, missing)
    read_only = {dest: src for src, dest in binds(argv, "--ro-bind")}
    assert read_only[str(ws / ".git")] == str(ws / ".git")
    assert read_only[str(ws / ".vscode")] == str(ws / ".vscode")
    # missing ones get no mount point (bwrap would create it on the host for every command)
    assert str(ws / ".mcp.json") not in read_only and str(ws / ".cursor") not in read_only
    assert ws / ".mcp.json" in missing.paths and ws / ".cursor" in missing.paths
    assert ws / ".bashrc" not in missing.paths  # no shell reads it: the workspace is not ~
    # what a command created there is moved out of the workspace afterwards
    (ws / ".cursor" / "rules").mkdir(parents=True)
    (ws / ".mcp.json").symlink_to("/etc/passwd")
    taken = missing.take_back(tmp_path / "session-tmp")
    assert not os.path.lexists(ws / ".cursor") and not os.path.lexists(ws / ".mcp.json")
    assert [t.split(" was created")[0] for t in taken] == [".cursor", ".mcp.json"]
    blocked = tmp_path / "session-tmp" / "blocked"
    assert sorted(p.name.split("-")[0] for p in blocked.iterdir()) == [".cursor", ".mcp.json"]
    assert (ws / ".vscode").is_dir()  # it existed: never moved


def test_rc_files_are_protected_when_the_workspace_is_home(tmp_path: Path):
    policy, ws, _ = layout(tmp_path)
    (ws / ".zshrc").write_text("# mine")
    at_home = SandboxPolicy(ws, policy.temp_dir, str(ws))
    missing = Missing()
    read_only = {d: s for s, d in binds(argv_of(at_home, tmp_path, missing), "--ro-bind")}
    assert ws / ".bashrc" in missing.paths
    assert read_only[str(ws / ".zshrc")] == str(ws / ".zshrc")
    elsewhere = {d: s for s, d in binds(argv_of(policy, tmp_path), "--ro-bind")}
    assert elsewhere[str(ws / ".zshrc")] == str(ws / ".zshrc")  # existing: read-only anyway


def test_a_gitdir_file_protects_its_target_too(tmp_path: Path):
    policy, ws, _ = layout(tmp_path)
    (ws / ".git").rmdir()
    real_git = tmp_path / "ws" / "modules" / "real"
    real_git.mkdir(parents=True)
    (ws / ".git").write_text("gitdir: modules/real\n")
    read_only = [dest for _, dest in binds(argv_of(policy, tmp_path), "--ro-bind")]
    assert str(ws / ".git") in read_only and str(real_git) in read_only


def test_credentials_are_masked_through_symlinks_and_the_list_extends(tmp_path: Path):
    policy, _, home = layout(tmp_path)
    elsewhere = tmp_path / "vault" / "aws"
    elsewhere.mkdir(parents=True)
    (home / ".aws").symlink_to(elsewhere)
    secret = tmp_path / "company-token"
    secret.write_text("t")
    policy = SandboxPolicy(policy.workspace, policy.temp_dir, str(home), extra_masks=(str(secret),))
    masked = {dest: src for src, dest in binds(argv_of(policy, tmp_path), "--ro-bind")}
    assert masked[str(home / ".ssh")] == str(tmp_path / "empty")
    assert masked[str(home / ".netrc")] == str(tmp_path / "empty-file")
    assert masked[str(elsewhere)] == str(tmp_path / "empty")  # the target, not the link
    assert masked[str(secret)] == str(tmp_path / "empty-file")
    assert str(home / ".gnupg") not in masked  # absent: nothing to hide


def test_package_caches_and_tmpdir_point_into_the_session_temp_dir():
    env = sandbox_env({"PATH": "/usr/bin", "HOME": "/root"})
    assert env["TMPDIR"] == "/tmp"
    assert env["PIP_CACHE_DIR"] == "/tmp/.cache/pip"
    assert env["npm_config_cache"].startswith("/tmp/") and env["CARGO_HOME"].startswith("/tmp/")
    assert env["PATH"] == "/usr/bin"


def test_sandbox_settings_parse_and_bad_values_are_skipped(tmp_path: Path):
    settings = resolve_settings(
        tmp_path, {"sandbox": {"mode": "required", "maskedPaths": ["~/.config/secret"]}}, {}
    )
    assert settings.sandbox_mode == "required"
    assert settings.sandbox_masked_paths == ("~/.config/secret",)
    assert resolve_settings(tmp_path, {"sandbox.mode": "loose"}, {}).sandbox_mode == "auto"


def test_probe_failures_name_the_reason_and_the_fix():
    apparmor = classify("bwrap: setting up uid map: Permission denied\n")
    assert "user namespaces are refused" in apparmor.reason and apparmor.fix == APPARMOR_FIX
    container = classify("bwrap: Can't mount proc on /newroot/proc: Operation not permitted")
    assert "container" in container.reason
    assert not classify("bwrap: something else").ok


def test_blocked_commands_say_which_wall(tmp_path: Path):
    policy, _, home = layout(tmp_path)
    output = (
        f"ERROR: [Errno 30] Read-only file system: '{home}/.cache/pip/x'\n"
        "touch: cannot touch '.git/hooks/pre-commit': Read-only file system\n"
        "curl: (6) Could not resolve host: example.org\n"
        "PermissionError: [Errno 1] Operation not permitted: connect to socket\n"
    )
    assert walls(output, policy) == [
        "write to ~/.cache/pip/x",
        "write to .git/hooks/pre-commit (.git is read-only inside the sandbox)",
        "network access to example.org",
        "connecting to a Unix socket (only the network inside the sandbox is its own)",
    ]
    assert walls("FAILED tests/test_x.py::test_y - assert 1 == 2", policy) == []


def test_in_plan_mode_the_whole_workspace_is_read_only_and_tmp_writable(tmp_path: Path):
    policy, ws, _ = layout(tmp_path)
    planning = replace(policy, read_only=True)
    argv = argv_of(planning, tmp_path)
    assert binds(argv, "--bind") == [(str(tmp_path / "session-tmp"), "/tmp")]
    assert (str(ws), str(ws)) in binds(argv, "--ro-bind")
    assert "--cap-drop" in argv  # no capabilities: root cannot remount it writable
    assert not planning.writable(ws / "app.py") and planning.writable(tmp_path / "session-tmp")
    found = walls("bash: line 1: out.txt: Read-only file system", planning)
    assert found == ["write to out.txt (plan mode: the whole workspace is read-only)"]
    note = describe(found, read_only=True)
    assert "You are in plan mode" in note and "unsandboxed_reason" not in note
