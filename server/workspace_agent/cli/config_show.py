"""`workspace-agent config`: the settings a run here would get (the CLI and ACP read the
same files, agent/settings_file.py), each with where it came from, then the problems the
settings files have."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..agent.settings_file import (
    read_settings,
    resolve_with_files,
    user_settings_path,
    workspace_settings_path,
)
from ..config import KEYS, Key


def show_config(root: Path) -> int:
    found = read_settings(root)
    settings = resolve_with_files(root, {})
    print(f"user settings file: {user_settings_path()}")
    print(f"workspace settings file: {workspace_settings_path(root)}")
    rows = []
    for key in KEYS:
        name = key.editor or key.env or key.field
        value: Any = getattr(settings, key.field)
        if key.field == "api_key":
            value = "set" if value else "not set"
        rows.append((name, _shown(key.field, value), _source(key, found.sources, root)))
    width = max(len(name) for name, _value, _source_ in rows) + 2
    for name, value, source in rows:
        print(f"{name:<{width}}{value}  [{source}]")
    for problem in found.problems:
        print(f"problem: {problem}")
    return 1 if found.problems else 0


def _shown(field: str, value: Any) -> str:
    if field == "approvals":
        value = dict(value)
    elif field == "mcp_servers":
        value = json.loads(value) if value else {}
    elif isinstance(value, tuple):
        value = list(value)
    return json.dumps(value) if not isinstance(value, str) else value


def _source(key: Key, files: dict[str, str], root: Path) -> str:
    """The first source that sets the key, in resolve_settings' order."""
    if key.editor and key.editor in files:
        return files[key.editor]
    if key.env and os.environ.get(key.env):
        return f"environment {key.env}"
    if key.env and key.from_dotenv and (root / ".env").is_file():
        from dotenv import dotenv_values

        if dotenv_values(root / ".env").get(key.env):
            return f"{root / '.env'} {key.env}"
    return "default"
