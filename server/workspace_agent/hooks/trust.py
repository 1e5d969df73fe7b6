"""Trust in a hook that must be trusted before it runs (a workspace's, or the user's whose
program a sandboxed command could have changed): the user approved its exact command and,
where the command names a script inside the workspace (or another place sandboxed commands
may write), that script's content.

As for MCP servers (mcp/trust.py): kept in the user config folder (`hooks-trust.json`),
never in the repository, keyed by fingerprint, not by name, so a changed command or a
changed script is another fingerprint and is asked about again. The fingerprint is taken
each time the hook is about to run: a script a sandboxed command changed a moment ago is
asked about before it runs.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from ..shared import host_programs, workspace_files
from ..shared.fingerprints import FingerprintRecords
from .config import Hook

TRUST_FILE = "hooks-trust.json"
SCRIPT_BYTES = 4 << 20
"""A script is hashed up to this size (and its size counted whole)."""
PROJECT_DIR = re.compile(r"^\$\{?(CLAUDE_PROJECT_DIR|WORKSPACE_AGENT_PROJECT_DIR)\}?")


@dataclass(frozen=True)
class Candidate:
    """A hook as it is trusted: what it runs, now."""

    hook: Hook
    scripts: tuple[tuple[str, str], ...]
    """(path as the command names it, sha256 of its content or where a link leads)."""

    @property
    def name(self) -> str:
        return f"{self.hook.event}: {self.hook.command}"

    @property
    def origin(self) -> str:
        return self.hook.origin

    def fingerprint(self) -> str:
        canonical = json.dumps(
            {"command": self.hook.command, "scripts": dict(self.scripts)},
            sort_keys=True,
            separators=(",", ":"),
        )
        return hashlib.sha256(canonical.encode()).hexdigest()

    def describe(self) -> str:
        """What the user approves: the command, where it is configured, its scripts."""
        scripts = f" (script {', '.join(path for path, _ in self.scripts)})" if self.scripts else ""
        return f"`{self.hook.command}`{scripts}, a {self.hook.event} hook of {self.hook.origin}"


def candidate(hook: Hook, root: Path) -> Candidate:
    """The hook with the scripts its command names in the workspace, as they are now."""
    return Candidate(hook, tuple(sorted(_scripts(hook.command, root))))


def needs_trust(hook: Hook, found: Candidate) -> bool:
    """A workspace's hook, one whose file a sandboxed command may write, or one that runs a
    script in such a place."""
    return hook.candidate or bool(found.scripts)


class HookTrust:
    def __init__(self, user_dir: Path) -> None:
        self._records = FingerprintRecords(user_dir / TRUST_FILE, "trusted", "trustedAt")
        self.path = self._records.path

    def trusted(self, found: Candidate) -> bool:
        return self._records.has(found)

    def trust(self, found: Candidate) -> None:
        self._records.add(found)


def _scripts(command: str, root: Path) -> list[tuple[str, str]]:
    """The files the command's words name inside places sandboxed commands may write,
    each with its content's sha256 (or, for a link out of the workspace, its target)."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    found: dict[str, str] = {}
    for word in words:
        if word.startswith("-") or ("/" not in word and not word.endswith((".sh", ".py", ".js"))):
            continue
        path = _path_of(word, root)
        if path is None or word in found or not _writable_place(path, root):
            continue
        if not path.is_file() and not path.is_symlink():
            continue
        found[word] = _content_of(path, root)
    return list(found.items())


def _writable_place(path: Path, root: Path) -> bool:
    """Is the file (a link itself, not only where it leads: a command may point it
    elsewhere) in a place sandboxed commands may write?"""
    lexical = Path(os.path.abspath(path))
    return (
        root in lexical.parents
        or host_programs.inside_writable(lexical.parent)
        or host_programs.inside_writable(lexical)
    )


def _path_of(word: str, root: Path) -> Path | None:
    word = PROJECT_DIR.sub(str(root), word.strip("\"'"))
    if "$" in word or "*" in word:
        return None
    path = Path(os.path.expanduser(word))
    return path if path.is_absolute() else root / path


def _content_of(path: Path, root: Path) -> str:
    inside_root = root in Path(os.path.abspath(path)).parents
    try:
        if inside_root:
            data = workspace_files.read_bytes(path, root, SCRIPT_BYTES)
        else:
            with open(path, "rb") as handle:
                data = handle.read(SCRIPT_BYTES)
        return hashlib.sha256(data).hexdigest()
    except workspace_files.LeadsOutside:
        return "link:" + os.path.realpath(path)
    except OSError as exc:
        return f"unreadable:{exc.errno}"
