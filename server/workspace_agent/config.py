"""Agent settings: one table of keys drives reading them from the editor, the environment
and the workspace `.env`.

Precedence, highest first: editor settings (initializationOptions or
workspace/didChangeConfiguration, section `workspaceAgent`), the server's environment,
the workspace root's `.env`, then the defaults below. Settings are resolved at the start
of every run, so an edited `.env` or setting applies to the next run.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

DEFAULT_MODEL = "claude-sonnet-5-5"


@dataclass(frozen=True)
class AgentSettings:
    api_key: str | None = None
    base_url: str | None = None
    model: str = DEFAULT_MODEL
    max_turns: int = 50
    max_tokens: int = 8192
    bash_timeout_seconds: float = 120.0

    def __repr__(self) -> str:  # never print the key, not even in a debug log
        shown = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "api_key"}
        return f"AgentSettings(api_key={'set' if self.api_key else 'unset'}, {shown})"


@dataclass(frozen=True)
class Key:
    """One setting: its field, its editor key, its environment variable and its parser."""

    field: str
    editor: str | None
    env: str | None
    parse: Callable[[Any], Any]


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


def _positive_float(value: Any) -> float:
    number = float(value)
    if not number > 0:
        raise ValueError("must be a number above 0")
    return number


KEYS = (
    Key("api_key", None, "ANTHROPIC_API_KEY", _text),
    Key("base_url", "baseUrl", "ANTHROPIC_BASE_URL", _text),
    Key("model", "model", "MODEL_ID", _text),
    Key("max_turns", "maxTurns", "WORKSPACE_AGENT_MAX_TURNS", _positive_int),
    Key("max_tokens", "maxTokens", "WORKSPACE_AGENT_MAX_TOKENS", _positive_int),
    Key(
        "bash_timeout_seconds",
        "bashTimeoutSeconds",
        "WORKSPACE_AGENT_BASH_TIMEOUT",
        _positive_float,
    ),
)
EDITOR_KEYS = tuple(key.editor for key in KEYS if key.editor)


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
    for key in KEYS:
        for source, value in (
            ("editor setting", key.editor and editor.get(key.editor)),
            ("environment", key.env and environ.get(key.env)),
            (".env", key.env and dotenv.get(key.env)),
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
                break
    return replace(AgentSettings(), **values)


def _read_dotenv(root: Path | None) -> dict[str, str]:
    if root is None:
        return {}
    path = root / ".env"
    if not path.is_file():
        return {}
    from dotenv import dotenv_values  # only when a workspace has a .env

    return {k: v for k, v in dotenv_values(path).items() if v is not None}
