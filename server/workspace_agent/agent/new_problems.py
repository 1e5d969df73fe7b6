"""Which problems an edit introduced: the editor's diagnostics of the changed files after
a tool ran, less the ones they had before it, as a short note for the model.

Problems are matched by what they say (severity, source, code, message), not by where
they are: an edit above an old error moves it to another line without making it new.
Only errors and warnings count (a diagnostic without a severity is taken as an error, as
editors show it). The note is bounded: at most MAX_LISTED problems, one line each.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..protocol import SEVERITY_NAMES
from .editor_context import shorten

MAX_LISTED = 10
MESSAGE_CHARS = 200
COUNTED_SEVERITIES = (1, 2)
"""Errors and warnings; information and hints are not problems the agent must fix."""


@dataclass(frozen=True)
class Problem:
    """One diagnostic of a file, as the model is told about it."""

    path: str
    line: int
    character: int
    severity: int
    message: str
    source: str | None = None
    code: str | int | None = None

    @property
    def key(self) -> tuple[object, ...]:
        """What makes two diagnostics the same problem wherever they are."""
        return (self.severity, self.source, self.code, " ".join(self.message.split()))

    @classmethod
    def from_lsp(cls, path: str, raw: Any) -> Problem | None:
        """An LSP Diagnostic (plain JSON) as a problem; None when it is not an error or a
        warning, or not a diagnostic at all."""
        if not isinstance(raw, dict) or not isinstance(raw.get("message"), str):
            return None
        severity = raw.get("severity", 1)
        if severity not in COUNTED_SEVERITIES:
            return None
        start = (raw.get("range") or {}).get("start") or {}
        line, character = start.get("line", 0), start.get("character", 0)
        code = raw.get("code")
        source = raw.get("source")
        return cls(
            path=path,
            line=line if isinstance(line, int) else 0,
            character=character if isinstance(character, int) else 0,
            severity=severity,
            message=raw["message"],
            source=source if isinstance(source, str) and source else None,
            code=code if isinstance(code, (str, int)) and not isinstance(code, bool) else None,
        )


def problems_of(path: str, diagnostics: Sequence[Any]) -> list[Problem]:
    found = (Problem.from_lsp(path, raw) for raw in diagnostics)
    return [problem for problem in found if problem is not None]


def new_problems(before: Sequence[Problem], after: Sequence[Problem]) -> list[Problem]:
    """The problems of `after` that `before` did not have (counted: a second copy of an
    old problem is new)."""
    seen = Counter(problem.key for problem in before)
    fresh = []
    for problem in after:
        if seen[problem.key]:
            seen[problem.key] -= 1
        else:
            fresh.append(problem)
    return fresh


def summary(found: Mapping[str, Sequence[Problem]]) -> str | None:
    """`2 new problems in app.py`, or `3 new problems: 2 in app.py, 1 in util.py`."""
    counts = {path: len(problems) for path, problems in found.items() if problems}
    total = sum(counts.values())
    if not total:
        return None
    words = f"{total} new problem{'' if total == 1 else 's'}"
    if len(counts) == 1:
        return f"{words} in {next(iter(counts))}"
    return f"{words}: " + ", ".join(f"{count} in {path}" for path, count in counts.items())


def note(found: Mapping[str, Sequence[Problem]]) -> str | None:
    """What the model gets after the tool's own result; None when nothing is new."""
    headline = summary(found)
    if headline is None:
        return None
    problems = [problem for problems in found.values() for problem in problems]
    words, colon, per_file = headline.partition(": ")
    lines = [
        f"The editor reports {words} after this change ({per_file}):"
        if colon
        else f"The editor reports {headline} after this change:"
    ]
    lines.extend(f"- {_line(problem)}" for problem in problems[:MAX_LISTED])
    if len(problems) > MAX_LISTED:
        lines.append(f"- … and {len(problems) - MAX_LISTED} more")
    return "\n".join(lines)


def _line(problem: Problem) -> str:
    where = f"{problem.path}:{problem.line + 1}:{problem.character + 1}"
    origin = " ".join(str(p) for p in (problem.source, problem.code) if p not in (None, ""))
    text = shorten(problem.message, MESSAGE_CHARS)
    return f"{where} {SEVERITY_NAMES[problem.severity]}: {text}" + (
        f" [{origin}]" if origin else ""
    )
