"""Hooks as Claude Code writes them, read from one settings document:
`{"hooks": {"<Event>": [{"matcher": "Edit|Write", "hooks": [{"type": "command",
"command": "...", "timeout": 30}]}]}}`.

`matcher` is a regex over the tool's name (ours, `edit_file`, or Claude Code's, `Edit`:
`Tool.aliases`), matched whole; empty or `*` matches every call. On events without a tool
it is matched against what the event is about (SessionStart's `startup` / `resume` /
`clear` / `compact`, PreCompact's `auto` / `manual`, Notification's `permission_prompt`,
SubagentStop's agent name) and ignored by the others.

What cannot be used is reported with the file and the line (`path:line: ...`) and left
out alone: an unknown event, a hook type other than `command` (`prompt`, `http`,
`agent`), a matcher that is no regex, a command that is missing or empty, a timeout that
is no positive number. The rest of the file still counts.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from ..contract import HOOK_EVENTS, HookEventName, HookSource

DEFAULT_TIMEOUT = 60.0
WRAPPERS = frozenset(
    {"npx", "bunx", "pnpx", "uvx", "xargs", "env", "exec", "command", "nice", "time", "timeout"}
)
"""Programs that run another: a hook's short name is the one they run."""
INTERPRETERS = re.compile(r"^(ba|z|da)?sh$|^python[0-9.]*$|^node$|^deno$|^ruby$|^perl$|^bun$")


@dataclass(frozen=True)
class Hook:
    """One command to run at an event."""

    event: HookEventName
    command: str
    source: HookSource
    origin: str
    """Where it is configured, `path:line` (or what added it: a plan item)."""
    matcher: str = ""
    timeout: float = DEFAULT_TIMEOUT
    candidate: bool = False
    """It runs only once trusted, whoever's it is: its file is in a place a sandboxed
    command may write (a workspace's hooks always are)."""
    pattern: re.Pattern[str] | None = field(default=None, compare=False, repr=False)
    """`matcher` compiled; None: every call (or the matcher is ignored)."""

    @property
    def name(self) -> str:
        """The short name a row shows: the program the command runs (`prettier`,
        `check-rm.sh`), past wrappers and interpreters, in the last part of a pipeline."""
        return short_name(self.command)

    def matches(self, *names: str) -> bool:
        """Whether it runs for a tool (or an event's subject) known by any of `names`."""
        if self.pattern is None:
            return True
        return any(self.pattern.fullmatch(name) for name in names if name)


def short_name(command: str) -> str:
    last = re.split(r"\|\||&&|[|;]", command)[-1].strip() or command
    try:
        words = shlex.split(last)
    except ValueError:
        words = last.split()
    skipping = True
    for word in words:
        if "=" in word and not word.startswith(("-", "/", ".")) and skipping:
            continue  # VAR=value before the program
        base = os.path.basename(word.rstrip("/")) or word
        if word.startswith("-") or base in WRAPPERS or INTERPRETERS.match(base):
            continue
        return base[:60]
    return (words[0] if words else command)[:60]


@dataclass
class Parsed:
    hooks: list[Hook] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def parse_text(
    text: str, path: str, source: HookSource, *, section: bool = True, whole: bool = True
) -> Parsed:
    """The hooks of a settings file's text. `section`: they are under its `hooks` key (a
    settings file), else the text is that object itself. `whole`: a file that is not
    JSON is reported (our own settings file reports that itself: False)."""
    parsed = Parsed()
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        if whole:
            parsed.problems.append(
                f"{path}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}); none of its "
                "hooks run until it is fixed"
            )
        return parsed
    if section:
        if not isinstance(data, dict) or "hooks" not in data:
            return parsed
        data = data["hooks"]
    return parse_hooks(data, _Lines(text), path, source, parsed)


def parse_hooks(
    data: Any, lines: _Lines | None, path: str, source: HookSource, parsed: Parsed | None = None
) -> Parsed:
    """`{"<Event>": [groups]}` into hooks; each problem with `path:line`."""
    parsed = parsed or Parsed()
    lines = lines or _Lines("")
    if not isinstance(data, dict):
        line = lines.find('"hooks"')
        parsed.problems.append(
            f"{path}:{line}: hooks must be an object of events, like "
            '{"PostToolUse": [{"matcher": "Edit|Write", "hooks": [...]}]}; none of its hooks run'
        )
        return parsed
    for event, groups in data.items():
        line = lines.find(json.dumps(event), after='"hooks"')
        where = f"{path}:{line}"
        if event not in HOOK_EVENTS:
            parsed.problems.append(
                f"{where}: {event!r} is not an event hooks run at (the events are "
                f"{', '.join(HOOK_EVENTS)}); its hooks are ignored"
            )
            continue
        if not isinstance(groups, list):
            parsed.problems.append(
                f"{where}: {event} must be a list of {{matcher, hooks}} objects; ignored"
            )
            continue
        for group in groups:
            _group(event, group, lines, path, source, parsed, line)
    return parsed


