"""The editor's context of a run (active file, selection, problems) as text for the model.

It goes into the run's user message as its own text block ahead of the prompt, between
`<editor-context>` tags, so the model can tell what the user has in front of them from
what they ask. It is bounded: the selection is cut at `context.maxChars` with a note
saying where the rest is, and only the first problems are listed, each on one short line.
Lines and columns are shown counting from 1, the way read_file and editors show them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..protocol import SEVERITY_NAMES, ContextDiagnostic, RunContext, Selection, Span

OPEN, CLOSE = "<editor-context>", "</editor-context>"
MAX_DIAGNOSTICS = 30
"""Problems listed; the rest are counted."""
MESSAGE_CHARS = 300
"""A problem's message is cut here (compilers can be verbose)."""
MAX_SETTING = "workspaceAgent.context.maxChars"


def render_context(
    context: RunContext | None, max_chars: int, mentioned: Sequence[str] = ()
) -> str | None:
    """The context block, or None when there is nothing to say. `mentioned`: the lines of
    the prompt's @-mentions (agent/mentions.py), after what the editor attached."""
    if context is None and not mentioned:
        return None
    lines = [
        OPEN,
        "What the user has open in the editor as they ask (paths relative to the workspace "
        "root, lines and columns from 1)."
        if context is not None
        else "What the user mentions with @ in their prompt (paths relative to the workspace "
        "root).",
    ]
    if context is not None and context.active_file:
        lines.append(f"Active file: {context.active_file}")
    if context is not None and context.selection is not None:
        lines.extend(_selection(context.selection, max_chars))
    if context is not None and context.diagnostics:
        lines.extend(_diagnostics(context.diagnostics))
    lines.extend(mentioned)
    lines.append(CLOSE)
    return "\n".join(lines)


def describe_context(context: RunContext | None) -> str | None:
    """One line naming what was attached, for the transcript ("selection app.py:3-7, 1
    problem")."""
    if context is None:
        return None
    parts = []
    if context.selection is not None:
        parts.append(f"selection {context.selection.path}:{_lines(context.selection.range)}")
    elif context.active_file:
        parts.append(context.active_file)
    if context.diagnostics:
        count = len(context.diagnostics)
        parts.append(f"{count} problem{'' if count == 1 else 's'}")
    return ", ".join(parts) or None


def _selection(selection: Selection, max_chars: int) -> list[str]:
    span = selection.range
    text = selection.text
    cut = len(text) > max_chars
    if cut:
        text = text[:max_chars]
    marker = fence(text)
    lines = [
        f"Selected in {selection.path}, {_place(span)} to "
        f"line {span.end_line + 1}, column {span.end_character + 1}:",
        marker,
        text,
        marker,
    ]
    if cut:
        lines.append(
            f"[The selection was cut at {max_chars:,} characters (setting {MAX_SETTING}); "
            f"it spans lines {_lines(span)} of {selection.path}: read the file for the rest.]"
        )
    return lines


def _diagnostics(diagnostics: tuple[ContextDiagnostic, ...]) -> list[str]:
    lines = [f"Problems the editor reports ({len(diagnostics)}):"]
    for item in diagnostics[:MAX_DIAGNOSTICS]:
        lines.append(f"- {format_problem(item)}")
    if len(diagnostics) > MAX_DIAGNOSTICS:
        lines.append(f"- … and {len(diagnostics) - MAX_DIAGNOSTICS} more")
    return lines


def format_problem(item: ContextDiagnostic) -> str:
    """`app.py:12:5 error: "foo" is not defined [Pyright reportUndefinedVariable]`."""
    where = f"{item.path}:{item.range.start_line + 1}:{item.range.start_character + 1}"
    severity = SEVERITY_NAMES.get(item.severity or 0, "problem")
    origin = " ".join(str(part) for part in (item.source, item.code) if part not in (None, ""))
    return f"{where} {severity}: {shorten(item.message, MESSAGE_CHARS)}" + (
        f" [{origin}]" if origin else ""
    )


def shorten(message: str, limit: int) -> str:
    """One line (whitespace runs become one space), cut with "…" past `limit`."""
    line = " ".join(message.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _place(span: Span) -> str:
    return f"line {span.start_line + 1}, column {span.start_character + 1}"


def _lines(span: Span) -> str:
    first, last = span.start_line + 1, span.end_line + 1
    if span.end_character == 0 and last > first:
        last -= 1  # a selection of whole lines ends at the start of the next one
    return str(first) if first == last else f"{first}-{last}"


def fence(text: str) -> str:
    """A code fence longer than any run of backticks in the text, so the text cannot end
    the block early."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def attached_field(context: RunContext | None) -> dict[str, str]:
    """The runStart event's `attached` field (absent when nothing was attached)."""
    described = describe_context(context)
    return {"attached": described} if described else {}
