"""Finding the user's Agent Skills and reading each `SKILL.md`, by the specification
(agentskills.io: `name`, `description`, `license`, `compatibility`, `metadata`,
`allowed-tools`) and Claude Code's additions we honour (`disable-model-invocation`,
`user-invocable`, `argument-hint`; other keys are other agents' and are left alone).

A skill is a folder holding `SKILL.md`, in one of FOLDERS (the workspace's first, then
the user's; the first skill of a name wins). A skill that breaks a rule is skipped with a
problem naming its file, the line and the rule; the others still load. A workspace's
skill that leads outside the workspace (a link, or in a linked folder) is not read
(shared/workspace_files.py). Parsed files are kept by path, size and modification time,
so a run start re-reads only what changed.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..config import claude_config_dir, user_config_dir
from ..shared import workspace_files
from ..shared.front_matter import FrontMatter, FrontMatterError, read_front_matter
from ..shared.prompt_arguments import expand

Scope = Literal["workspace", "user"]
SKILL_FILE = "SKILL.md"
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
MAX_BYTES = 256 * 1024
NAME = re.compile(r"\A[^\W_A-Z]+(?:-[^\W_A-Z]+)*\Z")
"""Lowercase letters and digits, single hyphens between them (the specification's rule;
`[^\\W_A-Z]` is a letter or digit but `_` and the ASCII capitals; other capitals are
caught by comparing the name with its lowercase)."""

WORKSPACE_FOLDERS = (".workspace-agent/skills", ".claude/skills", ".agents/skills")


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    path: Path
    """Its SKILL.md."""
    scope: Scope
    body: str
    argument_hint: str | None = None
    model_invocable: bool = True
    """False with `disable-model-invocation: true`: only the user starts it (/name)."""
    user_invocable: bool = True
    """False with `user-invocable: false`: only the model loads it (no /name)."""
    allowed_tools: tuple[str, ...] = ()
    """Read and kept, never acted on: a skill grants nothing."""

    @property
    def folder(self) -> Path:
        return self.path.parent

    def shown_folder(self, root: Path | None) -> str:
        """The folder as the model names it to read_file: relative to the workspace when it
        is in it, else absolute."""
        if root is not None and self.scope == "workspace":
            try:
                return self.folder.relative_to(root).as_posix()
            except ValueError:
                pass
        return str(self.folder)

    def render(self, arguments: str, root: Path | None) -> str:
        """What the model reads when the skill is used: its body (arguments in, as a saved
        prompt's), inside a tag naming the skill and its folder."""
        folder = self.shown_folder(root)
        return (
            f'<skill name="{self.name}" folder="{folder}">\n'
            f"{expand(self.body, arguments)}\n"
            "</skill>\n"
            f"Paths in this skill are relative to its folder, {folder}: read its other files "
            "with read_file when it points to them; run its scripts with bash."
        )


@dataclass(frozen=True)
class Found:
    """The skills found (in the order they were looked for) and the files skipped."""

    skills: tuple[Skill, ...] = ()
    problems: tuple[str, ...] = ()

    def named(self, name: str) -> Skill | None:
        return next((skill for skill in self.skills if skill.name == name), None)

    @property
    def for_model(self) -> tuple[Skill, ...]:
        return tuple(skill for skill in self.skills if skill.model_invocable)


def folders(
    root: Path | None, home: Path | None = None, user_dir: Path | None = None
) -> list[tuple[Scope, Path]]:
    """Where skills are looked for, first wins: the workspace's, our user folder's, Claude
    Code's (~/.claude, or CLAUDE_CONFIG_DIR), ~/.agents."""
    found: list[tuple[Scope, Path]] = []
    if root is not None:
        found += [("workspace", root / folder) for folder in WORKSPACE_FOLDERS]
    found.append(("user", (user_dir or user_config_dir()) / "skills"))
    found.append(("user", claude_config_dir(home) / "skills"))
    found.append(("user", (home or Path(os.path.expanduser("~"))) / ".agents" / "skills"))
    return found


def find_skills(root: Path | None, home: Path | None = None, user_dir: Path | None = None) -> Found:
    """Every skill of the folders, and a problem for each that cannot be used."""
    skills: list[Skill] = []
    problems: list[str] = []
    seen: set[str] = set()
    looked: set[Path] = set()
    for scope, folder in folders(root, home, user_dir):
        for path in skill_files(folder):
            if path in looked:  # the home folder is the workspace, say
                continue
            looked.add(path)
            try:
                skill = read_skill(path, scope, root if scope == "workspace" else None)
            except SkillError as exc:
                problems.append(str(exc))
                continue
            if skill.name not in seen:
                seen.add(skill.name)
                skills.append(skill)
    return Found(tuple(skills), tuple(problems))


def skill_files(folder: Path) -> list[Path]:
    """The SKILL.md of each skill folder in `folder` (none when it does not exist)."""
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return []
    return [entry / SKILL_FILE for entry in entries if (entry / SKILL_FILE).exists()]


class SkillError(ValueError):
    """A skill that cannot be used; the message names its file, the line and the rule."""


_CACHE: dict[Path, tuple[tuple[int, int], Skill | SkillError]] = {}


def read_skill(path: Path, scope: Scope, root: Path | None = None) -> Skill:
    """One skill from its SKILL.md; SkillError naming the file, line and rule. `root`: the
    workspace a workspace's skill must stay inside."""
    try:
        if root is not None:
            real = workspace_files.inside(path, root)
        else:
            real = path
        stat = real.stat()
    except workspace_files.LeadsOutside as exc:
        raise SkillError(str(exc)) from None
    except OSError as exc:
        raise SkillError(f"{path}: cannot read the skill ({exc.strerror})") from None
    key = (stat.st_mtime_ns, stat.st_size)
    cached = _CACHE.get(path)
    if cached is not None and cached[0] == key:
        if isinstance(cached[1], SkillError):
            raise cached[1]
        return cached[1]
    try:
        outcome: Skill | SkillError = _parse(path, scope, root)
    except SkillError as exc:
        outcome = exc
    _CACHE[path] = (key, outcome)
    if isinstance(outcome, SkillError):
        raise outcome
    return outcome


def _parse(path: Path, scope: Scope, root: Path | None) -> Skill:
    try:
        if root is not None:
            data = workspace_files.read_bytes(path, root, MAX_BYTES + 1)
        else:
            with path.open("rb") as handle:
                data = handle.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise SkillError(f"{path}: SKILL.md is over {MAX_BYTES // 1024} KiB")
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise SkillError(f"{path}: SKILL.md is not UTF-8 text") from None
    except workspace_files.LeadsOutside as exc:
        raise SkillError(str(exc)) from None
    except OSError as exc:
        raise SkillError(f"{path}: cannot read the skill ({exc.strerror})") from None
    try:
        meta = read_front_matter(text, path)
        return _skill(meta, path, scope)
    except FrontMatterError as exc:
        raise SkillError(f"{exc}; the skill is skipped") from None


def _skill(meta: FrontMatter, path: Path, scope: Scope) -> Skill:
    name = meta.text("name", required=True) or ""
    _check_name(meta, name, path.parent.name)
    description = meta.text("description", required=True, limit=MAX_DESCRIPTION) or ""
    meta.text("license")
    meta.text("compatibility", limit=MAX_COMPATIBILITY)
    metadata = meta.fields.get("metadata")
    if metadata is not None and not (
        isinstance(metadata, dict) and all(isinstance(key, str) for key in metadata)
    ):
        raise meta.problem("metadata", "`metadata` must be a mapping of names to values")
    allowed = meta.names("allowed-tools") or ()
    hint = meta.text("argument-hint")
    return Skill(
        name=name,
        description=" ".join(description.split()),
        path=path,
        scope=scope,
        body=meta.body,
        argument_hint=hint,
        model_invocable=not meta.flag("disable-model-invocation", False),
        user_invocable=meta.flag("user-invocable", True),
        allowed_tools=allowed,
    )


def _check_name(meta: FrontMatter, name: str, folder: str) -> None:
    if len(name) > MAX_NAME:
        raise meta.problem(
            "name", f"`name` has {len(name)} characters, at most {MAX_NAME} are allowed"
        )
    if not NAME.match(name) or name != name.lower():
        raise meta.problem(
            "name",
            f"`name` {name!r} must be lowercase letters, digits and single hyphens, not "
            "starting or ending with a hyphen",
        )
    if name != folder:
        raise meta.problem("name", f"`name` {name!r} must be the skill folder's name, {folder!r}")
