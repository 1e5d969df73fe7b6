"""textDocument/codeAction: the agent as a quick fix and a refactoring, in any LSP editor.

For each diagnostic the client sends in the request's context, a `quickfix` action
"Fix with Workspace Agent: <message>"; for a non-empty range, a `refactor` action "Ask
Workspace Agent about this…". Each carries the `workspaceAgent.run` command with the
prompt and the run's `context` (file, range, selected text, the diagnostic with its
source and code), so executing it starts a run in the client's current session exactly
like the command itself.

Editors ask for code actions on every cursor move, so this must be cheap: no model call
and no disk read (the text comes from the open buffer, the settings from what the editor
and the environment said), and the request and the answer stay plain JSON: building and
walking 50 lsprotocol objects each way would cost more than everything else together
(the `textDocument/codeAction` benchmark, bench/code_actions.py). Diagnostics go back to
the client exactly as it sent them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pygls.uris import to_fs_path

from .. import protocol as p
from ..agent.editor_context import shorten
from ..protocol import ProtocolError, Span
from .open_documents import OpenDocument

QUICKFIX, REFACTOR = "quickfix", "refactor"
KINDS = (QUICKFIX, REFACTOR)
FIX_TITLE = "Fix with Workspace Agent: "
ASK_TITLE = "Ask Workspace Agent about this…"
TITLE_MESSAGE_CHARS = 60
PROMPT_MESSAGE_CHARS = 200
ASK_PROMPT = (
    "Explain the selected code and point out any problems you see in it. Do not change any files."
)
"""The prompt of "Ask…" where the editor cannot ask the user (plain LSP clients); the
VS Code extension asks for the user's own instruction instead."""


@dataclass(frozen=True)
class ActionRequest:
    """The parts of a textDocument/codeAction request the actions use, checked."""

    uri: str
    range: Span
    diagnostics: list[dict[str, Any]]
    """As the client sent them (LSP Diagnostic objects)."""
    only: list[str] | None

    @classmethod
    def from_wire(cls, raw: Any) -> ActionRequest:
        if not isinstance(raw, dict):
            raise ProtocolError("textDocument/codeAction params must be an object")
        document = raw.get("textDocument")
        uri = document.get("uri") if isinstance(document, dict) else None
        if not isinstance(uri, str):
            raise ProtocolError("'textDocument.uri' must be a string")
        context = raw.get("context")
        if not isinstance(context, dict):
            raise ProtocolError("'context' must be a CodeActionContext")
        diagnostics = context.get("diagnostics", [])
        only = context.get("only")
        if not isinstance(diagnostics, list) or not all(isinstance(d, dict) for d in diagnostics):
            raise ProtocolError("'context.diagnostics' must be a list of Diagnostic objects")
        if only is not None and not (
            isinstance(only, list) and all(isinstance(kind, str) for kind in only)
        ):
            raise ProtocolError("'context.only' must be a list of code action kinds")
        return cls(uri, _span(raw.get("range"), "range"), diagnostics, only)


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


def code_actions(request: ActionRequest, scope: ActionScope) -> list[dict[str, Any]]:
    """The actions as LSP CodeAction objects (plain JSON)."""
    actions: list[dict[str, Any]] = []
    problems = [_problem(d, index, scope.path) for index, d in enumerate(request.diagnostics)]
    if _wanted(QUICKFIX, request.only):
        for diagnostic, problem in zip(request.diagnostics, problems, strict=True):
            actions.append(_fix(diagnostic, problem, scope))
    if not request.range.empty and _wanted(REFACTOR, request.only):
        inside = [problem for problem in problems if _overlaps(problem["range"], request.range)]
        actions.append(_ask(request.range, inside, scope))
    return actions


