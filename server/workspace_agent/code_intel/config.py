"""The language servers the user configured: the `lspServers` setting
(`{name: {command: [...], extensions: [...], initializationOptions?}}`) and Claude Code's
`.lsp.json` plugin shape (`{name: {command: "...", args: [...], extensionToLanguage:
{".py": "python"}, initializationOptions?}}`), the latter also read from `.lsp.json` in
the user's config folder. User settings only: a repository cannot start programs.
Every problem names the server and the key, and says what the shape should be.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SHAPE = '{"NAME": {"command": ["program", "arg"], "extensions": [".py"]}}'


@dataclass(frozen=True)
class ServerSpec:
    name: str
    command: tuple[str, ...]
    extensions: tuple[str, ...]
    """Lower-case, each with its dot (".py")."""
    initialization_options: Any = field(default=None, hash=False)
    languages: dict[str, str] = field(default_factory=dict, hash=False)
    """Extension → LSP language id (`.lsp.json`'s extensionToLanguage)."""

    def handles(self, path: Path) -> bool:
        return path.suffix.lower() in self.extensions

    def language_of(self, path: Path) -> str:
        suffix = path.suffix.lower()
        return self.languages.get(suffix) or KNOWN_LANGUAGES.get(suffix, suffix.lstrip("."))


KNOWN_LANGUAGES = {
    ".py": "python",
    ".pyi": "python",
    ".ts": "typescript",
    ".tsx": "typescriptreact",
    ".js": "javascript",
    ".jsx": "javascriptreact",
    ".go": "go",
    ".rs": "rust",
    ".c": "c",
    ".h": "c",
    ".cpp": "cpp",
    ".java": "java",
    ".rb": "ruby",
}


@dataclass(frozen=True)
class Configured:
    servers: tuple[ServerSpec, ...]
    problems: tuple[str, ...]


def configured(setting_json: str, user_dir: Path | None) -> Configured:
    """The servers of the `lspServers` setting (JSON text, as settings keep it) and of the
    user's `.lsp.json`; a name in both is the setting's."""
    servers: dict[str, ServerSpec] = {}
    problems: list[str] = []
    if user_dir is not None:
        file = user_dir / ".lsp.json"
        try:
            raw = json.loads(file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raw = None
        except (OSError, ValueError) as exc:
            problems.append(f"{file}: not read ({exc}); fix its JSON, shaped {SHAPE}")
            raw = None
        if raw is not None:
            servers.update(_servers(raw, str(file), problems))
    if setting_json:
        servers.update(_servers(json.loads(setting_json), "lspServers", problems))
    return Configured(tuple(servers.values()), tuple(problems))


def _servers(raw: Any, where: str, problems: list[str]) -> dict[str, ServerSpec]:
    if not isinstance(raw, dict):
        problems.append(f"{where}: must be an object shaped {SHAPE}")
        return {}
    found = {}
    for name, entry in raw.items():
        try:
            found[name] = _server(name, entry)
        except ValueError as exc:
            problems.append(f"{where}: server {name!r}: {exc}; it is not used")
    return found


def _server(name: str, entry: Any) -> ServerSpec:
    if not isinstance(entry, dict):
        raise ValueError(f"must be an object shaped {SHAPE}")
    command = entry.get("command")
    args = entry.get("args", [])
    if isinstance(command, str) and command.strip():
        command = [command, *args] if isinstance(args, list) else None
    if (
        not isinstance(command, list)
        or not command
        or not all(isinstance(part, str) and part for part in command)
    ):
        raise ValueError('"command" must be a program and its arguments: ["pylsp"]')
    languages: dict[str, str] = {}
    mapping = entry.get("extensionToLanguage")
    if isinstance(mapping, dict):
        languages = {_dotted(k): str(v) for k, v in mapping.items() if isinstance(k, str)}
    extensions = entry.get("extensions", list(languages))
    if (
        not isinstance(extensions, list)
        or not extensions
        or not all(isinstance(e, str) and e.strip(". ") for e in extensions)
    ):
        raise ValueError('"extensions" must list the files it serves: [".py", ".pyi"]')
    return ServerSpec(
        name,
        tuple(command),
        tuple(_dotted(e) for e in extensions),
        entry.get("initializationOptions"),
        languages,
    )


def _dotted(extension: str) -> str:
    extension = extension.strip().lower()
    return extension if extension.startswith(".") else "." + extension
