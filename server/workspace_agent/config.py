"""Agent settings: one table of keys drives reading them from the editor, the environment
and the workspace `.env`.

Precedence, highest first: editor settings (initializationOptions or
workspace/didChangeConfiguration, section `workspaceAgent`), the server's environment,
the workspace root's `.env`, then the defaults below. Settings are resolved at the start
of every run, so an edited `.env` or setting applies to the next run.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from .contract import SERVER_SETTINGS

log = logging.getLogger(__name__)

DEFAULT_MODEL = "claude-sonnet-5-5"


@dataclass(frozen=True)
class AgentSettings:
    api_key: str | None = None
    auth_token: str | None = None
    """ANTHROPIC_AUTH_TOKEN: sent as `Authorization: Bearer` (gateways), instead of the key:
    with both set, the key is used and the token left out (a note says so)."""
    base_url: str | None = None
    provider: str = "anthropic"
    """anthropic | bedrock | vertex: the SDK client that calls the model (agent/providers.py)."""
    bedrock_region: str | None = None
    vertex_project_id: str | None = None
    vertex_region: str | None = None
    custom_headers: tuple[tuple[str, str], ...] = ()
    """Headers sent with every model request (a gateway's), as pairs so settings hash."""
    model: str = DEFAULT_MODEL
    max_turns: int = 50
    max_tokens: int = 8192
    thinking: str | None = None
    """off | low | medium | high | max; None: the model family's default (agent/thinking.py)."""
    thinking_style: str = "auto"
    """The form of thinking the model takes: auto (the family table), adaptive, budget, none."""
    bash_timeout_seconds: float = 120.0
    max_file_bytes: int = 10 * 1024 * 1024
    max_retries: int = 4
    """Retries of a model call that failed in a way that may pass (429, 5xx, network)."""
    retry_base_seconds: float = 1.0
    """First backoff delay; doubles per retry (with jitter) unless the API says retry-after."""
    context_window: int = 200_000
    """Tokens the model accepts; the conversation is compacted as it nears this."""
    prompt_caching: bool = True
    """Mark prompt-cache breakpoints (tools, system prompt, conversation tail)."""
    context_max_chars: int = 20_000
    """Selected text a run's editor context carries before it is cut (with a note)."""
    code_actions_enabled: bool = True
    """Offer "Fix with Workspace Agent" / "Ask Workspace Agent" code actions."""
    follow_agent: bool = False
    """Ask the editor to show each file the agent edits (window/showDocument)."""
    max_run_tokens: int = 0
    """Stop a run once it has used this many tokens (input + output); 0: no cap."""
    approvals: tuple[tuple[str, str], ...] = (
        ("bash", "sandboxed"),
        ("mcp", "ask"),
        ("write", "allow"),
    )
    """Policy per kind of action (see guard/approvals.py), as pairs so settings hash."""
    secret_env_names: tuple[str, ...] = ()
    """Extra name parts that mark environment variables as secrets for commands."""
    allow_workspace_base_url: bool = False
    """Let a workspace .env point the API key at another host (user-level setting only)."""
    sandbox_mode: str = "auto"
    """Commands in the sandbox: "auto" (where it can start), "required" or "off" (sandbox/)."""
    sandbox_masked_paths: tuple[str, ...] = ()
    """Paths sandboxed commands cannot read, added to the built-in credential locations."""
    sandbox_allowed_domains: tuple[str, ...] = ()
    """Hosts sandboxed commands may reach through the proxy (user settings only)."""
    sandbox_real_caches: bool = False
    """Sandboxed commands write the real package caches (~/.cache, ~/.npm, ~/.cargo, ~/go)
    instead of the session's own (user settings only)."""
    sandbox_writable_paths: tuple[str, ...] = ()
    """More folders sandboxed commands may write (absolute or `~/`, as written; user
    settings only; checked by writable_path_problem)."""
    web: str = "ask"
    """The web tools (web/): "ask" (the first search of a session and each new host a fetch
    reaches are asked about), "allow" (no question; metadata addresses still refused) or
    "off" (web_search and web_fetch are not offered). User settings only."""
    checkpoints_enabled: bool = True
    """Record the workspace around every file-changing tool call (see checkpoints/)."""
    checkpoints_max_bytes: int = 1 << 30
    """Size the checkpoint store may grow to before the oldest sessions are pruned."""
    checkpoints_watch_files: bool = True
    """A file watcher tells the store's scans what changed (checkpoints/changefeed.py)."""
    mcp_startup_wait_seconds: float = 10.0
    """How long a run's first request waits for the MCP servers the ACP client handed in
    that are still starting, counted from each server's start (0: it never waits)."""
    mcp_servers: str = ""
    """The user-scope setting mcp.servers (VS Code's mcp.json `servers`), as JSON text so
    settings stay hashable; read by the MCP support (mcp/sources.py)."""
    lsp_servers: str = ""
    """The user-scope setting lspServers (language servers the agent starts for code_intel
    and rename_symbol), as JSON text; read by code_intel/config.py."""
    instruction_files: tuple[str, ...] = ("AGENTS.md", "CLAUDE.md")
    """Project instruction file names, the first one found in a folder wins (instructions/)."""
    notes: tuple[str, ...] = field(default=(), compare=False)
    """What the user should know about how the settings were resolved."""

    @property
    def approval_policy(self) -> dict[str, str]:
        return dict(self.approvals)

    def __repr__(self) -> str:  # never print a credential, not even in a debug log
        hidden = ("api_key", "auth_token", "custom_headers")
        shown = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in hidden}
        told = ", ".join(f"{name}={'set' if getattr(self, name) else 'unset'}" for name in hidden)
        return f"AgentSettings({told}, {shown})"


