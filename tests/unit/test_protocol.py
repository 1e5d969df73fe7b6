"""The parsers of what clients send (`from_wire`): every bad input is refused with a message
that names the field and says what it must be. The server answers such a request -32602
with this message (one end-to-end case per method family lives in tests/lsp/, proving the
wiring); the cases themselves are here, where they cost nothing."""

from __future__ import annotations

from typing import Any

import pytest

from workspace_agent.conversation.pages import (
    HistoryImageParams,
    HistoryParams,
    ToolImageParams,
    ToolOutputParams,
)
from workspace_agent.lsp.code_actions import ActionRequest, ActionScope, code_actions
from workspace_agent.lsp.open_documents import OpenDocument
from workspace_agent.protocol import (
    ApprovePlanParams,
    CancelParams,
    FileVersionParams,
    McpServerParams,
    ProtocolError,
    RevertParams,
    RunContext,
    RunRequest,
    SessionParams,
    UndoRevertParams,
)


def span(sl: int, sc: int, el: int, ec: int) -> dict[str, Any]:
    return {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}}


def refused(parse: Any, raw: Any, message: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse(raw)
    assert message in str(caught.value), str(caught.value)


@pytest.mark.parametrize(
    ("context", "message"),
    [
        ("src/app.py", "'context' must be an object"),
        ({"activeFile": "/etc/passwd"}, "'context.activeFile' must be relative to the workspace"),
        ({"selection": {"path": "a.py", "range": span(0, 0, 0, 1)}}, "'context.selection.text'"),
        (
            {"selection": {"path": "a.py", "range": span(2, 0, 1, 0), "text": "x"}},
            "'context.selection.range' ends before it starts",
        ),
        (
            {"selection": {"path": "a.py", "range": {"start": {"line": -1}}, "text": "x"}},
            "'context.selection.range.start' must be an LSP position",
        ),
        ({"diagnostics": {"message": "x"}}, "'context.diagnostics' must be a list"),
        (
            {
                "diagnostics": [
                    {"path": "a.py", "range": span(0, 0, 0, 1), "message": "x", "severity": 7}
                ]
            },
            "'context.diagnostics[0].severity' must be 1 (error) to 4 (hint)",
        ),
        (
            {"diagnostics": [{"path": "a.py", "range": span(0, 0, 0, 1), "message": ""}]},
            "'context.diagnostics[0].message' must be a non-empty string",
        ),
    ],
)
def test_a_run_context_that_does_not_fit_is_refused_naming_the_field(context: Any, message: str):
    refused(RunContext.from_wire, context, message)
    refused(RunRequest.from_wire, {"prompt": "Go", "context": context}, message)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (None, "workspaceAgent/run params"),
        ({"prompt": "  "}, "'prompt' must be a non-empty string"),
        ({"prompt": "Go", "mode": "yolo"}, "'mode' must be one of act | plan"),
        ({"prompt": "Go", "sessionId": 3}, "sessionId"),
    ],
)
def test_a_run_request_that_does_not_fit_is_refused(raw: Any, message: str):
    refused(RunRequest.from_wire, raw, message)


def test_a_run_request_reads_what_it_needs():
    request = RunRequest.from_wire({"prompt": "Go", "sessionId": "s1", "mode": "plan"})
    assert (request.prompt, request.session_id, request.mode) == ("Go", "s1", "plan")
    assert request.to_wire() == {"prompt": "Go", "sessionId": "s1", "mode": "plan"}


@pytest.mark.parametrize(
    ("diagnostics", "message"),
    [
        ([{"message": "no range"}], "'context.diagnostics[0].range' must be an LSP range"),
        (
            [{"range": span(0, 0, 0, 1), "message": 42}],
            "'context.diagnostics[0].message' must be a string",
        ),
        ("not a list", "'context.diagnostics' must be a list of Diagnostic objects"),
    ],
)
def test_malformed_code_action_params_are_refused(diagnostics: Any, message: str):
    """The diagnostics' own fields are checked where an action is built from them."""
    raw = {
        "textDocument": {"uri": "file:///ws/a.py"},
        "range": span(0, 0, 0, 0),
        "context": {"diagnostics": diagnostics},
    }
    document = OpenDocument("file:///ws/a.py", 1, "x = 1\n", "utf-16")
    scope = ActionScope(document, "a.py", None, 20_000)
    with pytest.raises(ProtocolError) as caught:
        code_actions(ActionRequest.from_wire(raw), scope)
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ([], "textDocument/codeAction params must be an object"),
        ({"context": {}}, "'textDocument.uri' must be a string"),
        ({"textDocument": {"uri": "file:///a"}}, "'context' must be a CodeActionContext"),
        (
            {"textDocument": {"uri": "file:///a"}, "context": {"only": "quickfix"}},
            "'context.only' must be a list of code action kinds",
        ),
    ],
)
def test_a_code_action_request_that_does_not_fit_is_refused(raw: Any, message: str):
    refused(ActionRequest.from_wire, raw, message)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"sessionId": "s", "items": [], "action": "later"}, "'action' must be one of"),
        ({"sessionId": "s", "items": "x", "action": "run"}, "'items' must be a list"),
        (
            {
                "sessionId": "s",
                "items": [{"id": "1", "text": "a"}, {"id": "1", "text": "b"}],
                "action": "run",
            },
            "two items of 'items' have the id '1'",
        ),
        (
            {"sessionId": "s", "items": [{"id": "1", "text": " "}], "action": "run"},
            "must not be empty (delete the item instead)",
        ),
        (
            {
                "sessionId": "s",
                "items": [{"id": "1", "text": "a"}],
                "comments": "x",
                "action": "run",
            },
            "'comments' must be a list of {todoId, text}",
        ),
    ],
)
def test_an_approved_plan_that_does_not_fit_is_refused(raw: Any, message: str):
    refused(ApprovePlanParams.from_wire, raw, message)


@pytest.mark.parametrize(
    ("parse", "raw", "message"),
    [
        (FileVersionParams.from_wire, {"sessionId": "s", "path": ""}, "'path' must be a non-empty"),
        (
            FileVersionParams.from_wire,
            {"sessionId": "s", "path": "a", "todoId": "1", "side": "middle"},
            "'side' must be one of",
        ),
        (RevertParams.from_wire, {"sessionId": "s"}, "needs either 'key' or 'todoId'"),
        (
            RevertParams.from_wire,
            {"sessionId": "s", "lastRun": True, "only": True},
            "with 'only' needs a plan item",
        ),
        (UndoRevertParams.from_wire, {"sessionId": "s"}, "needs 'undoId'"),
        (lambda raw: SessionParams.from_wire(raw, "workspaceAgent/plan"), [], "must be an object"),
        (lambda raw: CancelParams.from_wire(raw, "workspaceAgent.cancel"), 5, "must be an object"),
        (
            lambda raw: McpServerParams.from_wire(raw, "workspaceAgent/mcpRestart"),
            {},
            "name",
        ),
    ],
)
def test_other_requests_that_do_not_fit_are_refused(parse: Any, raw: Any, message: str):
    refused(parse, raw, message)


@pytest.mark.parametrize(
    "parse", [HistoryParams, ToolOutputParams, HistoryImageParams, ToolImageParams]
)
def test_history_requests_need_an_object_with_a_session(parse: Any):
    with pytest.raises(ProtocolError):
        parse.from_wire(None)
    with pytest.raises(ProtocolError):
        parse.from_wire({"sessionId": 7})
