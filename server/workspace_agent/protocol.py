"""The editor contract: custom LSP method names, command ids and payload shapes.

This module is the one place both sides of the wire are described from, and it imports
nothing heavy: the agent core, the LSP adapter, the terminal front ends and the tests all
use these names instead of string literals. docs/protocol.md is the written form of the
same contract, and vscode-extension/src/protocol.ts mirrors the names (a test keeps the
three in step).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

# -- Requests (client -> server) -------------------------------------------------------
RUN_REQUEST = "workspaceAgent/run"
SESSIONS_REQUEST = "workspaceAgent/sessions"
CHANGES_REQUEST = "workspaceAgent/changes"
FILE_VERSION_REQUEST = "workspaceAgent/fileVersion"

# -- Commands (workspace/executeCommand) -----------------------------------------------
RUN_COMMAND = "workspaceAgent.run"
CANCEL_COMMAND = "workspaceAgent.cancel"
NEW_SESSION_COMMAND = "workspaceAgent.newSession"
GET_TODOS_COMMAND = "workspaceAgent.getTodos"
REVERT_COMMAND = "workspaceAgent.revert"
UNDO_REVERT_COMMAND = "workspaceAgent.undoRevert"
COMMANDS = (
    RUN_COMMAND,
    CANCEL_COMMAND,
    NEW_SESSION_COMMAND,
    GET_TODOS_COMMAND,
    REVERT_COMMAND,
    UNDO_REVERT_COMMAND,
)

# -- Requests (server -> client) --------------------------------------------------------
SAVE_DOCUMENTS_REQUEST = "workspaceAgent/saveDocuments"
"""Sent before a command runs when the client announced the capability below."""
SAVE_DOCUMENTS_CAPABILITY = "saveDocuments"
"""Key in the client's `experimental.workspaceAgent` capabilities."""

# -- Notifications (server -> client) --------------------------------------------------
TODOS_NOTIFICATION = "workspaceAgent/todos"
EVENT_NOTIFICATION = "workspaceAgent/event"
CHANGES_NOTIFICATION = "workspaceAgent/changes"
"""Same name as CHANGES_REQUEST: the request's result plus sessionId, pushed after every
workspace-changing tool call."""

# -- Settings section (initializationOptions / workspace/didChangeConfiguration) -------
SETTINGS_SECTION = "workspaceAgent"

# -- Protocol version (the server's `initialize` result) -------------------------------
PROTOCOL_VERSION = 1
"""The version of this contract, announced at `initialize` in
`capabilities.experimental.workspaceAgent.protocolVersion`. It goes up with any change an
existing client or server would misread (a method, field or meaning renamed, removed or
changed); additions a peer can ignore (an optional field, an event kind) keep it."""
PROTOCOL_VERSION_CAPABILITY = "protocolVersion"
"""Key in the server's `experimental.workspaceAgent` capabilities."""
REVERT_DRY_RUN_CAPABILITY = "revertDryRun"
"""Announced true next to the version: workspaceAgent.revert / undoRevert take `dryRun`
(a server without it would ignore the flag and revert, so clients check first)."""

StopReason = Literal["end_turn", "cancelled", "max_turns", "budget", "error"]
STOP_REASONS: tuple[str, ...] = ("end_turn", "cancelled", "max_turns", "budget", "error")

TodoStatus = Literal["pending", "in_progress", "completed"]
TODO_STATUSES: tuple[str, ...] = ("pending", "in_progress", "completed")

# Checkpoints: how a file changed under a plan item, and the sides of a diff.
ChangeKind = Literal["added", "modified", "deleted"]
CHANGE_KINDS: tuple[str, ...] = ("added", "modified", "deleted")
FileSide = Literal["before", "after"]
FILE_SIDES: tuple[str, ...] = ("before", "after")

# Kinds of workspaceAgent/event, in the order a run usually produces them.
EVENT_RUN_START = "runStart"
EVENT_TEXT = "text"
EVENT_TOOL_CALL = "toolCall"
EVENT_TOOL_RESULT = "toolResult"
EVENT_REMINDER = "reminder"
EVENT_RETRY = "retry"
EVENT_NOTICE = "notice"
EVENT_ERROR = "error"
EVENT_RUN_END = "runEnd"
EVENT_KINDS = (
    EVENT_RUN_START,
    EVENT_TEXT,
    EVENT_TOOL_CALL,
    EVENT_TOOL_RESULT,
    EVENT_REMINDER,
    EVENT_RETRY,
    EVENT_NOTICE,
    EVENT_ERROR,
    EVENT_RUN_END,
)

