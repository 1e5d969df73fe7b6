"""Finding and reading instruction files, capped, and their block in the system prompt.

A folder's file is the first of `settings.instruction_files` (AGENTS.md, then CLAUDE.md)
that is a regular file there; a file that leads outside the workspace (a symlink, or in a
linked folder) is not read (shared/workspace_files.py). Each file is capped at CAP_BYTES
with a line saying what was cut, so a huge file cannot crowd out the conversation. The
block is part of the system prompt, which is the same for every request of a run: it stays
inside the cached prefix.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ..shared import workspace_files

if TYPE_CHECKING:
    from .. import contract

log = logging.getLogger(__name__)

CAP_BYTES = 32 * 1024
Scope = Literal["user", "project", "folder"]

PREAMBLE = (
    "The user and the project gave these instructions for agents working here. Follow "
    "them; when they disagree with what the user asks in the conversation, the user wins."
)


@dataclass(frozen=True)
class InstructionFile:
    shown: str
    """How the user knows the file: relative to the workspace, or ~/... for the user's."""
    scope: Scope
    text: str
    """The file's text, cut at CAP_BYTES."""
    size: int
    """Bytes on disk."""

    @property
    def cut(self) -> int:
        return max(self.size - CAP_BYTES, 0)

    def render(self, folder: str | None = None) -> str:
        where = f' folder="{folder}"' if folder is not None else ""
        body = self.text.rstrip("\n")
        if self.cut:
            body += (
                f"\n[{self.shown} has {self.size:,} bytes; only the first {CAP_BYTES:,} are "
                f"shown, {self.cut:,} bytes were cut.]"
            )
        opening = f'<instructions source="{self.shown}" scope="{self.scope}"{where}>'
        return f"{opening}\n{body}\n</instructions>"

    def to_wire(self) -> contract.InstructionFile:
        return {"path": self.shown, "scope": self.scope, "bytes": self.size, "cutBytes": self.cut}


@dataclass(frozen=True)
class Instructions:
    """The files that go into a run's system prompt: the user's first, then the project's
    (the more specific one last)."""

    files: tuple[InstructionFile, ...] = ()

    def block(self) -> str:
        """The system prompt's part; empty when there are no files (the prompt is then
        exactly what it is without this feature)."""
        if not self.files:
            return ""
        return "\n\n".join([PREAMBLE, *(f.render() for f in self.files)])

    def notice(self) -> str | None:
        """What the user is told at the start of the run."""
        if not self.files:
            return None
        parts = [
            f.shown
            + (f" (cut to {CAP_BYTES // 1024} KiB of {f.size / 1024:.0f} KiB)" if f.cut else "")
            for f in self.files
        ]
        return "Instructions: " + ", ".join(parts)

    def to_wire(self) -> list[contract.InstructionFile]:
        return [f.to_wire() for f in self.files]


def load_instructions(root: Path, names: tuple[str, ...], user_dir: Path) -> Instructions:
    files = []
    user_file = _first_file(user_dir, names[:1] or ("AGENTS.md",))
    if user_file is not None:
        found = read_file(user_file, _home_relative(user_file), "user")
        if found is not None:
            files.append(found)
    project_file = find_in(root, root, names)
    if project_file is not None:
        found = read_file(project_file, project_file.name, "project", root)
        if found is not None:
            files.append(found)
    return Instructions(tuple(files))


def find_in(folder: Path, root: Path, names: tuple[str, ...]) -> Path | None:
    """The folder's instruction file, if it has one that stays inside the workspace."""
    path = _first_file(folder, names)
    if path is None:
        return None
    try:
        workspace_files.inside(path, root)
    except workspace_files.LeadsOutside as exc:
        log.warning("%s", exc)
        return None
    return path


def read_file(
    path: Path, shown: str, scope: Scope, root: Path | None = None
) -> InstructionFile | None:
    """The file, cut at CAP_BYTES; None (logged) when it cannot be read. `root`: the
    workspace a project's file must stay inside."""
    try:
        if root is not None:
            size = workspace_files.size(path, root)
            data = workspace_files.read_bytes(path, root, CAP_BYTES)
        else:
            with path.open("rb") as handle:
                size = path.stat().st_size
                data = handle.read(CAP_BYTES)
    except OSError as exc:
        log.warning("could not read %s: %s", path, exc)
        return None
    text = data.decode("utf-8", errors="ignore" if size > CAP_BYTES else "replace")
    return InstructionFile(shown, scope, text, max(size, len(data)))


def _first_file(folder: Path, names: tuple[str, ...]) -> Path | None:
    for name in names:
        path = folder / name
        if path.is_file():
            return path
    return None


def _home_relative(path: Path) -> str:
    try:
        return "~/" + path.relative_to(Path.home()).as_posix()
    except ValueError:
        return str(path)
