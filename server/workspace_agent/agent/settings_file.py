"""The settings files of the front ends without an editor's settings (the CLI, ACP):
`settings.json` in the user's config folder, and `.workspace-agent/settings.json` in the
workspace, with the keys of `workspaceAgent.*` (bare, `workspaceAgent.`-prefixed, or
nested as `{"sandbox": {"mode": ...}}`).

Each value is checked with the setting's own parser (config.py, which the contract's
tests keep in step with the contract); a problem names the file, the line and the key,
and that value is left out (the next source or the default applies). A file that is not
JSON is reported and left out whole. A workspace file follows the rule the contract gives
each key, the same rules as the editor's workspace settings, decided in one place for
both (agent/settings_rules.py over the contract's `workspaceRules`): it may only make
things stricter. Approvals and lists of names are taken entry by entry: one bad entry is
reported and left out alone.

The result is the `editor` mapping config.resolve_settings takes, so the environment,
the workspace `.env` and the defaults still apply below it. A `hooks` key is no setting:
hooks/ reads it from both files itself.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..config import KEYS, AgentSettings, Key, resolve_settings, user_config_dir
from ..contract import SETTING_RULES, SETTINGS_SECTION, TIGHTENING
from ..shared import workspace_files
from .settings_rules import Refusal, combine

FILE_NAME = "settings.json"
EDITOR_ONLY = ("python", "context.attachActiveEditor", "diagnostics.waitSeconds")
READ_BY_FEATURES = ("hooks",)
"""Keys of these files that are no setting: a feature reads them itself, and reports their
problems (`hooks`: hooks/sources.py, in Claude Code's shape; a workspace's run once trusted)."""
BY_NAME = {key.editor: key for key in KEYS if key.editor}


@dataclass
class FileSettings:
    """The merged values (by editor key), where each came from, and the problems met."""

    values: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def user_settings_path(user_dir: Path | None = None) -> Path:
    return (user_dir or user_config_dir()) / FILE_NAME


def workspace_settings_path(root: Path) -> Path:
    return root / ".workspace-agent" / FILE_NAME


def read_settings(root: Path | None, user_dir: Path | None = None) -> FileSettings:
    """The user's file, made stricter (never looser) by the workspace's."""
    merged = FileSettings()
    user = _read(user_settings_path(user_dir), merged.problems)
    for name, (value, where) in user.items():
        merged.values[name], merged.sources[name] = value, where
    if root is None:
        return merged
    workspace = _read(workspace_settings_path(root), merged.problems, root)
    for name, (value, where) in workspace.items():
        _apply_workspace(merged, name, value, where, user.get(name, (None, ""))[0], user_dir)
    return merged


def editor_values(
    root: Path | None, overrides: Mapping[str, Any], user_dir: Path | None = None
) -> tuple[dict[str, Any], list[str]]:
    """What resolve_settings gets as the editor's settings: the files, with the command
    line's (or the ACP client's) `overrides` on top; and the files' problems."""
    found = read_settings(root, user_dir)
    return {**found.values, **overrides}, found.problems


def _read(path: Path, problems: list[str], root: Path | None = None) -> dict[str, tuple[Any, str]]:
    """Each valid setting of one file: its value as written (the user's file: what of it
    applies, for a key its workspace rule takes apart), and `path:line`. A workspace
    file's values for those keys are checked when applied, entry by entry. `root`: the
    workspace a workspace's file must stay inside (shared/workspace_files.py); None for
    the user's file."""
    user_level = root is None
    try:
        text = path.read_text(encoding="utf-8") if root is None else _workspace_text(path, root)
    except FileNotFoundError:
        return {}
    except workspace_files.LeadsOutside as exc:
        problems.append(f"{exc}; none of its settings are used")
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(f"{path}: cannot be read ({exc}); the defaults are used instead")
        return {}
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        problems.append(
            f"{path}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}); none of this file's "
            "settings are used, the defaults apply until it is fixed"
        )
        return {}
    if not isinstance(data, dict):
        problems.append(f'{path}:1: must be a JSON object of settings, like {{"approvals": ...}}')
        return {}
    found: dict[str, tuple[Any, str]] = {}
    for name, value in _flatten(data):
        if name in READ_BY_FEATURES:
            continue
        where = f"{path}:{_line_of(text, name)}"
        key = BY_NAME.get(name)
        if key is None:
            problems.append(f"{where}: {_unknown(name)}; ignored")
            continue
        if _by_parts(name):
            if user_level:
                verdict = combine(name, [value])
                problems += [_problem(key, where, refusal, "") for refusal in verdict.refused]
                value = verdict.value
            if value is not None:
                found[name] = (value, where)
            continue
        try:
            key.parse(value)
        except (TypeError, ValueError) as exc:
            why = str(exc)
            if why.startswith(("invalid literal", "could not convert")):
                why = f"{json.dumps(value)} is not a number"
            problems.append(f"{where}: {name}: {why}; ignored, the default applies")
            continue
        found[name] = (value, where)
    return found


