"""Keep the params and results of our custom requests as plain JSON.

pygls turns params of methods it does not know into namedtuples; our handlers validate
plain dicts (the same code that validates command arguments), so custom methods get a
message type whose params are left untouched (`methods.PLAIN_PARAMS`: all but
workspaceAgent/changes, which is a notification's name too; pygls picks the message type
by method name alone, also for the notification the server sends, which has no id, so
its params are made plain by `to_plain`). Our handlers answer with plain JSON values,
which go to json.dumps as they are. Open documents are synced by
`DocumentSyncProtocol` (LSP line and position rules). The `initialize` result announces
the contract's version (`protocol.PROTOCOL_VERSION`).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import attrs
from lsprotocol import types
from pygls.protocol import JsonRPCNotification, JsonRPCResponseMessage, lsp_method

from .. import protocol as p
from ..config import editor_section, resolve_settings
from .methods import PLAIN_PARAMS
from .open_documents import DocumentSyncProtocol

PLAIN_REQUESTS = frozenset({types.TEXT_DOCUMENT_CODE_ACTION})
"""Standard requests whose handlers read the JSON themselves, because they are frequent
and large (code actions: every cursor move, dozens of diagnostics)."""


PLAIN_RESULTS = frozenset({p.CODE_INTEL_REQUEST})
"""Server-to-client requests whose answers are kept as the client sent them: pygls makes
other answers namedtuples, which cannot keep a WorkspaceEdit's `changes` (its keys are
URIs, not names)."""


@attrs.define
class PlainResponse:
    id: int | str
    jsonrpc: str
    result: Any = None


@attrs.define
class PlainRequest:
    id: int | str
    method: str
    jsonrpc: str
    params: Any = None


class AgentProtocol(DocumentSyncProtocol):
    def get_message_type(self, method: str) -> type[Any] | None:  # type: ignore[override]
        if method in PLAIN_PARAMS or method in PLAIN_REQUESTS:
            return PlainRequest
        return super().get_message_type(method)

    def get_result_type(self, method: str) -> type[Any] | None:  # type: ignore[override]
        if method in PLAIN_RESULTS:
            return PlainResponse
        return super().get_result_type(method)

    def _serialize_message(self, data: Any) -> Any:
        """A response whose result is plain JSON (a dict, or a list such as code actions),
        and a notification whose params are a dict (workspaceAgent/event, several a turn),
        go to json.dumps as they are: cattrs' generic walk over a large one (a listing of
        1,000 sessions, 50 code actions) would cost the event loop several times the
        encoding itself. Anything else json.dumps meets inside it still comes back here.
        pygls's method is private: tests/unit/lsp/test_lsp_wire.py pins that the JSON is
        the same."""
        if type(data) is JsonRPCResponseMessage and type(data.result) in (dict, list):
            return {"id": data.id, "jsonrpc": data.jsonrpc, "result": data.result}
        if type(data) is JsonRPCNotification and type(data.params) is dict:
            return {"method": data.method, "jsonrpc": data.jsonrpc, "params": data.params}
        return super()._serialize_message(data)

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(
        self, params: types.InitializeParams
    ) -> Generator[Any, Any, types.InitializeResult]:
        """pygls's initialize, plus `experimental.workspaceAgent.protocolVersion` in the
        capabilities: pygls builds them only after the server's own initialize handler has
        run, so that handler cannot add to them."""
        result = yield from super().lsp_initialize(params)
        mode = resolve_settings(None, editor_section(params.initialization_options)).sandbox_mode
        result.capabilities.experimental = announce_protocol(result.capabilities.experimental, mode)
        return result


def announce_protocol(experimental: Any, sandbox_mode: str = "auto") -> dict[str, Any]:
    """The server's experimental capabilities with the contract's version (and what
    clients must know before they use it) added."""
    announced = dict(experimental) if isinstance(experimental, dict) else {}
    section = dict(announced.get(p.SETTINGS_SECTION) or {})
    section[p.PROTOCOL_VERSION_CAPABILITY] = p.PROTOCOL_VERSION
    section[p.REVERT_DRY_RUN_CAPABILITY] = True
    section[p.REVERT_ONLY_CAPABILITY] = True
    section[p.SANDBOX_CAPABILITY] = {"mode": sandbox_mode}
    announced[p.SETTINGS_SECTION] = section
    return announced


def to_plain(value: Any) -> Any:
    """Params pygls handed over as namedtuples (client side), back to plain JSON values."""
    if hasattr(value, "_asdict"):
        return {key: to_plain(item) for key, item in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: to_plain(item) for key, item in value.items()}
    return value
