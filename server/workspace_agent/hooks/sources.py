"""Where hooks come from, in this order, merged: the user's `~/.claude/settings.json`
(`CLAUDE_CONFIG_DIR` moves it, as for Claude Code), the user's own settings file of ours
(`settings.json` in the user config folder, its `hooks` key), then the workspace's
`.claude/settings.json`, `.claude/settings.local.json` and `.workspace-agent/settings.json`
(its `hooks` key). The same command at the same event and matcher twice runs once (the
first found: the user's before the workspace's).

The workspace's files are read through shared/workspace_files.py (a link out of the
workspace is refused); their hooks are candidates, run only once trusted (trust.py). So is
a hook of the user's files when the file itself is in a place sandboxed commands may
write (a workspace that is the home folder).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from ..config import claude_config_dir
from ..contract import HookSource
from ..shared import host_programs, workspace_files
from .config import Hook, Parsed, parse_text

SETTINGS = "settings.json"
WORKSPACE_FILES = (".claude/settings.json", ".claude/settings.local.json")
OUR_WORKSPACE_FILE = ".workspace-agent/settings.json"


@dataclass(frozen=True)
class Found:
    hooks: tuple[Hook, ...] = ()
    problems: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.hooks and not self.problems


def claude_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The user's Claude Code folder: `$CLAUDE_CONFIG_DIR`, else `~/.claude` (the one
    skills and agent files are found in too, config.py)."""
    return claude_config_dir(environ=environ)


def find_hooks(
    root: Path | None, user_dir: Path, environ: Mapping[str, str] | None = None
) -> Found:
    """Every hook in force for `root`, and the problems met reading them."""
    parts = [
        _user_file(claude_dir(environ) / SETTINGS),
        _user_file(user_dir / SETTINGS),
    ]
    if root is not None:
        parts += [_workspace_file(root, name) for name in (*WORKSPACE_FILES, OUR_WORKSPACE_FILE)]
    hooks: list[Hook] = []
    seen: set[tuple[str, str, str]] = set()
    problems: list[str] = []
    for part in parts:
        problems += part.problems
        for hook in part.hooks:
            key = (hook.event, hook.matcher, hook.command)
            if key not in seen:
                seen.add(key)
                hooks.append(hook)
    return Found(tuple(hooks), tuple(problems))


def _user_file(path: Path) -> Parsed:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Parsed()
    except (OSError, UnicodeDecodeError) as exc:
        return Parsed(problems=[f"{path}: cannot be read ({exc}); none of its hooks run"])
    if "hooks" not in text:  # most settings files have none: no parse
        return Parsed()
    parsed = parse_text(text, _shown(path), "user")
    if parsed.hooks and host_programs.inside_writable(path):
        parsed.hooks = [replace(hook, candidate=True) for hook in parsed.hooks]
    return parsed


def _workspace_file(root: Path, name: str, source: HookSource = "workspace") -> Parsed:
    path = root / name
    try:
        text = workspace_files.read_text(path, root)
    except FileNotFoundError:
        return Parsed()
    except workspace_files.LeadsOutside as exc:
        return Parsed(problems=[f"{exc}; none of its hooks run"])
    except (OSError, UnicodeDecodeError) as exc:
        if not path.exists():
            return Parsed()
        return Parsed(problems=[f"{name}: cannot be read ({exc}); none of its hooks run"])
    if "hooks" not in text:
        return Parsed()
    parsed = parse_text(text, name, source)
    parsed.hooks = [replace(hook, candidate=True) for hook in parsed.hooks]
    return parsed


def _shown(path: Path) -> str:
    """A user file's path as people write it (`~/.claude/settings.json`)."""
    home = str(Path.home())
    text = str(path)
    return "~" + text[len(home) :] if text == home or text.startswith(home + os.sep) else text
