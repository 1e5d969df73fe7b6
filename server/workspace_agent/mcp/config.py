"""One model of an MCP server's configuration, from every shape users already have.

Shapes: `{"mcpServers": {...}}` (Claude Code's `.mcp.json`, Cursor, our own
`~/.config/workspace-agent/mcp.json`), `{"servers": {...}}` (VS Code's `mcp.json`), and
ACP's `mcpServers` list (acp/agent.py converts it). An entry is stdio (`command`, `args`,
`env`, `cwd`) or http (`url`, `headers`).

`${VAR}` (also `${env:VAR}`, `${VAR:-default}`) is expanded only in the user's own
config, never to an `ANTHROPIC_*` variable; `${workspaceFolder}` everywhere. Any other
`${...}` left (an unset variable, VS Code's `${input:...}`, any variable in a workspace's
file) skips the server with the reason: sending it literally is what leaked keys
elsewhere. A server whose environment would carry the model API key is skipped too.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..contract import McpSource
from ..shared import workspace_files

Transport = Literal["stdio", "http"]
Source = McpSource
"""Where a server was configured (the contract's McpSource)."""

STARTUP_TIMEOUT = 10.0
CALL_TIMEOUT = 60.0
SERVER_NAME = re.compile(r"^[A-Za-z0-9_.@-]{1,64}$")
_VARIABLE = re.compile(r"\$\{([^}]*)\}")


class ConfigError(ValueError):
    """An entry that cannot be used; the message names it and says why."""


@dataclass(frozen=True)
class ServerConfig:
    name: str
    transport: Transport
    command: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None
    url: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    source: Source = "user"
    origin: str = ""
    """Where it was configured, for the user: a file, or "ACP session/new"."""
    read_only: bool = False
    """The user says its tools change no files: its calls are not checkpointed."""
    allow_tools: tuple[str, ...] | None = None
    deny_tools: tuple[str, ...] = ()
    startup_timeout: float = STARTUP_TIMEOUT
    call_timeout: float = CALL_TIMEOUT
    program_in_workspace: bool = False
    """Its program exists only inside the workspace (or another place sandboxed commands
    may write): whoever configured it, it is a candidate like a workspace's server."""

    @property
    def needs_trust(self) -> bool:
        """A workspace's file is a candidate only: it starts once the user approved it.
        So is any server whose program lives in the workspace, where a command may have
        planted it."""
        return self.source == "workspace" or self.program_in_workspace

    @property
    def where(self) -> str:
        """Why it is a candidate, for the user: its file, or where its program is."""
        if self.source == "workspace":
            return f"the workspace's {self.origin}"
        return f"{self.origin}, whose program {self.command} is inside the workspace"

    def fingerprint(self) -> str:
        """sha256 of what the server runs as: any change of command, argument, env name or
        value, cwd, url or header makes another fingerprint (trust is never by name)."""
        canonical = json.dumps(
            {
                "transport": self.transport,
                "command": self.command,
                "args": list(self.args),
                "env": dict(self.env),
                "cwd": self.cwd,
                "url": self.url,
                "headers": dict(self.headers),
            },
            sort_keys=True,
            separators=(",", ":"),
        )
        return hashlib.sha256(canonical.encode()).hexdigest()

    def describe(self) -> str:
        """What the user approves: the command line (or URL), cwd and env names (values
        hidden: they may be tokens)."""
        if self.transport == "stdio":
            what = " ".join(_quoted(part) for part in (self.command or "", *self.args))
        else:
            what = f"{self.url}" + (
                f" (headers: {', '.join(k for k, _ in self.headers)})" if self.headers else ""
            )
        parts = [what, f"cwd {self.cwd or '(the workspace)'}"]
        if self.env:
            parts.append("env " + ", ".join(name for name, _ in self.env))
        return "; ".join(parts)


@dataclass
class Parsed:
    servers: list[ServerConfig] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def parse_document(
    data: Any,
    *,
    source: Source,
    origin: str,
    root: Path | None,
    environ: Mapping[str, str] | None = None,
) -> Parsed:
    """The servers of one config document ({mcpServers} or {servers}); bad entries become
    problems, the others are kept."""
    parsed = Parsed()
    if not isinstance(data, Mapping):
        parsed.problems.append(f"{origin}: not a JSON object")
        return parsed
    entries = data.get("mcpServers", data.get("servers"))
    if entries is None:
        return parsed
    if not isinstance(entries, Mapping):
        parsed.problems.append(f"{origin}: mcpServers / servers must be an object")
        return parsed
    for name, entry in entries.items():
        try:
            server = parse_entry(
                str(name), entry, source=source, origin=origin, root=root, environ=environ
            )
        except ConfigError as exc:
            parsed.problems.append(f"{origin}: server {name!r}: {exc}")
            continue
        if server is not None:
            parsed.servers.append(server)
    return parsed


def parse_file(
    path: Path,
    *,
    source: Source,
    root: Path | None,
    environ: Mapping[str, str] | None = None,
    origin: str | None = None,
) -> Parsed:
    try:
        if source == "workspace" and root is not None:  # stays in the workspace
            if not path.exists() and not path.is_symlink():
                return Parsed()
            text = workspace_files.read_text(path, root)
        else:
            text = path.read_text(encoding="utf-8")
        data = json.loads(text)
    except FileNotFoundError:
        return Parsed()
    except workspace_files.LeadsOutside as exc:
        return Parsed(problems=[f"{exc}; its servers are left out"])
    except (OSError, ValueError) as exc:
        return Parsed(problems=[f"{path}: cannot be read as JSON: {exc}"])
    return parse_document(
        data, source=source, origin=origin or str(path), root=root, environ=environ
    )


def parse_entry(
    name: str,
    entry: Any,
    *,
    source: Source,
    origin: str,
    root: Path | None,
    environ: Mapping[str, str] | None = None,
) -> ServerConfig | None:
    """One server, or None when it is disabled; ConfigError when it cannot be used."""
    if not SERVER_NAME.match(name):
        raise ConfigError("the name may hold only letters, digits, '_', '-', '.', '@'")
    if not isinstance(entry, Mapping):
        raise ConfigError("must be an object")
    if entry.get("disabled") is True or entry.get("enabled") is False:
        return None
    expand = _Expander(source, root, os.environ if environ is None else environ)
    kind = entry.get("type", "stdio" if "command" in entry else "http")
    if kind in ("http", "streamable-http", "streamableHttp"):
        transport: Transport = "http"
    elif kind == "stdio":
        transport = "stdio"
    elif kind == "sse":
        raise ConfigError("SSE servers are not supported (MCP deprecated SSE): use http")
    else:
        raise ConfigError(f"unknown type {kind!r} (stdio or http)")
    user = source != "workspace"
    common: dict[str, Any] = {
        "name": name,
        "transport": transport,
        "source": source,
        "origin": origin,
        "read_only": user and _flag(entry, "readOnly"),
        "allow_tools": _names(entry, "allowTools") if "allowTools" in entry else None,
        "deny_tools": _names(entry, "denyTools") or (),
        "startup_timeout": _seconds(entry, "startupTimeoutSeconds", STARTUP_TIMEOUT),
        "call_timeout": _seconds(entry, "timeoutSeconds", CALL_TIMEOUT),
    }
    if transport == "stdio":
        command = entry.get("command")
        if not isinstance(command, str) or not command.strip():
            raise ConfigError("stdio needs a command")
        args = entry.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise ConfigError("args must be a list of strings")
        cwd = entry.get("cwd")
        if cwd is not None and not isinstance(cwd, str):
            raise ConfigError("cwd must be a string")
        env = _pairs(entry.get("env", {}), "env")
        server = ServerConfig(
            command=expand(command),
            args=tuple(expand(a) for a in args),
            env=tuple((k, expand(v)) for k, v in env),
            cwd=expand(cwd) if cwd else None,
            **common,
        )
    else:
        url = entry.get("url")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ConfigError("http needs a url starting with http:// or https://")
        headers = _pairs(entry.get("headers", {}), "headers")
        server = ServerConfig(
            url=expand(url), headers=tuple((k, expand(v)) for k, v in headers), **common
        )
    check_environment(server, environ)
    return server


def check_environment(server: ServerConfig, environ: Mapping[str, str] | None = None) -> None:
    """Refuse a server that would be handed the model API key."""
    environ = os.environ if environ is None else environ
    key = environ.get("ANTHROPIC_API_KEY")
    values = [v for _, v in (*server.env, *server.headers)] + list(server.args)
    for name, _ in server.env:
        if name.startswith("ANTHROPIC_"):
            raise ConfigError(f"env {name}: the model API's variables are never passed on")
    if key and any(key in value for value in [*values, server.url or ""]):
        raise ConfigError("it would be given the model API key")


class _Expander:
    def __init__(self, source: Source, root: Path | None, environ: Mapping[str, str]) -> None:
        self._user = source != "workspace"
        self._root = root
        self._environ = environ

    def __call__(self, value: str) -> str:
        def one(match: re.Match[str]) -> str:
            inner = match.group(1)
            if inner == "workspaceFolder" and self._root is not None:
                return str(self._root)
            if inner.startswith("input:"):
                raise ConfigError(
                    f"{match.group(0)} needs a value VS Code prompts for; set it in the "
                    "server's env instead"
                )
            if not self._user:
                raise ConfigError(
                    f"{match.group(0)}: a workspace's config may not read environment "
                    "variables (move the server to your own mcp.json)"
                )
            name, _, default = inner.removeprefix("env:").partition(":-")
            if name.startswith("ANTHROPIC_"):
                raise ConfigError(f"{match.group(0)}: the model API's variables are not expanded")
            if name in self._environ:
                return self._environ[name]
            if ":-" in inner:
                return default
            raise ConfigError(f"{match.group(0)} is not set")

        return _VARIABLE.sub(one, value)


def _pairs(value: Any, what: str) -> list[tuple[str, str]]:
    if isinstance(value, Mapping):
        items = list(value.items())
    elif isinstance(value, list):  # ACP: [{name, value}]
        items = [(i.get("name"), i.get("value")) for i in value if isinstance(i, Mapping)]
    else:
        raise ConfigError(f"{what} must be an object of strings")
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in items):
        raise ConfigError(f"{what} must be an object of strings")
    return sorted(items)


def _flag(entry: Mapping[str, Any], key: str) -> bool:
    value = entry.get(key, False)
    if not isinstance(value, bool):
        raise ConfigError(f"{key} must be true or false")
    return value


def _names(entry: Mapping[str, Any], key: str) -> tuple[str, ...] | None:
    value = entry.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{key} must be a list of tool names")
    return tuple(value)


def _seconds(entry: Mapping[str, Any], key: str, default: float) -> float:
    value = entry.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ConfigError(f"{key} must be a number of seconds above 0")
    return float(value)


def _quoted(part: str) -> str:
    import shlex

    return shlex.quote(part)