@dataclass(frozen=True)
class Key:
    """One setting: its field, its editor key, its environment variable and its parser."""

    field: str
    editor: str | None
    env: str | None
    parse: Callable[[Any], Any]
    from_dotenv: bool = True
    """False: the workspace's .env may not set it (it would loosen the user's limits)."""


def _text(value: Any) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise ValueError("must be a string")
    return value.strip()


def _positive_int(value: Any) -> int:
    number = int(value)
    if number < 1 or (isinstance(value, float) and not value.is_integer()):
        raise ValueError("must be a whole number of at least 1")
    return number


def _count(value: Any) -> int:
    number = int(value)
    if number < 0 or (isinstance(value, float) and not value.is_integer()):
        raise ValueError("must be a whole number of at least 0")
    return number


def _seconds(value: Any) -> float:
    number = float(value)
    if not number >= 0:
        raise ValueError("must be a number of seconds, 0 or more")
    return number


def _positive_float(value: Any) -> float:
    number = float(value)
    if not number > 0:
        raise ValueError("must be a number above 0")
    return number


APPROVAL_MODES: dict[str, tuple[str, ...]] = {
    "bash": ("ask", "allow", "deny", "sandboxed"),
    "write": ("ask", "allow", "deny", "review"),
}
"""The values each approval kind takes; other kinds (mcp) take ask | allow | deny."""
# mcp (the tools of the user's MCP servers) is in the defaults above: asked about.


def _approvals(value: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, Mapping):
        raise ValueError('must be an object like {"bash": "ask", "write": "allow"}')
    policy = dict(AgentSettings.approvals)
    for kind, mode in value.items():
        if mode == "sandboxed" and kind != "bash":
            raise ValueError(f"{kind!r}: 'sandboxed' applies to bash only")
        modes = APPROVAL_MODES.get(kind, ("ask", "allow", "deny"))
        if kind not in policy or mode not in modes:
            raise ValueError(
                f"{kind!r}: {mode!r} is not one of ask | allow | deny for bash | write | mcp "
                "(bash may also be sandboxed, write review)"
            )
        policy[kind] = mode
    return tuple(sorted(policy.items()))