def _fix(diagnostic: dict[str, Any], problem: dict[str, Any], scope: ActionScope) -> dict[str, Any]:
    message = problem["message"]
    title = FIX_TITLE + shorten(message, TITLE_MESSAGE_CHARS)
    line = problem["range"]["start"]["line"] + 1
    prompt = (
        f"Fix the problem the editor reports in {scope.path} at line {line}: "
        f"{shorten(message, PROMPT_MESSAGE_CHARS)}"
    )
    context = {"activeFile": scope.path, "diagnostics": [problem]}
    return {
        "title": title,
        "kind": QUICKFIX,
        "diagnostics": [diagnostic],
        "command": _run_command(title, prompt, context, scope),
    }


def _ask(selected: Span, problems: list[dict[str, Any]], scope: ActionScope) -> dict[str, Any]:
    index = scope.document.index
    start = index.offset(selected.start_line, selected.start_character)
    end = index.offset(selected.end_line, selected.end_character)
    # One character past the limit, so the run still sees the text was cut and says so.
    text = index.text[start : min(end, start + scope.max_chars + 1)]
    context: dict[str, Any] = {
        "activeFile": scope.path,
        "selection": {"path": scope.path, "range": selected.to_wire(), "text": text},
    }
    if problems:
        context["diagnostics"] = problems
    return {
        "title": ASK_TITLE,
        "kind": REFACTOR,
        "command": _run_command(ASK_TITLE, ASK_PROMPT, context, scope),
    }


def _run_command(
    title: str, prompt: str, context: dict[str, Any], scope: ActionScope
) -> dict[str, Any]:
    """The workspaceAgent.run command with RunParams (in the shape RunRequest.from_wire
    reads back)."""
    params: dict[str, Any] = {"prompt": prompt, "context": context}
    if scope.session_id is not None:
        params["sessionId"] = scope.session_id
    return {"title": title, "command": p.RUN_COMMAND, "arguments": [params]}


def _problem(diagnostic: dict[str, Any], index: int, path: str) -> dict[str, Any]:
    """A client's Diagnostic as a context diagnostic (the run's `context.diagnostics`)."""
    message = diagnostic.get("message")
    if not isinstance(message, str):
        raise ProtocolError(f"'context.diagnostics[{index}].message' must be a string")
    lsp_range = diagnostic.get("range")
    if not _ordered_range(lsp_range):  # the rare case: say what is wrong, or turn it round
        lsp_range = _span(lsp_range, f"context.diagnostics[{index}].range").to_wire()
    problem: dict[str, Any] = {"path": path, "range": lsp_range, "message": message}
    severity, source, code = (
        diagnostic.get("severity"),
        diagnostic.get("source"),
        diagnostic.get("code"),
    )
    if severity in p.SEVERITY_NAMES:
        problem["severity"] = severity
    if isinstance(source, str) and source:
        problem["source"] = source
    if isinstance(code, (str, int)) and not isinstance(code, bool):
        problem["code"] = code
    return problem


def _ordered_range(raw: Any) -> bool:
    """A well-formed LSP range that does not end before it starts (then it can be passed
    on as the client sent it)."""
    try:
        start, end = raw["start"], raw["end"]
        positions = (start["line"], start["character"], end["line"], end["character"])
    except (KeyError, TypeError):
        return False
    if any(type(n) is not int or n < 0 for n in positions):
        return False
    return positions[:2] <= positions[2:]


def _span(raw: Any, what: str) -> Span:
    """An LSP range; a reversed one (end before start) is read the right way round."""
    try:
        return Span.from_wire(raw, what)
    except ProtocolError:
        if isinstance(raw, dict):
            try:
                return Span.from_wire({"start": raw.get("end"), "end": raw.get("start")}, what)
            except ProtocolError:
                pass
        raise


def _overlaps(wire: dict[str, Any], span: Span) -> bool:
    """A diagnostic's range (wire form) touches the selection: the problems in it."""
    start, end = wire["start"], wire["end"]
    return (end["line"], end["character"]) >= (span.start_line, span.start_character) and (
        start["line"],
        start["character"],
    ) <= (span.end_line, span.end_character)


def _wanted(kind: str, only: list[str] | None) -> bool:
    """The client's `only` filter: a kind matches itself and the kinds it contains."""
    if not only:
        return True
    return any(kind == wanted or kind.startswith(f"{wanted}.") for wanted in only)