# Fields of toolCall / toolResult events for front ends that show tool calls in detail
# (the ACP adapter: kind, raw input, locations, diffs, the whole output). The LSP wire
# leaves them out: they can be large, and the transcript shows the summary and output.
# toolCall: toolKind (read | edit | execute | plan | other), input (the raw tool input),
#   locations ([{path, line}]: absolute paths, 1-based lines or null).
# toolResult: fullOutput (what the model got, not cut), changes ([{path, oldText (null for
#   a new file), newText, line}]).
TOOL_DETAIL_FIELDS = frozenset({"toolKind", "input", "locations", "fullOutput", "changes"})


class ProtocolError(ValueError):
    """Params from the client that do not fit the contract; the message says why."""


@dataclass(frozen=True)
class TodoItem:
    """One step of the agent's plan."""

    id: str
    """Stable id chosen by the model (shown as the row's description in the editor)."""
    text: str
    """What the step is about; never empty."""
    status: TodoStatus
    """pending | in_progress | completed."""

    def to_wire(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text, "status": self.status}


@dataclass
class Usage:
    """Tokens billed for a run or a session, summed over model calls. Input is split the
    way the API bills it: uncached input, prompt-cache writes and prompt-cache reads."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0

    @property
    def prompt_tokens(self) -> int:
        """The size of the prompt(s): every input token, cached or not."""
        return self.input_tokens + self.cache_write_tokens + self.cache_read_tokens

    @property
    def total(self) -> int:
        return self.prompt_tokens + self.output_tokens

    def add(self, other: Usage) -> None:
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cache_write_tokens += other.cache_write_tokens
        self.cache_read_tokens += other.cache_read_tokens

    def to_wire(self) -> dict[str, int]:
        return {
            "inputTokens": self.input_tokens,
            "outputTokens": self.output_tokens,
            "cacheWriteTokens": self.cache_write_tokens,
            "cacheReadTokens": self.cache_read_tokens,
        }

    @classmethod
    def from_wire(cls, wire: dict[str, Any]) -> Usage:
        return cls(
            int(wire.get("inputTokens", 0)),
            int(wire.get("outputTokens", 0)),
            int(wire.get("cacheWriteTokens", 0)),
            int(wire.get("cacheReadTokens", 0)),
        )


@dataclass(frozen=True)
class RunParams:
    """Params of workspaceAgent/run (and the argument of the workspaceAgent.run command)."""

    prompt: str
    session_id: str | None = None

    @classmethod
    def from_wire(cls, raw: Any) -> RunParams:
        obj = _require_object(raw, "workspaceAgent/run params")
        prompt = obj.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            raise ProtocolError("'prompt' must be a non-empty string")
        return cls(prompt=prompt, session_id=_optional_session_id(obj))


@dataclass(frozen=True)
class SessionParams:
    """Params naming one session (workspaceAgent.cancel, workspaceAgent.getTodos)."""

    session_id: str

    @classmethod
    def from_wire(cls, raw: Any, what: str) -> SessionParams:
        obj = _require_object(raw, what)
        session_id = _optional_session_id(obj)
        if session_id is None:
            raise ProtocolError(f"{what} needs 'sessionId'")
        return cls(session_id=session_id)


@dataclass
class RunResult:
    """What a run returns to the client once it has stopped."""

    session_id: str
    stop_reason: StopReason
    text: str
    todos: list[TodoItem]
    usage: Usage = field(default_factory=Usage)
    error: str | None = None
    """Set when stop_reason is "error": a message meant for the user."""
    cost: dict[str, Any] | None = None
    """The run's estimated cost, `{usd, model}` (agent/pricing.py); None: no price known."""

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "sessionId": self.session_id,
            "stopReason": self.stop_reason,
            "text": self.text,
            "todos": [item.to_wire() for item in self.todos],
            "usage": self.usage.to_wire(),
            "cost": self.cost,
        }
        if self.error is not None:
            wire["error"] = self.error
        return wire


