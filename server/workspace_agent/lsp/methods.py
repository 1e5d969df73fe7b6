"""The custom requests the language server answers: method, params parser, handler.

GENERATED from contract/workspace-agent.json by scripts/generate_contract.py: do not
edit; change the JSON and run `make generate`. `create_server` (server.py) registers
every entry: the params are parsed by the contract's `parser` (a ProtocolError is
InvalidParams), then `AgentLanguageServer.<handler>` (hand-written) answers with them.
A new request is its contract entry plus that handler.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from .. import contract as c


@dataclass(frozen=True)
class Request:
    method: str
    handler: str
    """The name of the AgentLanguageServer method that answers it."""
    parse: Callable[[Any], Any] | None
    """Params -> the handler's argument; None: the handler gets the plain JSON."""
    takes_params: bool
    """False: the contract gives the request no params; the handler takes none."""
    plain: bool
    """pygls hands the params over as plain JSON (wire.AgentProtocol). False for a
    method that is also a notification's name: pygls picks the message type by name
    alone, so those params come as namedtuples and are made plain first."""


def _parse_run(params: Any) -> Any:
    from ..protocol import RunRequest

    return RunRequest.from_wire(params)


def _parse_changes(params: Any) -> Any:
    from ..protocol import SessionParams

    return SessionParams.from_wire(params, c.CHANGES_REQUEST)


def _parse_file_version(params: Any) -> Any:
    from ..protocol import FileVersionParams

    return FileVersionParams.from_wire(params)


def _parse_history(params: Any) -> Any:
    from ..conversation.pages import HistoryParams

    return HistoryParams.from_wire(params)


def _parse_history_image(params: Any) -> Any:
    from ..conversation.pages import HistoryImageParams

    return HistoryImageParams.from_wire(params)


def _parse_tool_image(params: Any) -> Any:
    from ..conversation.pages import ToolImageParams

    return ToolImageParams.from_wire(params)


def _parse_tool_output(params: Any) -> Any:
    from ..conversation.pages import ToolOutputParams

    return ToolOutputParams.from_wire(params)


def _parse_background(params: Any) -> Any:
    from ..protocol import SessionParams

    return SessionParams.from_wire(params, c.BACKGROUND_REQUEST)


def _parse_background_output(params: Any) -> Any:
    from ..protocol import BackgroundOutputParams

    return BackgroundOutputParams.from_wire(params)


def _parse_background_stop(params: Any) -> Any:
    from ..protocol import BackgroundStopParams

    return BackgroundStopParams.from_wire(params)


def _parse_mcp_restart(params: Any) -> Any:
    from ..protocol import McpServerParams

    return McpServerParams.from_wire(params, c.MCP_RESTART_REQUEST)


def _parse_mcp_trust(params: Any) -> Any:
    from ..protocol import McpServerParams

    return McpServerParams.from_wire(params, c.MCP_TRUST_REQUEST)


def _parse_mcp_set_enabled(params: Any) -> Any:
    from ..protocol import McpServerParams

    return McpServerParams.from_wire(params, c.MCP_SET_ENABLED_REQUEST)


def _parse_set_item_check(params: Any) -> Any:
    from ..protocol import ItemCheckParams

    return ItemCheckParams.from_wire(params, c.SET_ITEM_CHECK_REQUEST)


def _parse_approve_plan(params: Any) -> Any:
    from ..protocol import ApprovePlanParams

    return ApprovePlanParams.from_wire(params)


def _parse_run_command(params: Any) -> Any:
    from ..protocol import RunRequest

    return RunRequest.from_wire(params)


def _parse_cancel_command(params: Any) -> Any:
    from ..protocol import CancelParams

    return CancelParams.from_wire(params, c.CANCEL_COMMAND)


def _parse_get_todos_command(params: Any) -> Any:
    from ..protocol import SessionParams

    return SessionParams.from_wire(params, c.GET_TODOS_COMMAND)


def _parse_revert_command(params: Any) -> Any:
    from ..protocol import RevertParams

    return RevertParams.from_wire(params)


def _parse_undo_revert_command(params: Any) -> Any:
    from ..protocol import UndoRevertParams

    return UndoRevertParams.from_wire(params)


REQUESTS: Final = (
    Request(c.RUN_REQUEST, "on_run", _parse_run, True, True),
    Request(c.MODELS_REQUEST, "on_models", None, True, True),
    Request(c.SESSIONS_REQUEST, "on_sessions", None, False, True),
    Request(c.COMMANDS_REQUEST, "on_commands", None, False, True),
    Request(c.CHANGES_REQUEST, "on_changes", _parse_changes, True, False),
    Request(c.FILE_VERSION_REQUEST, "on_file_version", _parse_file_version, True, True),
    Request(c.HISTORY_REQUEST, "on_history", _parse_history, True, True),
    Request(c.HISTORY_IMAGE_REQUEST, "on_history_image", _parse_history_image, True, True),
    Request(c.TOOL_IMAGE_REQUEST, "on_tool_image", _parse_tool_image, True, True),
    Request(c.TOOL_OUTPUT_REQUEST, "on_tool_output", _parse_tool_output, True, True),
    Request(c.BACKGROUND_REQUEST, "on_background", _parse_background, True, True),
    Request(
        c.BACKGROUND_OUTPUT_REQUEST,
        "on_background_output",
        _parse_background_output,
        True,
        True,
    ),
    Request(c.BACKGROUND_STOP_REQUEST, "on_background_stop", _parse_background_stop, True, True),
    Request(c.MCP_RESTART_REQUEST, "on_mcp_restart", _parse_mcp_restart, True, True),
    Request(c.MCP_TRUST_REQUEST, "on_mcp_trust", _parse_mcp_trust, True, True),
    Request(c.MCP_SET_ENABLED_REQUEST, "on_mcp_set_enabled", _parse_mcp_set_enabled, True, True),
    Request(c.SET_ITEM_CHECK_REQUEST, "on_set_item_check", _parse_set_item_check, True, True),
    Request(c.APPROVE_PLAN_REQUEST, "on_approve_plan", _parse_approve_plan, True, True),
)
PLAIN_PARAMS: Final = frozenset(r.method for r in REQUESTS if r.plain)
"""Custom requests whose params pygls leaves as they are (wire.AgentProtocol gives them a
message type of their own).
"""
COMMANDS: Final = (
    Request(c.RUN_COMMAND, "on_run_command", _parse_run_command, True, True),
    Request(c.CANCEL_COMMAND, "on_cancel_command", _parse_cancel_command, True, True),
    Request(c.NEW_SESSION_COMMAND, "on_new_session_command", None, False, True),
    Request(c.GET_TODOS_COMMAND, "on_get_todos_command", _parse_get_todos_command, True, True),
    Request(c.REVERT_COMMAND, "on_revert_command", _parse_revert_command, True, True),
    Request(
        c.UNDO_REVERT_COMMAND,
        "on_undo_revert_command",
        _parse_undo_revert_command,
        True,
        True,
    ),
)
"""The commands the server advertises (workspace/executeCommand): their argument list
(`[params]`) is parsed, then `on_<name>_command` answers (`plain` unused).
"""
