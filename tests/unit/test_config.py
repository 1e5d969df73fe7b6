"""Settings: editor over environment over .env over defaults; bad values are skipped."""

from __future__ import annotations

from pathlib import Path

import pytest

from workspace_agent.config import DEFAULT_MODEL, AgentSettings, editor_section, resolve_settings


def test_precedence_editor_then_environment_then_dotenv(tmp_path: Path):
    (tmp_path / ".env").write_text(
        "ANTHROPIC_API_KEY=from-dotenv\nMODEL_ID=dotenv-model\nWORKSPACE_AGENT_MAX_TURNS=7\n"
        "ANTHROPIC_BASE_URL=http://dotenv.example\n"
    )
    environ = {"MODEL_ID": "env-model", "WORKSPACE_AGENT_MAX_TURNS": "9"}
    settings = resolve_settings(tmp_path, {"maxTurns": 3}, environ)
    assert settings.api_key == "from-dotenv"
    assert settings.model == "env-model"
    assert settings.max_turns == 3
    assert settings.base_url == "http://dotenv.example"
    assert settings.bash_timeout_seconds == 120.0


def test_defaults_without_any_source(tmp_path: Path):
    assert resolve_settings(tmp_path, {}, {}) == AgentSettings()
    assert AgentSettings().model == DEFAULT_MODEL and AgentSettings().max_turns == 50


def test_invalid_values_are_skipped_with_a_warning(tmp_path: Path, caplog):
    settings = resolve_settings(
        tmp_path,
        {"maxTurns": 0, "bashTimeoutSeconds": "soon", "model": 5},
        {"WORKSPACE_AGENT_MAX_TURNS": "12"},
    )
    assert settings.max_turns == 12  # the editor's 0 was refused, the environment's value used
    assert settings.bash_timeout_seconds == 120.0 and settings.model == DEFAULT_MODEL
    assert "ignoring editor setting maxTurns: must be a whole number of at least 1" in caplog.text


def test_editor_section_accepts_wrapped_and_bare_forms():
    assert editor_section({"workspaceAgent": {"model": "m"}}) == {"model": "m"}
    assert editor_section({"model": "m"}) == {"model": "m"}
    assert editor_section(None) == {}


def test_the_key_never_shows_in_repr():
    assert "sk-secret" not in repr(AgentSettings(api_key="sk-secret"))


def test_a_workspace_env_cannot_send_the_key_elsewhere(tmp_path: Path):
    (tmp_path / ".env").write_text("ANTHROPIC_BASE_URL=http://collector.example\n")
    settings = resolve_settings(tmp_path, {}, {"ANTHROPIC_API_KEY": "sk-user"})
    assert settings.base_url is None
    assert settings.notes == (
        "Ignored ANTHROPIC_BASE_URL from the workspace's .env file: the API key comes from the "
        "environment, and a workspace may not send it to another host. To allow it, enable the "
        "user setting workspaceAgent.allowWorkspaceBaseUrl.",
    )
    allowed = resolve_settings(
        tmp_path, {"allowWorkspaceBaseUrl": True}, {"ANTHROPIC_API_KEY": "sk-user"}
    )
    assert allowed.base_url == "http://collector.example" and allowed.notes == ()
    # A .env that brings its own key may name its own host.
    (tmp_path / ".env").write_text(
        "ANTHROPIC_API_KEY=sk-project\nANTHROPIC_BASE_URL=http://proxy.example\n"
    )
    own = resolve_settings(tmp_path, {}, {})
    assert own.base_url == "http://proxy.example" and own.api_key == "sk-project"


def test_approvals_setting_is_validated(tmp_path: Path, caplog):
    assert resolve_settings(tmp_path, {"approvals": {"bash": "allow"}}, {}).approval_policy == {
        "bash": "allow",
        "mcp": "ask",
        "write": "allow",
    }
    assert resolve_settings(tmp_path, {"approvals": {"bash": "maybe"}}, {}).approval_policy == {
        "bash": "sandboxed",
        "mcp": "ask",
        "write": "allow",
    }
    assert (
        "ignoring editor setting approvals: 'bash': 'maybe' is not one of ask | allow | deny"
        in caplog.text
    )
    assert resolve_settings(
        tmp_path, {"approvals": {"write": "sandboxed"}}, {}
    ).approval_policy == {
        "bash": "sandboxed",
        "mcp": "ask",
        "write": "allow",
    }
    assert "'write': 'sandboxed' applies to bash only" in caplog.text
    assert resolve_settings(tmp_path, {"approvals": {"mcp": "allow"}}, {}).approval_policy == {
        "bash": "sandboxed",
        "mcp": "allow",
        "write": "allow",
    }