@dataclass(frozen=True)
class FileVersionParams:
    """Params of workspaceAgent/fileVersion: one side of one file under one plan item,
    named by its `key` (one occurrence) or its `todo_id` (the latest occurrence)."""

    session_id: str
    todo_id: str | None
    """None: the changes made before any plan item was in progress."""
    path: str
    side: FileSide
    key: str | None = None
    todo_id_given: bool = True

    @classmethod
    def from_wire(cls, raw: Any) -> FileVersionParams:
        what = "workspaceAgent/fileVersion"
        obj = _require_object(raw, f"{what} params")
        session_id = SessionParams.from_wire(obj, what).session_id
        path = obj.get("path")
        if not isinstance(path, str) or not path:
            raise ProtocolError("'path' must be a non-empty string (relative to the workspace)")
        side = obj.get("side")
        if side not in FILE_SIDES:
            raise ProtocolError(f"'side' must be one of {' | '.join(FILE_SIDES)}")
        key = _item_key(obj)
        todo_id = _todo_id(obj, required=key is None)
        return cls(session_id, todo_id, path, side, key, "todoId" in obj)


@dataclass(frozen=True)
class RevertParams:
    """Argument of workspaceAgent.revert: revert to the checkpoint before a plan item
    (`key`, or `todo_id`: the latest occurrence of that id; None: the changes made
    outside the plan), or before the session's last run that changed files
    (`last_run`). `dry_run`: say what would be done, and do nothing."""

    session_id: str
    todo_id: str | None = None
    last_run: bool = False
    force: bool = False
    key: str | None = None
    dry_run: bool = False
    todo_id_given: bool = True

    @classmethod
    def from_wire(cls, raw: Any) -> RevertParams:
        what = REVERT_COMMAND
        obj = _require_object(raw, f"{what} argument")
        session_id = SessionParams.from_wire(obj, what).session_id
        last_run = _flag(obj, "lastRun")
        key = _item_key(obj)
        if last_run == ("todoId" in obj or key is not None):
            raise ProtocolError(
                f"{what} needs either 'key' or 'todoId' (string or null), or 'lastRun': true"
            )
        return cls(
            session_id,
            _todo_id(obj, required=False),
            last_run,
            _flag(obj, "force"),
            key,
            _flag(obj, "dryRun"),
            "todoId" in obj,
        )


@dataclass(frozen=True)
class UndoRevertParams:
    """Argument of workspaceAgent.undoRevert."""

    session_id: str
    undo_id: str
    force: bool = False
    dry_run: bool = False

    @classmethod
    def from_wire(cls, raw: Any) -> UndoRevertParams:
        what = UNDO_REVERT_COMMAND
        obj = _require_object(raw, f"{what} argument")
        session_id = SessionParams.from_wire(obj, what).session_id
        undo_id = obj.get("undoId")
        if not isinstance(undo_id, str) or not undo_id:
            raise ProtocolError(f"{what} needs 'undoId' (from the revert's result)")
        return cls(session_id, undo_id, _flag(obj, "force"), _flag(obj, "dryRun"))


def todos_payload(session_id: str, items: list[TodoItem]) -> dict[str, Any]:
    """The body of workspaceAgent/todos (also the workspaceAgent.getTodos result + id)."""
    return {
        "sessionId": session_id,
        "items": [item.to_wire() for item in items],
        "completed": sum(1 for item in items if item.status == "completed"),
        "total": len(items),
    }


def _require_object(raw: Any, what: str) -> dict[str, Any]:
    if isinstance(raw, list) and len(raw) == 1:  # command arguments arrive as [params]
        raw = raw[0]
    if not isinstance(raw, dict):
        raise ProtocolError(f"{what} must be an object")
    return raw


def _todo_id(obj: dict[str, Any], required: bool) -> str | None:
    if required and "todoId" not in obj:
        raise ProtocolError("'todoId' is needed (a plan item's id, or null for before the plan)")
    todo_id = obj.get("todoId")
    if todo_id is not None and (not isinstance(todo_id, str) or not todo_id):
        raise ProtocolError("'todoId' must be a plan item's id (a non-empty string) or null")
    return todo_id


def _item_key(obj: dict[str, Any]) -> str | None:
    key = obj.get("key")
    if key is not None and (not isinstance(key, str) or not key):
        raise ProtocolError("'key' must be an item's key from workspaceAgent/changes (a string)")
    return key


def _flag(obj: dict[str, Any], key: str) -> bool:
    value = obj.get(key, False)
    if not isinstance(value, bool):
        raise ProtocolError(f"'{key}' must be true or false")
    return value


def _optional_session_id(obj: dict[str, Any]) -> str | None:
    session_id = obj.get("sessionId")
    if session_id is None:
        return None
    if not isinstance(session_id, str) or not session_id:
        raise ProtocolError("'sessionId' must be a non-empty string")
    return session_id