def _flatten(data: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """`workspaceAgent.x` is `x`; `{"sandbox": {"mode": v}}` is `sandbox.mode` (for
    the keys with a dot: only those are nested)."""
    items: list[tuple[str, Any]] = []
    prefix = f"{SETTINGS_SECTION}."
    for raw, value in data.items():
        name = raw.removeprefix(prefix)
        if name == SETTINGS_SECTION and isinstance(value, Mapping):
            items += _flatten(value)
        elif name not in BY_NAME and isinstance(value, Mapping) and _has_section(name):
            items += [(f"{name}.{inner}", v) for inner, v in value.items()]
        else:
            items.append((name, value))
    return items


def _has_section(name: str) -> bool:
    return any(key.startswith(f"{name}.") for key in BY_NAME)


def _line_of(text: str, name: str) -> int:
    """The line a key is written on (its last part, for a nested one); 1 if not found."""
    last = name.rsplit(".", 1)[-1]
    for candidate in (name, f"{SETTINGS_SECTION}.{name}", last):
        match = re.search(rf'"{re.escape(candidate)}"\s*:', text)
        if match:
            return text.count("\n", 0, match.start()) + 1
    return 1


def _unknown(name: str) -> str:
    if name in EDITOR_ONLY:
        return f"{name} is an editor setting only (VS Code reads it), not the agent's"
    near = difflib.get_close_matches(name, list(BY_NAME), n=2, cutoff=0.6)
    hint = f" (did you mean {' or '.join(near)}?)" if near else ""
    return f"{name} is not a setting{hint}; the settings are {', '.join(sorted(BY_NAME))}"


def _by_parts(name: str) -> bool:
    """Whether the key's rule checks its values itself, part by part (not userOnly)."""
    spec = TIGHTENING.get(name)
    return spec is not None and spec["combine"] != "userOnly"


def _apply_workspace(
    merged: FileSettings, name: str, value: Any, where: str, user: Any, user_dir: Path | None
) -> None:
    """One workspace value, by its key's rule; what it may not do is a problem."""
    rule = SETTING_RULES.get(name, "ignored")
    if rule == "overrides":
        merged.values[name], merged.sources[name] = value, where
        return
    if rule == "ignored":
        merged.problems.append(
            f"{where}: {name} is read from the user's settings only "
            f"({user_settings_path(user_dir)}): "
            "a workspace may not set it; ignored"
        )
        return
    before = merged.values.get(name)
    verdict = combine(name, [user, value])
    key = BY_NAME[name]
    merged.problems += [_problem(key, where, r, rule) for r in verdict.refused if r.level == 1]
    if verdict.value == before:
        return
    merged.values[name] = verdict.value
    spec = TIGHTENING[name]
    by_entry = spec["combine"] == "union" or "entries" in spec  # the user's parts stay
    merged.sources[name] = _joined(merged, name, where) if by_entry else where


def _problem(key: Key, where: str, refusal: Refusal, rule: str) -> str:
    """A refused part of a file's value, said with the file, the line and the key."""
    name, item, than = key.editor or key.field, refusal.item, refusal.than
    if refusal.why == "looser" and rule == "lowers":
        return f"{where}: {name}: {item or '0 (no cap)'} would lift the cap of {than}; ignored"
    if refusal.why == "looser" and refusal.entry:
        kind, mode = item
        return (
            f"{where}: {name}: {kind}: {mode} is looser than {than}; ignored "
            "(a workspace may only make approvals stricter)"
        )
    if refusal.why == "looser":
        return (
            f"{where}: {name}: {item} is looser than {than}; ignored "
            "(a workspace may only make the sandbox more confining)"
        )
    if refusal.entry and isinstance(item, list) and TIGHTENING[name].get("entries"):
        return f"{where}: {name}: {_parse_problem(key, {item[0]: item[1]})}; ignored"
    if refusal.entry:
        return f"{where}: {name}: {json.dumps(item)} is not a name; ignored"
    return f"{where}: {name}: {_parse_problem(key, item)}; ignored, the default applies"


def _parse_problem(key: Key, value: Any) -> str:
    """What the setting's own parser says of `value` (config.py's words)."""
    try:
        key.parse(value)
    except (TypeError, ValueError) as exc:
        why = str(exc)
        if why.startswith(("invalid literal", "could not convert")):
            why = f"{json.dumps(value)} is not a number"
        return why
    return f"{json.dumps(value)} is not a JSON value it takes (a number is written without quotes)"


def _joined(merged: FileSettings, name: str, where: str) -> str:
    before = merged.sources.get(name)
    return f"{before} + {where}" if before else where


def file_mcp_servers(user_dir: Path | None = None) -> tuple[dict[str, Any] | None, str]:
    """The user's `mcp.servers` from settings.json (a user-only key: a workspace file
    cannot add servers), and how the MCP listing names where it came from."""
    found = _read(user_settings_path(user_dir), [])
    value, where = found.get("mcp.servers", (None, ""))
    servers = dict(value) if isinstance(value, Mapping) and value else None
    return servers, f"{where} mcp.servers"


def _workspace_text(path: Path, root: Path) -> str:
    if not path.exists() and not path.is_symlink():
        raise FileNotFoundError(path)
    return workspace_files.read_text(path, root)


def resolve_with_files(
    root: Path | None, overrides: Mapping[str, Any], user_dir: Path | None = None
) -> AgentSettings:
    """config.resolve_settings over the settings files; their problems are the settings'
    notes, which every run shows before it starts."""
    values, problems = editor_values(root, overrides, user_dir)
    settings = resolve_settings(root, values)
    if not problems:
        return settings
    return replace(settings, notes=(*problems, *settings.notes))
