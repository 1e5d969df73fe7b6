"""lsp/wire.py overrides pygls's private `_serialize_message` (plain JSON results skip
cattrs). Pinned here against the installed pygls: every kind of message the server sends,
written by our protocol, is the same JSON as pygls's own protocol class (the one ours
extends, without the override) writes, and the fast path is really taken for plain
results. A pygls release that changes its serializer or message classes fails here, not
in an editor.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.protocol import JsonRPCProtocol

from workspace_agent import protocol as p
from workspace_agent.lsp.open_documents import DocumentSyncProtocol
from workspace_agent.lsp.wire import AgentProtocol

PLAIN_RESULT = {
    "sessionId": "a1b2c3",
    "stopReason": "end_turn",
    "usage": {"inputTokens": 12, "outputTokens": 3},
    "todos": [{"id": "1", "text": "Fix the parser: ünïcode", "status": "completed"}],
    "nothing": None,
}
CODE_ACTIONS = [
    {
        "title": "Ask Workspace Agent to fix this",
        "kind": "quickfix",
        "command": {"title": "Fix", "command": "workspaceAgent.run", "arguments": [{"a": 1}]},
    }
]


class Collected:
    """A pygls Writer that keeps what is written."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.bodies.append(data)

    def close(self) -> None:
        pass


class Counting:
    """The protocol's cattrs converter, noting what it is asked to unstructure."""

    def __init__(self, converter: Any) -> None:
        self._converter = converter
        self.walked: list[Any] = []

    def unstructure(self, obj: Any, *args: Any) -> Any:
        self.walked.append(obj)
        return self._converter.unstructure(obj, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._converter, name)


def sent(protocol_cls: type[JsonRPCProtocol], send: Callable[[Any], None]) -> Any:
    server = LanguageServer("wire-test", "0", protocol_cls=protocol_cls)
    out = Collected()
    server.protocol.set_writer(out, include_headers=False)
    send(server.protocol)
    assert len(out.bodies) == 1
    return json.loads(out.bodies[0])


def error(protocol: Any) -> None:
    exc = JsonRpcInvalidParams("sessionId: expected a string")
    protocol._send_response(7, error=exc.to_response_error())


MESSAGES: dict[str, Callable[[Any], None]] = {
    "response, plain dict result": lambda pr: pr._send_response(1, PLAIN_RESULT),
    "response, plain list result (code actions)": lambda pr: pr._send_response(2, CODE_ACTIONS),
    "response, empty list": lambda pr: pr._send_response(3, []),
    "response, null result": lambda pr: pr._send_response(4, None),
    "response, lsprotocol result": lambda pr: pr._send_response(
        5,
        types.InitializeResult(
            capabilities=types.ServerCapabilities(experimental={"x": 1}),
            server_info=types.ServerInfo(name="workspace-agent", version="0"),
        ),
    ),
    "response, dict holding an lsprotocol value": lambda pr: pr._send_response(
        6, {"range": types.Range(types.Position(0, 1), types.Position(2, 3))}
    ),
    "error response": error,
    "notification, plain params": lambda pr: pr.notify(
        p.EVENT_NOTIFICATION, {"sessionId": "a1", "kind": "text", "text": "hi"}
    ),
    "notification, plain params holding an lsprotocol value": lambda pr: pr.notify(
        p.EVENT_NOTIFICATION,
        {
            "sessionId": "a1",
            "kind": "x",
            "range": types.Range(types.Position(0, 1), types.Position(2, 3)),
        },
    ),
    "notification, lsprotocol params": lambda pr: pr.notify(
        types.WINDOW_LOG_MESSAGE,
        types.LogMessageParams(type=types.MessageType.Info, message="hello"),
    ),
    "request, plain params": lambda pr: pr.send_request(
        p.APPROVAL_REQUEST, {"sessionId": "a1", "kind": "execute"}, msg_id=8
    ),
    "request, lsprotocol params": lambda pr: pr.send_request(
        types.WORKSPACE_APPLY_EDIT,
        types.ApplyWorkspaceEditParams(
            edit=types.WorkspaceEdit(
                changes={
                    "file:///a.py": [
                        types.TextEdit(
                            range=types.Range(types.Position(0, 0), types.Position(0, 1)),
                            new_text="x",
                        )
                    ]
                }
            ),
            label="Workspace Agent",
        ),
        msg_id=9,
    ),
}


@pytest.mark.parametrize("kind", MESSAGES)
def test_our_serializer_writes_what_pygls_writes(kind: str) -> None:
    assert "_serialize_message" not in vars(DocumentSyncProtocol)  # ours is the only override
    ours = sent(AgentProtocol, MESSAGES[kind])
    pygls = sent(DocumentSyncProtocol, MESSAGES[kind])
    assert ours == pygls


@pytest.mark.parametrize("result", [PLAIN_RESULT, CODE_ACTIONS])
def test_plain_results_skip_cattrs(result: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The point of the override: a plain JSON result is not walked by the converter."""
    server = LanguageServer("wire-test", "0", protocol_cls=AgentProtocol)
    out = Collected()
    server.protocol.set_writer(out, include_headers=False)
    converter = Counting(server.protocol._converter)
    monkeypatch.setattr(server.protocol, "_converter", converter)
    server.protocol._send_response(1, result)
    assert converter.walked == []
    assert json.loads(out.bodies[0]) == {"id": 1, "jsonrpc": "2.0", "result": result}


def test_plain_notifications_skip_cattrs(monkeypatch: pytest.MonkeyPatch) -> None:
    """workspaceAgent/event goes out several times a turn: its dict is not walked either."""
    server = LanguageServer("wire-test", "0", protocol_cls=AgentProtocol)
    out = Collected()
    server.protocol.set_writer(out, include_headers=False)
    converter = Counting(server.protocol._converter)
    monkeypatch.setattr(server.protocol, "_converter", converter)
    params = {"sessionId": "a1", "kind": "toolResult", "ok": True, "changes": [], "todoId": None}
    server.protocol.notify(p.EVENT_NOTIFICATION, params)
    assert converter.walked == []
    assert json.loads(out.bodies[0]) == {
        "jsonrpc": "2.0",
        "method": p.EVENT_NOTIFICATION,
        "params": params,
    }
