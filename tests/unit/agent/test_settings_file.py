"""The settings files of the CLI and ACP: checked per key with the line, a workspace
file that may only tighten, a malformed file reported with the defaults kept."""

from __future__ import annotations

from pathlib import Path

from workspace_agent.agent.settings_file import read_settings, resolve_with_files


def files(tmp_path: Path, user: str | None, workspace: str | None) -> tuple[Path, Path]:
    user_dir, root = tmp_path / "user", tmp_path / "ws"
    (root / ".workspace-agent").mkdir(parents=True)
    user_dir.mkdir()
    if user is not None:
        (user_dir / "settings.json").write_text(user)
    if workspace is not None:
        (root / ".workspace-agent" / "settings.json").write_text(workspace)
    return root, user_dir


def test_the_user_file_sets_what_the_editor_would(tmp_path: Path):
    root, user = files(
        tmp_path,
        '{\n  "approvals": {"bash": "ask"},\n  "sandbox": {"allowedDomains": ["pypi.org"]},\n'
        '  "workspaceAgent.maxTurns": 7\n}\n',
        None,
    )
    settings = resolve_with_files(root, {}, user)
    assert settings.approval_policy["bash"] == "ask"
    assert settings.sandbox_allowed_domains == ("pypi.org",)
    assert settings.max_turns == 7
    assert read_settings(root, user).sources["approvals"] == f"{user / 'settings.json'}:2"


def test_a_workspace_file_cannot_loosen_only_tighten(tmp_path: Path):
    root, user = files(
        tmp_path,
        '{"approvals": {"bash": "ask"}, "maxRunTokens": 1000}',
        '{\n "approvals": {"bash": "allow", "write": "ask"},\n "maxRunTokens": 0,\n'
        ' "sandbox.mode": "required",\n "sandbox.allowedDomains": ["evil.example"]\n}',
    )
    found = read_settings(root, user)
    settings = resolve_with_files(root, {}, user)
    workspace_file = root / ".workspace-agent" / "settings.json"

    assert settings.approval_policy == {"bash": "ask", "write": "ask", "mcp": "ask"}
    assert settings.max_run_tokens == 1000
    assert settings.sandbox_mode == "required"
    assert settings.sandbox_allowed_domains == ()
    assert found.problems == [
        f"{workspace_file}:2: approvals: bash: allow is looser than ask; ignored (a workspace "
        "may only make approvals stricter)",
        f"{workspace_file}:3: maxRunTokens: 0 (no cap) would lift the cap of 1000; ignored",
        f"{workspace_file}:5: sandbox.allowedDomains is read from the user's settings only "
        f"({user / 'settings.json'}): a workspace may not set it; ignored",
    ]


def test_a_bad_value_names_the_key_and_line_and_the_default_applies(tmp_path: Path):
    root, user = files(
        tmp_path, '{\n  "maxTurns": 5,\n  "approvals": {"bash": "often"},\n  "modle": "x"\n}', None
    )
    settings = resolve_with_files(root, {}, user)
    path = user / "settings.json"
    assert settings.approval_policy["bash"] == "sandboxed"  # the default
    assert settings.max_turns == 5
    assert settings.notes[0].startswith(f"{path}:3: approvals: 'bash': 'often' is not one of")
    assert settings.notes[1].startswith(f"{path}:4: modle is not a setting (did you mean model?)")


def test_a_malformed_file_is_reported_and_the_defaults_are_used(tmp_path: Path):
    root, user = files(tmp_path, '{\n  "approvals": {"bash": "ask"},,\n}', None)
    settings = resolve_with_files(root, {}, user)
    assert settings.approval_policy["bash"] == "sandboxed"
    assert settings.notes == (
        f"{user / 'settings.json'}:2:32: not valid JSON (Expecting property name enclosed in "
        "double quotes); none of this file's settings are used, the defaults apply until it "
        "is fixed",
    )


def test_a_workspace_file_cannot_add_writable_paths(tmp_path: Path, monkeypatch):
    """Only the user's own file opens folders to sandboxed commands; a workspace's entry is
    reported and left out, and a refused entry names the file, the line and the reason."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    root, user = files(
        tmp_path,
        '{"sandbox": {"writablePaths": ["~/builds"]}}',
        '{\n "sandbox.writablePaths": ["~/.config/autostart"]\n}',
    )
    found = read_settings(root, user)
    assert resolve_with_files(root, {}, user).sandbox_writable_paths == ("~/builds",)
    assert found.problems == [
        f"{root / '.workspace-agent' / 'settings.json'}:2: sandbox.writablePaths is read from "
        f"the user's settings only ({user / 'settings.json'}): a workspace may not set it; ignored"
    ]
    (user / "settings.json").write_text('{\n  "sandbox.writablePaths": ["~/.ssh"]\n}')
    problem = read_settings(None, user).problems[0]
    assert problem.startswith(f"{user / 'settings.json'}:2: sandbox.writablePaths: '~/.ssh': ")
    assert problem.endswith("(credentials); remove it from the list; ignored, the default applies")


def test_names_and_approvals_are_taken_entry_by_entry(tmp_path: Path):
    """One bad entry is reported and left out alone (the user's other names and kinds
    stay), names are trimmed and kept once: the same rule the extension applies to VS
    Code's levels (agent/settings_rules.py, core/settingsRules.ts)."""
    root, user = files(
        tmp_path,
        '{\n  "secretEnvNames": [" CORP_ ", ""],\n  "approvals": {"bash": "often", "write": "deny"}\n}',
        '{\n "secretEnvNames": ["CORP_", "VAULT\\t", 7],\n "approvals": {"mcp": "deny"}\n}',
    )
    found = read_settings(root, user)
    settings = resolve_with_files(root, {}, user)
    user_file, workspace_file = user / "settings.json", root / ".workspace-agent" / "settings.json"

    assert settings.secret_env_names == ("CORP_", "VAULT")
    assert settings.approval_policy == {"bash": "sandboxed", "write": "deny", "mcp": "deny"}
    assert found.sources["secretEnvNames"] == f"{user_file}:2 + {workspace_file}:2"
    assert found.sources["approvals"] == f"{user_file}:3 + {workspace_file}:3"
    assert found.problems[0] == f'{user_file}:2: secretEnvNames: "" is not a name; ignored'
    assert found.problems[1].startswith(f"{user_file}:3: approvals: 'bash': 'often' is not one of")
    assert found.problems[2:] == [f"{workspace_file}:2: secretEnvNames: 7 is not a name; ignored"]