def test_the_sandbox_mode_comes_from_the_environment_but_never_from_a_workspace_env(
    tmp_path: Path, caplog
):
    (tmp_path / ".env").write_text("WORKSPACE_AGENT_SANDBOX=off\n")
    assert resolve_settings(tmp_path, {}, {}).sandbox_mode == "auto"
    assert caplog.text == ""  # skipped silently, not read and found invalid
    assert resolve_settings(tmp_path, {}, {"WORKSPACE_AGENT_SANDBOX": "off"}).sandbox_mode == "off"


def test_writable_paths_take_absolute_and_home_folders(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    settings = resolve_settings(
        tmp_path, {"sandbox": {"writablePaths": ["~/builds", "/srv/shared-out"]}}, {}
    )
    assert settings.sandbox_writable_paths == ("~/builds", "/srv/shared-out")


@pytest.mark.parametrize(
    ("entry", "why"),
    [
        ("builds", "'builds' is not an absolute path: write it as /path/to/folder or ~/folder"),
        ("/", "'/': / would leave no sandbox to speak of"),
        ("~", "'~': {home} is your home folder or holds it"),
        ("{parent}", "is your home folder or holds it"),
        ("~/.ssh", "'~/.ssh': {home}/.ssh would let commands reach {home}/.ssh (credentials)"),
        ("~/.aws/sub", "would let commands reach {home}/.aws (credentials)"),
        ("~/.config", "would let commands reach {home}/.config/gh (credentials)"),
        ("~/.config/workspace-agent", "(the agent's own settings)"),
    ],
)
def test_writable_paths_refuse_what_would_open_the_sandbox(
    tmp_path: Path, monkeypatch, caplog, entry: str, why: str
):
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("WORKSPACE_AGENT_CONFIG_DIR", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    entry = entry.replace("{parent}", str(tmp_path))
    settings = resolve_settings(tmp_path, {"sandbox.writablePaths": ["~/ok", entry]}, {})
    assert settings.sandbox_writable_paths == ()  # the list is refused whole, as written
    assert "ignoring editor setting sandbox.writablePaths: " in caplog.text
    assert why.replace("{home}", str(home)) in caplog.text
    assert "remove it from the list" in caplog.text


def test_with_both_a_key_and_a_token_the_key_is_used_and_a_note_says_so(tmp_path: Path):
    """anthropic 2.17 refuses a client given both: one rule picks the key, whatever the
    base URL and wherever each came from, and says so in one line."""
    environ = {"ANTHROPIC_API_KEY": "sk-user", "ANTHROPIC_AUTH_TOKEN": "gw-token"}
    both = resolve_settings(tmp_path, {"baseUrl": "http://gateway.example"}, environ)
    assert (both.api_key, both.auth_token, both.base_url) == (
        "sk-user",
        None,
        "http://gateway.example",
    )
    assert both.notes == (
        "Both ANTHROPIC_API_KEY (the environment) and ANTHROPIC_AUTH_TOKEN (the environment) "
        "are set: the API key is used and the token is left out; unset one to choose.",
    )
    # A workspace .env holding only the token, beside the user's key.
    (tmp_path / ".env").write_text("ANTHROPIC_AUTH_TOKEN=project-token\n")
    mixed = resolve_settings(tmp_path, {}, {"ANTHROPIC_API_KEY": "sk-user"})
    assert (mixed.api_key, mixed.auth_token) == ("sk-user", None)
    assert mixed.notes == (
        "Both ANTHROPIC_API_KEY (the environment) and ANTHROPIC_AUTH_TOKEN (the workspace's "
        ".env file) are set: the API key is used and the token is left out; unset one to "
        "choose.",
    )
    # The token alone is kept, with nothing to say.
    alone = resolve_settings(tmp_path, {}, {})
    assert (alone.api_key, alone.auth_token, alone.notes) == (None, "project-token", ())