def _names(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError("must be a list of non-empty strings")
    return tuple(v.strip() for v in value)


def _file_names(value: Any) -> tuple[str, ...]:
    names = _names(value)
    if any("/" in name or "\\" in name or name in (".", "..") for name in names):
        raise ValueError("must be plain file names (no folders), like AGENTS.md")
    return names


def _json_object(value: Any) -> str:
    if not isinstance(value, Mapping):
        raise ValueError('must be an object like {"time": {"command": "uvx", ...}}')
    return json.dumps(value, sort_keys=True)


THINKING_LEVELS = ("off", "low", "medium", "high", "max")
THINKING_STYLES = ("auto", "adaptive", "budget", "none")
WEB_MODES = ("ask", "allow", "off")
"""The same values as agent/thinking.py's LEVELS and STYLES (kept here: no import)."""


def _one_of(values: tuple[str, ...]) -> Callable[[Any], str]:
    def parse(value: Any) -> str:
        if not isinstance(value, str) or value.strip().lower() not in values:
            raise ValueError(f"{value!r} is not one of {' | '.join(values)}")
        return value.strip().lower()

    return parse


PROVIDERS = ("anthropic", "bedrock", "vertex")
"""The same values as agent/providers.py's table (kept here: no import)."""
HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
"""An HTTP header name (RFC 9110 token)."""


def _headers(value: Any) -> tuple[tuple[str, str], ...]:
    """An object {name: value}, or ANTHROPIC_CUSTOM_HEADERS' `Name: value` lines."""
    if isinstance(value, str):
        pairs = [line.partition(":") for line in value.splitlines() if line.strip()]
        if any(not colon for _, colon, _ in pairs):
            raise ValueError("must be `Name: value` lines")
        value = {name.strip(): text.strip() for name, _, text in pairs}
    if not isinstance(value, Mapping):
        raise ValueError('must be an object like {"X-Gateway-Team": "tools"}')
    for name, text in value.items():
        if not isinstance(name, str) or not HEADER_NAME.match(name):
            raise ValueError(f"{name!r} is not an HTTP header name")
        if not isinstance(text, str) or "\r" in text or "\n" in text:
            raise ValueError(f"{name}: the value must be a string on one line")
    return tuple(sorted((name, text.strip()) for name, text in value.items()))


SANDBOX_MODES = ("auto", "required", "off")
HOST_NAME = re.compile(r"^[A-Za-z0-9.-]+$|^\[[0-9A-Fa-f:.]+\]$")
"""A host name or a bracketed IP address (sandbox.allowedDomains; the sandbox's proxy)."""


def valid_pattern(pattern: str) -> bool:
    """`example.com`, `*.example.com` or `localhost:3000` (one port of the host's own
    services); not `*` nor a bare top-level `*.com`."""
    text = pattern.strip().lower()
    host, colon, port = text.rpartition(":")
    if colon and port.isdigit() and 0 < int(port) < 65536 and not host.startswith("*"):
        text = host
    if not text or text == "*" or not HOST_NAME.match(text.removeprefix("*.")):
        return False
    return not text.startswith("*.") or text.count(".") >= 2


def _sandbox_mode(value: Any) -> str:
    if value not in SANDBOX_MODES:
        raise ValueError(f"{value!r} is not one of {' | '.join(SANDBOX_MODES)}")
    return str(value)


def _domains(value: Any) -> tuple[str, ...]:
    names = _names(value)
    bad = [name for name in names if not valid_pattern(name)]
    if bad:
        raise ValueError(
            f"{', '.join(map(repr, bad))}: not a host name or a pattern like *.example.com"
        )
    return tuple(name.lower() for name in names)


SECRET_LOCATIONS = (
    "~/.ssh",
    "~/.aws",
    "~/.gnupg",
    "~/.config/gh",
    "~/.config/gcloud",
    "~/.azure",
    "~/.docker",
    "~/.kube",
    "~/.netrc",
    "~/.git-credentials",
    "~/.npmrc",
    "~/.pypirc",
)
"""The credential locations of a home folder: hidden from sandboxed commands
(sandbox/policy.py's masks start with these) and never a writable folder."""


def leaves_no_sandbox(path: Path, home: str) -> bool:
    """Whether writing `path` (absolute, normalized) would leave no sandbox: `/`, the home
    folder, or a folder that holds it."""
    home_path = Path(os.path.normpath(home)) if home.startswith("/") else None
    return path == Path("/") or (
        home_path is not None and (path == home_path or path in home_path.parents)
    )


def writable_path_problem(path: Path, home: str, config_dir: Path | None = None) -> str | None:
    """Why `path` (absolute, normalized) cannot be a writable folder of the sandbox, or None.
    Refused: `/`, the home folder and what holds it (no sandbox would be left), and a folder
    that is inside or holds a credential location or the agent's own settings (a command
    could read a key there, plant one in ~/.ssh/authorized_keys, or widen its own sandbox)."""
    home_path = Path(os.path.normpath(home)) if home.startswith("/") else None
    if path == Path("/"):
        return "/ would leave no sandbox to speak of"
    if leaves_no_sandbox(path, home):
        return f"{path} is your home folder or holds it: that would leave no sandbox to speak of"
    guarded = [
        Path(os.path.normpath(home + raw[1:])) for raw in SECRET_LOCATIONS if home_path is not None
    ]
    guarded.append(Path(os.path.normpath(config_dir or user_config_dir())))
    for secret in guarded:
        if path == secret or secret in path.parents or path in secret.parents:
            kind = "the agent's own settings" if secret == guarded[-1] else "credentials"
            return f"{path} would let commands reach {secret} ({kind})"
    return None


def expand_folder(raw: str, home: str) -> Path | None:
    """`~/x` or `/x` as an absolute, normalized path; None for a relative one."""
    text = raw.strip()
    if text == "~" or text.startswith("~/"):
        text = home.rstrip("/") + text[1:]
    if not text.startswith("/"):
        return None
    return Path(os.path.normpath(text))


def _writable_paths(value: Any) -> tuple[str, ...]:
    names = _names(value)
    home = os.path.expanduser("~")
    for name in names:
        path = expand_folder(name, home)
        if path is None:
            raise ValueError(
                f"{name!r} is not an absolute path: write it as /path/to/folder or ~/folder, "
                "or remove it from the list"
            )
        problem = writable_path_problem(path, home)
        if problem:
            raise ValueError(f"{name!r}: {problem}; remove it from the list")
    return names


def _flag(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("1", "true", "yes", "0", "false", "no"):
        return value.lower() in ("1", "true", "yes")
    raise ValueError("must be true or false")


PARSERS: dict[str, Callable[[Any], Any]] = {
    "base_url": _text,
    "provider": _one_of(PROVIDERS),
    "bedrock_region": _text,
    "vertex_project_id": _text,
    "vertex_region": _text,
    "custom_headers": _headers,
    "model": _text,
    "max_turns": _positive_int,
    "max_tokens": _positive_int,
    "thinking": _one_of(THINKING_LEVELS),
    "thinking_style": _one_of(THINKING_STYLES),
    "bash_timeout_seconds": _positive_float,
    "max_file_bytes": _positive_int,
    "max_retries": _count,
    "context_window": _positive_int,
    "max_run_tokens": _count,
    "prompt_caching": _flag,
    "context_max_chars": _positive_int,
    "code_actions_enabled": _flag,
    "follow_agent": _flag,
    "approvals": _approvals,
    "secret_env_names": _names,
    "allow_workspace_base_url": _flag,
    "sandbox_mode": _sandbox_mode,
    "sandbox_masked_paths": _names,
    "sandbox_allowed_domains": _domains,
    "sandbox_real_caches": _flag,
    "sandbox_writable_paths": _writable_paths,
    "web": _one_of(WEB_MODES),
    "checkpoints_enabled": _flag,
    "checkpoints_max_bytes": _positive_int,
    "checkpoints_watch_files": _flag,
    "instruction_files": _file_names,
    "mcp_servers": _json_object,
    "lsp_servers": _json_object,
    "mcp_startup_wait_seconds": _seconds,
}
"""How each server setting of the contract is read, by field: its editor key, environment
variable and whether `.env` may set it come from the contract (contract.SERVER_SETTINGS,
generated from contract/workspace-agent.json)."""

KEYS = (
    Key("api_key", None, "ANTHROPIC_API_KEY", _text),
    Key("auth_token", None, "ANTHROPIC_AUTH_TOKEN", _text),
    Key("retry_base_seconds", None, "WORKSPACE_AGENT_RETRY_BASE_SECONDS", _positive_float),
    *(
        Key(field, editor, env, PARSERS[field], from_dotenv)
        for field, editor, env, from_dotenv in SERVER_SETTINGS
    ),
)
"""Every setting: the contract's server settings, and those only the environment sets."""
EDITOR_KEYS = tuple(key.editor for key in KEYS if key.editor)


def user_config_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The user's own folder for Workspace Agent (user-level AGENTS.md, mcp.json, trust
    records): WORKSPACE_AGENT_CONFIG_DIR, else $XDG_CONFIG_HOME/workspace-agent, else
    ~/.config/workspace-agent. Never inside a workspace."""
    environ = os.environ if environ is None else environ
    if environ.get("WORKSPACE_AGENT_CONFIG_DIR"):
        return Path(environ["WORKSPACE_AGENT_CONFIG_DIR"]).expanduser()
    base = environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base).expanduser() / "workspace-agent"


def claude_config_dir(home: Path | None = None, environ: Mapping[str, str] | None = None) -> Path:
    """Claude Code's user folder, whose skills and agents the user's runs get too:
    `home`/.claude when a home folder is given, else CLAUDE_CONFIG_DIR (Claude Code's own
    variable), else ~/.claude."""
    if home is not None:
        return home / ".claude"
    environ = os.environ if environ is None else environ
    configured = environ.get("CLAUDE_CONFIG_DIR", "").strip()
    return Path(configured).expanduser() if configured else Path.home() / ".claude"


def editor_section(raw: Any, section: str = "workspaceAgent") -> dict[str, Any]:
    """The `workspaceAgent` settings from initializationOptions or a didChangeConfiguration
    payload; both the wrapped form {workspaceAgent: {...}} and the bare section are accepted."""
    if not isinstance(raw, Mapping):
        return {}
    inner = raw.get(section)
    return dict(inner) if isinstance(inner, Mapping) else dict(raw)


def resolve_settings(
    root: Path | None,
    editor: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> AgentSettings:
    """Merge the sources; a value that does not parse is logged and skipped."""
    environ = os.environ if environ is None else environ
    dotenv = _read_dotenv(root)
    editor = editor or {}
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for key in KEYS:
        for source, value in (
            ("editor setting", key.editor and _editor_value(editor, key.editor)),
            ("environment", key.env and environ.get(key.env)),
            (".env", dotenv.get(key.env) if key.env and key.from_dotenv else None),
        ):
            if value is None or value == "":
                continue
            try:
                parsed = key.parse(value)
            except (TypeError, ValueError) as exc:
                log.warning("ignoring %s %s: %s", source, key.editor or key.env, exc)
                continue
            if parsed is not None:
                values[key.field] = parsed
                sources[key.field] = source
                break
    notes: list[str] = []
    credential = next(
        (sources[k] for k in ("api_key", "auth_token") if sources.get(k, ".env") != ".env"),
        None,
    )
    if (
        sources.get("base_url") == ".env"
        and credential
        and not values.get("allow_workspace_base_url", False)
    ):
        del values["base_url"]
        notes.append(
            "Ignored ANTHROPIC_BASE_URL from the workspace's .env file: the API key comes from "
            f"the {credential}, and a workspace may not send it to another host. "
            "To allow it, enable the user setting workspaceAgent.allowWorkspaceBaseUrl."
        )
    if values.get("api_key") and values.get("auth_token"):
        del values["auth_token"]
        notes.append(_both_credentials(sources))
    for note in notes:
        log.warning("%s", note)
    return replace(AgentSettings(), **values, notes=tuple(notes))


def _both_credentials(sources: Mapping[str, str]) -> str:
    """The one rule when both credentials are set, wherever each came from and whatever the
    base URL: the key is used, the token is left out (anthropic 2.17 refuses a client
    given both, and older versions sent both headers)."""
    key, token = (_source_words(sources[k]) for k in ("api_key", "auth_token"))
    return (
        f"Both ANTHROPIC_API_KEY ({key}) and ANTHROPIC_AUTH_TOKEN ({token}) are set: the API "
        "key is used and the token is left out; unset one to choose."
    )


def _source_words(source: str) -> str:
    return "the workspace's .env file" if source == ".env" else f"the {source}"


def _editor_value(editor: Mapping[str, Any], name: str) -> Any:
    """A setting by its key; "a.b" also matches the nested {"a": {"b": ...}} that editors
    send for dotted setting names."""
    if name in editor:
        return editor[name]
    head, dot, rest = name.partition(".")
    section = editor.get(head) if dot else None
    return section.get(rest) if isinstance(section, Mapping) else None


def _read_dotenv(root: Path | None) -> dict[str, str]:
    if root is None:
        return {}
    path = root / ".env"
    if not path.is_file():
        return {}
    from dotenv import dotenv_values  # only when a workspace has a .env

    return {k: v for k, v in dotenv_values(path).items() if v is not None}