def _group(
    event: HookEventName,
    group: Any,
    lines: _Lines,
    path: str,
    source: HookSource,
    parsed: Parsed,
    event_line: int,
) -> None:
    if not isinstance(group, dict):
        parsed.problems.append(
            f"{path}:{event_line}: {event}: each entry must be an object with `hooks` (and "
            "`matcher`); one that is not is ignored"
        )
        return
    matcher = group.get("matcher", "")
    found = lines.search(rf'"matcher"\s*:\s*{re.escape(json.dumps(matcher))}', event_line)
    matcher_line = found or event_line
    if matcher is None:
        matcher = ""
    if not isinstance(matcher, str):
        parsed.problems.append(f"{path}:{matcher_line}: {event}: matcher must be a string; ignored")
        return
    pattern = None
    if matcher.strip() not in ("", "*"):
        try:
            pattern = re.compile(matcher.strip())
        except re.error as exc:
            parsed.problems.append(
                f"{path}:{matcher_line}: {event}: matcher {matcher!r} is not a valid regular "
                f"expression ({exc}); its hooks are ignored"
            )
            return
    entries = group.get("hooks")
    if not isinstance(entries, list):
        parsed.problems.append(
            f"{path}:{matcher_line}: {event}: `hooks` must be a list of "
            '{"type": "command", "command": ...} objects; ignored'
        )
        return
    for entry in entries:
        hook = _entry(event, entry, lines, path, source, parsed, matcher_line)
        if hook is not None:
            parsed.hooks.append(
                Hook(event, hook[0], source, hook[1], matcher.strip(), hook[2], pattern=pattern)
            )


def _entry(
    event: str,
    entry: Any,
    lines: _Lines,
    path: str,
    source: HookSource,
    parsed: Parsed,
    near: int,
) -> tuple[str, str, float] | None:
    """(command, origin, timeout) of one hook entry, or None with the problem told."""
    if not isinstance(entry, dict):
        parsed.problems.append(f"{path}:{near}: {event}: a hook must be an object; ignored")
        return None
    command = entry.get("command")
    kind = entry.get("type", "command")
    line = lines.find(json.dumps(command)[1:-1], after=None) if isinstance(command, str) else 0
    line = line or lines.search(rf'"type"\s*:\s*{re.escape(json.dumps(kind))}', near) or near
    where = f"{path}:{line}"
    if kind != "command":
        parsed.problems.append(
            f"{where}: {event}: hook type {kind!r} is not supported here (only "
            '"command" hooks run); ignored'
        )
        return None
    if not isinstance(command, str) or not command.strip():
        parsed.problems.append(f"{where}: {event}: a command hook needs a `command`; ignored")
        return None
    timeout = entry.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        parsed.problems.append(
            f"{where}: {event}: timeout {json.dumps(timeout)} is not a positive number of "
            f"seconds; the default ({DEFAULT_TIMEOUT:g} s) applies"
        )
        timeout = DEFAULT_TIMEOUT
    return command, where, float(timeout)


class _Lines:
    """Finds the line a piece of a file's text is on (1 when it is not found)."""

    def __init__(self, text: str) -> None:
        self._text = text

    def find(self, needle: str, after: str | None = '"hooks"') -> int:
        text = self._text
        start = text.find(after) if after else 0
        found = text.find(needle, max(start, 0))
        if found < 0:
            found = text.find(needle)
        if found < 0:
            return 1
        return text.count("\n", 0, found) + 1

    def search(self, pattern: str, from_line: int = 1) -> int:
        """The line of the first match of `pattern` at or after `from_line` (0: none)."""
        text = self._text
        start = 0
        for _ in range(max(from_line - 1, 0)):
            start = text.find("\n", start) + 1
            if start == 0:
                return 0
        found = re.compile(pattern).search(text, start)
        return text.count("\n", 0, found.start()) + 1 if found else 0
