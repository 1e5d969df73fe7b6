"""Slash commands: saved prompts in markdown files, and the built-in commands, resolved
here so every front end (editor, ACP, CLI) gets the same ones.

A prompt that starts with `/NAME` (then a space or its end) names a command: a built-in,
else a skill the user may start (skills/: `SKILL.md`'s body, its arguments put in as
below, and its folder), else a saved prompt. Files are read on every lookup (a handful of
small files; a new one applies to the next prompt):

- `.workspace-agent/commands/NAME.md` in the workspace (first),
- `.claude/commands/NAME.md` in the workspace (a team's existing Claude Code commands),
- `commands/NAME.md` in the user's config folder (`config.user_config_dir()`).

A workspace's command file (or its folder) that leads outside the workspace is not read
(shared/workspace_files.py): `/NAME` then says why, and the list leaves it out.

A file is text for the model, never code: its optional front matter (`description`,
`argument-hint`; others, such as Claude Code's `allowed-tools`, are ignored: nothing in a
command changes what the tools may do) and a body where `$ARGUMENTS` is what follows the
name and `$1`, `$2`... its words (quotes group words, as in a shell).

`//text` sends `/text` as it is. Built-ins (BUILT_INS) are run by sessions.py.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import user_config_dir
from ..shared import workspace_files
from ..shared.prompt_arguments import expand

if TYPE_CHECKING:
    from .. import contract
    from ..skills.discovery import Found

COMMAND = re.compile(r"\A\s*/([A-Za-z0-9][A-Za-z0-9_.:-]*)(?:\s+|\Z)")
ESCAPED = re.compile(r"\A(\s*)//")
NAME = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9_.:-]*\Z")
KNOWN_KEYS = ("description", "argument-hint", "allowed-tools", "model", "disable-model-invocation")
MAX_BYTES = 256 * 1024


@dataclass(frozen=True)
class BuiltIn:
    name: str
    description: str
    argument_hint: str | None = None


BUILT_INS = (
    BuiltIn(
        "plan", "plan first: the agent looks but changes nothing, then you shape the plan", "TASK"
    ),
    BuiltIn(
        "compact", "shorten the conversation now (old tool output stubbed, old turns summarised)"
    ),
    BuiltIn("clear", "start a new session (the current one stays in the history)"),
    BuiltIn("undo", "revert the files the last run changed"),
    BuiltIn("cost", "the session's tokens so far and their estimated cost"),
)
BUILT_IN_NAMES = {command.name for command in BUILT_INS}


class CommandError(ValueError):
    """A slash command that cannot be used; the message names the file or the fix."""


@dataclass(frozen=True)
class SavedPrompt:
    name: str
    description: str
    argument_hint: str | None
    source: contract.CommandSource
    """"workspace", "claude" (.claude/commands), "user" or "built-in"."""
    path: Path | None
    body: str = ""

    def to_wire(self) -> contract.SlashCommand:
        wire: contract.SlashCommand = {
            "name": self.name,
            "description": self.description,
            "source": self.source,
        }
        if self.argument_hint:
            wire["argumentHint"] = self.argument_hint
        if self.path is not None:
            wire["path"] = str(self.path)
        return wire


@dataclass(frozen=True)
class Invocation:
    """A prompt that names a command: the built-in's name, or the saved prompt's text."""

    name: str
    arguments: str
    built_in: bool
    text: str


def folders(
    root: Path | None, user_dir: Path | None = None
) -> list[tuple[contract.CommandSource, Path]]:
    """Where command files are looked for, first wins."""
    found: list[tuple[contract.CommandSource, Path]] = []
    if root is not None:
        found += [
            ("workspace", root / ".workspace-agent" / "commands"),
            ("claude", root / ".claude" / "commands"),
        ]
    found.append(("user", (user_dir or user_config_dir()) / "commands"))
    return found


def list_commands(
    root: Path | None, user_dir: Path | None = None
) -> tuple[list[SavedPrompt], list[str]]:
    """Every command a prompt can name (built-ins first, then skills), and the files that
    cannot be used, each problem naming its file."""
    commands = [
        SavedPrompt(b.name, b.description, b.argument_hint, "built-in", None) for b in BUILT_INS
    ]
    seen = set(BUILT_IN_NAMES)
    found = _skills(root, user_dir)
    problems: list[str] = list(found.problems)
    for skill in found.skills:
        if skill.user_invocable and skill.name not in seen:
            seen.add(skill.name)
            commands.append(
                SavedPrompt(skill.name, skill.description, skill.argument_hint, "skill", skill.path)
            )
    for source, folder in folders(root, user_dir):
        for path in _files(folder):
            name = path.stem
            if name in seen:
                continue
            try:
                commands.append(read_command(path, source, _own(source, root)))
            except CommandError as exc:
                problems.append(str(exc))
            seen.add(name)
    return commands, problems


def resolve(prompt: str, root: Path | None, user_dir: Path | None = None) -> Invocation | None:
    """The command a prompt names (None: an ordinary prompt). CommandError when the name
    is unknown (with near matches) or its file cannot be used (naming the file)."""
    if ESCAPED.match(prompt):
        return None
    match = COMMAND.match(prompt)
    if match is None:
        return None
    name, arguments = match.group(1), prompt[match.end() :].strip()
    if name in BUILT_IN_NAMES:
        return Invocation(name, arguments, True, prompt)
    skill = _skills(root, user_dir).named(name)
    if skill is not None and skill.user_invocable:  # a skill before a command file
        return Invocation(name, arguments, False, skill.render(arguments, root))
    for source, folder in folders(root, user_dir):
        path = folder / f"{name}.md"
        if path.is_file() or path.is_symlink():
            command = read_command(path, source, _own(source, root))
            return Invocation(name, arguments, False, expand(command.body, arguments))
    if skill is not None:
        raise CommandError(
            f"/{name} is a skill the model loads by itself: its front matter says "
            f"user-invocable: false ({skill.path})"
        )
    known, _problems = list_commands(root, user_dir)
    raise CommandError(unknown_message(name, [c.name for c in known], root, user_dir))


def unescape(prompt: str) -> str:
    """`//text` is the prompt `/text`, not a command."""
    return ESCAPED.sub(r"\1/", prompt, count=1)


def unknown_message(
    name: str, known: Iterable[str], root: Path | None, user_dir: Path | None = None
) -> str:
    names = sorted(known)
    near = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
    where = ", ".join(str(folder) for _source, folder in folders(root, user_dir))
    hint = f" Did you mean {' or '.join('/' + n for n in near)}?" if near else ""
    return (
        f"there is no command /{name}.{hint} Commands: {', '.join('/' + n for n in names)}. "
        f"Saved prompts are NAME.md files in {where}; skills are NAME/SKILL.md folders in "
        ".claude/skills (and .agents/skills, .workspace-agent/skills); to send text that "
        "starts with /, start it with //."
    )


def read_command(
    path: Path, source: contract.CommandSource, root: Path | None = None
) -> SavedPrompt:
    """One command file; CommandError naming the file when it cannot be used. `root`: the
    workspace a workspace's command file must stay inside."""
    try:
        if root is not None:
            data = workspace_files.read_bytes(path, root, MAX_BYTES + 1)
        else:
            with path.open("rb") as handle:
                data = handle.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise CommandError(f"{path}: the command file is over {MAX_BYTES // 1024} KiB")
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise CommandError(f"{path}: the command file is not UTF-8 text") from None
    except workspace_files.LeadsOutside as exc:
        raise CommandError(str(exc)) from None
    except OSError as exc:
        raise CommandError(f"{path}: cannot read the command file ({exc.strerror})") from None
    meta, body = front_matter(text, path)
    if not body.strip():
        raise CommandError(f"{path}: the command has no text after its front matter")
    description = meta.get("description") or _first_line(body)
    return SavedPrompt(path.stem, description, meta.get("argument-hint"), source, path, body)


