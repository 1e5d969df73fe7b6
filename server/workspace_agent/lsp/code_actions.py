"""textDocument/codeAction: the agent as a quick fix and a refactoring, in any LSP editor.

For each diagnostic the client sends in the request's context, a `quickfix` action
"Fix with Workspace Agent: <message>"; for a non-empty range, a `refactor` action "Ask
Workspace Agent about this…". Each carries the `workspaceAgent.run` command with the
prompt and the run's `context` (file, range, selected text, the diagnostic with its
source and code), so executing it starts a run in the client's current session exactly
like the command itself.

Editors ask for code actions on every cursor move, so this must be cheap: no model call
and no disk read; the text comes from the open buffer, the settings from what the editor
and the environment said (a workspace `.env` is read only when a run starts).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import to_fs_path

from .. import protocol as p
from ..agent.editor_context import shorten
from ..protocol import ContextDiagnostic, RunContext, RunParams, Selection, Span
from .open_documents import OpenDocument

FIX_TITLE = "Fix with Workspace Agent: "
ASK_TITLE = "Ask Workspace Agent about this…"
TITLE_MESSAGE_CHARS = 60
PROMPT_MESSAGE_CHARS = 200
ASK_PROMPT = (
    "Explain the selected code and point out any problems you see in it. "
    "Do not change any files."
)
"""The prompt of "Ask…" where the editor cannot ask the user (plain LSP clients); the
VS Code extension asks for the user's own instruction instead."""
KINDS = (types.CodeActionKind.QuickFix, types.CodeActionKind.Refactor)


@dataclass(frozen=True)
class ActionScope:
    """What the actions of one request may use: all of it in memory already."""

    document: OpenDocument
    path: str
    """The document's path relative to the workspace root, with "/"."""
    session_id: str | None
    """The client's current session (None: the run starts a new one)."""
    max_chars: int
    """context.maxChars: selected text past it is not sent along."""


def workspace_path(uri: str, root: Path | None) -> str | None:
    """The workspace-relative path of a `file:` URI inside the workspace, else None.
    Decided on the path's text alone (no disk access); the run's tools still refuse
    anything whose real location is outside."""
    if root is None or not uri.startswith("file:"):
        return None
    fs_path = to_fs_path(uri)
    if not fs_path:
        return None
    path = os.path.normpath(fs_path)
    base = os.path.normpath(str(root))
    if not path.startswith(base.rstrip(os.sep) + os.sep):
        return None
    return Path(os.path.relpath(path, base)).as_posix()


def code_actions(params: types.CodeActionParams, scope: ActionScope) -> list[types.CodeAction]:
    only = params.context.only
    actions: list[types.CodeAction] = []
    if _wanted(types.CodeActionKind.QuickFix, only):
        actions.extend(_fix(diagnostic, scope) for diagnostic in params.context.diagnostics)
    if not _empty(params.range) and _wanted(types.CodeActionKind.Refactor, only):
        actions.append(_ask(params.range, params.context.diagnostics, scope))
    return actions


def _fix(diagnostic: types.Diagnostic, scope: ActionScope) -> types.CodeAction:
    problem = _problem(diagnostic, scope.path)
    title = FIX_TITLE + shorten(diagnostic.message, TITLE_MESSAGE_CHARS)
    prompt = (
        f"Fix the problem the editor reports in {scope.path} at line "
        f"{diagnostic.range.start.line + 1}: {shorten(diagnostic.message, PROMPT_MESSAGE_CHARS)}"
    )
    context = RunContext(active_file=scope.path, diagnostics=(problem,))
    return types.CodeAction(
        title=title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        command=_run_command(title, prompt, context, scope),
    )


def _ask(
    selected: types.Range, diagnostics: Sequence[types.Diagnostic], scope: ActionScope
) -> types.CodeAction:
    index = scope.document.index
    start = index.offset(selected.start.line, selected.start.character)
    end = index.offset(selected.end.line, selected.end.character)
    start, end = min(start, end), max(start, end)
    # One character past the limit, so the run still sees the text was cut and says so.
    text = index.text[start : min(end, start + scope.max_chars + 1)]
    context = RunContext(
        active_file=scope.path,
        selection=Selection(scope.path, _span(selected), text),
        diagnostics=tuple(_problem(d, scope.path) for d in diagnostics),
    )
    return types.CodeAction(
        title=ASK_TITLE,
        kind=types.CodeActionKind.Refactor,
        command=_run_command(ASK_TITLE, ASK_PROMPT, context, scope),
    )


def _run_command(
    title: str, prompt: str, context: RunContext, scope: ActionScope
) -> types.Command:
    params = RunParams(prompt=prompt, session_id=scope.session_id, context=context)
    arguments: list[Any] = [params.to_wire()]
    return types.Command(title=title, command=p.RUN_COMMAND, arguments=arguments)


def _problem(diagnostic: types.Diagnostic, path: str) -> ContextDiagnostic:
    severity = diagnostic.severity
    return ContextDiagnostic(
        path=path,
        range=_span(diagnostic.range),
        message=diagnostic.message,
        severity=int(severity) if severity is not None else None,
        source=diagnostic.source or None,
        code=diagnostic.code,
    )


def _span(lsp_range: types.Range) -> Span:
    start, end = lsp_range.start, lsp_range.end
    if (end.line, end.character) < (start.line, start.character):
        start, end = end, start
    return Span(start.line, start.character, end.line, end.character)


def _empty(lsp_range: types.Range) -> bool:
    return lsp_range.start == lsp_range.end


def _wanted(kind: str, only: Sequence[str] | None) -> bool:
    """The client's `only` filter: a kind matches itself and the kinds it contains."""
    if not only:
        return True
    return any(kind == wanted or kind.startswith(f"{wanted}.") for wanted in only)