def front_matter(text: str, path: Path) -> tuple[dict[str, str], str]:
    """`---` / `key: value` lines / `---` at the top, and the text after it."""
    lines = text.lstrip("\ufeff").splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return {}, text
    meta: dict[str, str] = {}
    for number, line in enumerate(lines[1:], start=2):
        stripped = line.strip()
        if stripped == "---":
            return meta, "".join(lines[number:])
        if not stripped or stripped.startswith("#"):
            continue
        key, colon, value = stripped.partition(":")
        key = key.strip()
        if not colon or not key or " " in key:
            raise CommandError(
                f"{path}:{number}: bad front matter: expected `key: value`, got {stripped!r} "
                f"(the keys are {', '.join(KNOWN_KEYS[:2])})"
            )
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        if key in ("description", "argument-hint") and not value:
            raise CommandError(f"{path}:{number}: bad front matter: {key} is empty")
        meta[key] = value
    raise CommandError(
        f"{path}: bad front matter: the `---` on line 1 is never closed; end the front matter "
        "with a line `---`"
    )


def _skills(root: Path | None, user_dir: Path | None) -> Found:
    """The skills a prompt can start (skills/discovery.py, imported on first use)."""
    from ..skills.discovery import find_skills

    return find_skills(root, user_dir=user_dir)


def _own(source: contract.CommandSource, root: Path | None) -> Path | None:
    """The workspace a command file of `source` must stay inside (None: the user's own)."""
    return root if source in ("workspace", "claude") else None


def _files(folder: Path) -> list[Path]:
    try:
        return sorted(
            path
            for path in folder.iterdir()
            if path.suffix == ".md"
            and NAME.match(path.stem)
            and (path.is_file() or path.is_symlink())
        )
    except OSError:  # no such folder: no commands there
        return []


def _first_line(body: str) -> str:
    for line in body.splitlines():
        if line.strip():
            return line.strip().lstrip("#").strip()[:80]
    return ""
