"""The editor contract: custom LSP method names, command ids and payload shapes.

The names, the Literal aliases and the payload TypedDicts are generated from the
contract's one source, contract/workspace-agent.json, into contract.py (make generate);
this module re-exports the names so the agent core, the LSP adapter, the terminal front
ends and the tests use them instead of string literals, and adds what a JSON file cannot
hold: the dataclasses that parse the client's params (with the errors they raise) and
build the results. It imports nothing heavy. docs/protocol.md's tables and the
extension's contract.ts come from the same source (make check-generated keeps them in
step).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, cast

from . import names
from .contract import (
    ALWAYS_ALLOW_HOSTS_CAPABILITY,
    APPROVAL_DECISIONS,
    APPROVAL_REQUEST,
    APPROVAL_STATUSES,
    APPROVALS_CAPABILITY,
    APPROVE_PLAN_REQUEST,
    BACKGROUND_OUTPUT_REQUEST,
    BACKGROUND_REQUEST,
    BACKGROUND_STATES,
    BACKGROUND_STOP_REQUEST,
    CANCEL_COMMAND,
    CHANGE_KINDS,
    CHANGES_NOTIFICATION,
    CHANGES_REQUEST,
    CODE_INTEL_CAPABILITY,
    CODE_INTEL_REQUEST,
    COMMANDS,
    COMMANDS_REQUEST,
    CONTEXT_METER_NOTIFICATION,
    DIAGNOSTICS_CAPABILITY,
    DIAGNOSTICS_REQUEST,
    EVENT_APPROVAL,
    EVENT_BACKGROUND,
    EVENT_BACKGROUND_OUTPUT,
    EVENT_ERROR,
    EVENT_HOOK,
    EVENT_KINDS,
    EVENT_NOTICE,
    EVENT_NOTIFICATION,
    EVENT_PREPARING,
    EVENT_REMINDER,
    EVENT_RETRY,
    EVENT_REVERT,
    EVENT_RUN_END,
    EVENT_RUN_START,
    EVENT_SUBAGENT,
    EVENT_TEXT,
    EVENT_THINKING,
    EVENT_TOOL_CALL,
    EVENT_TOOL_RESULT,
    FILE_SIDES,
    FILE_VERSION_REQUEST,
    GET_TODOS_COMMAND,
    HISTORY_IMAGE_REQUEST,
    HISTORY_REQUEST,
    INVALID_PARAMS,
    MCP_NEXT_STEPS,
    MCP_RESTART_REQUEST,
    MCP_SERVERS_NOTIFICATION,
    MCP_SET_ENABLED_REQUEST,
    MCP_STATES,
    MCP_TRUST_REQUEST,
    MODELS_REQUEST,
    NEW_SESSION_COMMAND,
    PLAN_ACTIONS,
    PLAN_CHANGES,
    PROTOCOL_VERSION,
    PROTOCOL_VERSION_CAPABILITY,
    REQUEST_FAILED,
    REVERT_COMMAND,
    REVERT_DRY_RUN_CAPABILITY,
    REVERT_ONLY_CAPABILITY,
    RUN_COMMAND,
    RUN_MODES,
    RUN_REQUEST,
    SANDBOX_CAPABILITY,
    SANDBOX_NOTIFICATION,
    SAVE_DOCUMENTS_CAPABILITY,
    SAVE_DOCUMENTS_REQUEST,
    SESSIONS_REQUEST,
    SET_ITEM_CHECK_REQUEST,
    SETTINGS_SECTION,
    STOP_CAUSES,
    STOP_REASONS,
    THINKING_LEVELS,
    TODO_STATUSES,
    TODOS_NOTIFICATION,
    TOOL_IMAGE_REQUEST,
    TOOL_OUTPUT_REQUEST,
    UNDO_REVERT_COMMAND,
    ChangeKind,
    FileSide,
    PlanAction,
    PlanChange,
    RunMode,
    StopCause,
    StopReason,
    ThinkingLevel,
    TodoStatus,
)

if TYPE_CHECKING:
    from . import contract

__all__ = [
    "ALWAYS_ALLOW_HOSTS_CAPABILITY",
    "APPROVALS_CAPABILITY",
    "APPROVAL_DECISIONS",
    "APPROVAL_REQUEST",
    "APPROVAL_STATUSES",
    "APPROVE_PLAN_REQUEST",
    "BACKGROUND_OUTPUT_REQUEST",
    "BACKGROUND_REQUEST",
    "BACKGROUND_STATES",
    "BACKGROUND_STOP_REQUEST",
    "CANCEL_COMMAND",
    "CHANGES_NOTIFICATION",
    "CHANGES_REQUEST",
    "CHANGE_KINDS",
    "CODE_INTEL_CAPABILITY",
    "CODE_INTEL_REQUEST",
    "COMMANDS",
    "COMMANDS_REQUEST",
    "CONTEXT_METER_NOTIFICATION",
    "DIAGNOSTICS_CAPABILITY",
    "DIAGNOSTICS_REQUEST",
    "EVENT_APPROVAL",
    "EVENT_BACKGROUND",
    "EVENT_BACKGROUND_OUTPUT",
    "EVENT_ERROR",
    "EVENT_HOOK",
    "EVENT_KINDS",
    "EVENT_NOTICE",
    "EVENT_NOTIFICATION",
    "EVENT_PREPARING",
    "EVENT_REMINDER",
    "EVENT_RETRY",
    "EVENT_REVERT",
    "EVENT_RUN_END",
    "EVENT_RUN_START",
    "EVENT_SUBAGENT",
    "EVENT_TEXT",
    "EVENT_THINKING",
    "EVENT_TOOL_CALL",
    "EVENT_TOOL_RESULT",
    "FILE_SIDES",
    "FILE_VERSION_REQUEST",
    "GET_TODOS_COMMAND",
    "HISTORY_IMAGE_REQUEST",
    "HISTORY_REQUEST",
    "INVALID_PARAMS",
    "MCP_NEXT_STEPS",
    "MCP_RESTART_REQUEST",
    "MCP_SERVERS_NOTIFICATION",
    "MCP_SET_ENABLED_REQUEST",
    "MCP_STATES",
    "MCP_TRUST_REQUEST",
    "MODELS_REQUEST",
    "NEW_SESSION_COMMAND",
    "PLAN_ACTIONS",
    "PLAN_CHANGES",
    "PROTOCOL_VERSION",
    "PROTOCOL_VERSION_CAPABILITY",
    "REQUEST_FAILED",
    "REVERT_COMMAND",
    "REVERT_DRY_RUN_CAPABILITY",
    "REVERT_ONLY_CAPABILITY",
    "RUN_COMMAND",
    "RUN_MODES",
    "RUN_REQUEST",
    "RUN_START_DETAIL_FIELDS",
    "SANDBOX_CAPABILITY",
    "SANDBOX_NOTIFICATION",
    "SAVE_DOCUMENTS_CAPABILITY",
    "SAVE_DOCUMENTS_REQUEST",
    "SESSIONS_REQUEST",
    "SETTINGS_SECTION",
    "SET_ITEM_CHECK_REQUEST",
    "SEVERITY_NAMES",
    "STOP_CAUSES",
    "STOP_REASONS",
    "THINKING_LEVELS",
    "TODOS_NOTIFICATION",
    "TODO_STATUSES",
    "TOOL_DETAIL_FIELDS",
    "TOOL_IMAGE_REQUEST",
    "TOOL_OUTPUT_REQUEST",
    "UNDO_REVERT_COMMAND",
    "ApprovePlanParams",
    "ChangeKind",
    "ContextDiagnostic",
    "FileSide",
    "FileVersionParams",
    "ItemCheck",
    "ItemCheckParams",
    "ModelPick",
    "PlanAction",
    "PlanChange",
    "PlanComment",
    "PlanItem",
    "ProtocolError",
    "RevertParams",
    "RunContext",
    "RunMode",
    "RunRequest",
    "RunResult",
    "Selection",
    "SessionParams",
    "Span",
    "StopCause",
    "StopReason",
    "ThinkingLevel",
    "TodoItem",
    "TodoStatus",
    "UndoRevertParams",
    "Usage",
    "todos_payload",
]

# Fields of toolCall / toolResult events for front ends that show tool calls in detail
# (the ACP adapter: raw input, diffs, the whole output). The LSP wire and the recorded
# history leave them out (conversation/entries.py): they can be large.
# toolCall: input (the raw tool input).
# toolResult: fullOutput (what the model got, not cut), changes ([{path, oldText (null for
#   a new file), newText, line}]). The LSP's `changes` is the core's `changedFiles`
#   ([{path, change, additions, deletions}]: the files the call changed).
# toolResult: imageData (the base64 of the images the result carried, in the order of its
#   `images` records) for the history to keep (workspaceAgent/toolImage).
TOOL_DETAIL_FIELDS = frozenset({"input", "fullOutput", "changes", "imageData"})
# The core's runStart carries the prompt's images as base64 (`imageData`, in the order of
# `images`) for the history to keep (workspaceAgent/historyImage); a transcript gets only
# the records (`images`).
RUN_START_DETAIL_FIELDS = frozenset({"imageData"})


class ProtocolError(ValueError):
    """Params from the client that do not fit the contract; the message says why."""


@dataclass(frozen=True)
class ItemCheck:
    """The last check of a plan item's completion (a TaskCompleted hook, or its own)."""

    passed: bool
    first_line: str
    """Of what it said: stderr when it failed, else stdout ("" when it said nothing)."""
    output: str
    """stdout then stderr, bounded."""
    hook: str
    """Which check: the hook's short name, or "check" for the item's own."""
    duration_ms: int = 0

    def to_wire(self) -> contract.ItemCheck:
        return {
            "passed": self.passed,
            "firstLine": self.first_line,
            "output": self.output,
            "hook": self.hook,
            "durationMs": self.duration_ms,
        }

    @classmethod
    def from_wire(cls, raw: Any) -> ItemCheck | None:
        """A saved check (None: not one)."""
        if not isinstance(raw, dict) or not isinstance(raw.get("passed"), bool):
            return None
        return cls(
            raw["passed"],
            str(raw.get("firstLine", "")),
            str(raw.get("output", "")),
            str(raw.get("hook", "")),
            int(raw.get("durationMs", 0) or 0),
        )

    def line(self) -> str:
        """How it reads under the item: "check passed", "check failed: <first line>"."""
        if self.passed:
            return "check passed"
        return f"check failed: {self.first_line}" if self.first_line else "check failed"


@dataclass(frozen=True)
class TodoItem:
    """One step of the agent's plan."""

    id: str
    """Stable id chosen by the model (shown as the row's description in the editor)."""
    text: str
    """What the step is about; never empty."""
    status: TodoStatus
    """pending | in_progress | completed."""
    check: ItemCheck | None = None
    """The last check of its completion (hooks/); None until one ran."""
    check_command: str | None = None
    """Its own check, added by the user (workspaceAgent/setItemCheck)."""

    def to_wire(self) -> contract.TodoItem:
        wire: contract.TodoItem = {"id": self.id, "text": self.text, "status": self.status}
        if self.check is not None:
            wire["check"] = self.check.to_wire()
        if self.check_command:
            wire["checkCommand"] = self.check_command
        return wire

    @classmethod
    def from_wire(cls, raw: dict[str, Any]) -> TodoItem:
        """A saved item (agent/store.py): `to_wire`'s fields."""
        command = raw.get("checkCommand")
        return cls(
            str(raw["id"]),
            str(raw["text"]),
            raw["status"],
            ItemCheck.from_wire(raw.get("check")),
            command if isinstance(command, str) and command.strip() else None,
        )


@dataclass
class Usage:
    """Tokens billed for a run or a session, summed over model calls. Input is split the
    way the API bills it: uncached input, prompt-cache writes and prompt-cache reads."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    web_searches: int = 0
    """Searches the web search server tool made (billed per search, not per token)."""

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
        self.web_searches += other.web_searches

    def to_wire(self) -> contract.Usage:
        wire: contract.Usage = {
            "inputTokens": self.input_tokens,
            "outputTokens": self.output_tokens,
            "cacheWriteTokens": self.cache_write_tokens,
            "cacheReadTokens": self.cache_read_tokens,
        }
        if self.web_searches:
            wire["webSearches"] = self.web_searches
        return wire

    @classmethod
    def from_wire(cls, wire: dict[str, Any]) -> Usage:
        return cls(
            int(wire.get("inputTokens", 0)),
            int(wire.get("outputTokens", 0)),
            int(wire.get("cacheWriteTokens", 0)),
            int(wire.get("cacheReadTokens", 0)),
            int(wire.get("webSearches", 0)),
        )


@dataclass(frozen=True)
class ModelPick:
    """A model and a thinking level picked for a session (a status-bar picker, ACP's config
    options, the CLI's flags): None keeps the setting's."""

    model: str | None = None
    thinking: ThinkingLevel | None = None

    @classmethod
    def from_wire(cls, obj: dict[str, Any]) -> ModelPick:
        model, thinking = obj.get("model"), obj.get("thinking")
        if model is not None and (not isinstance(model, str) or not model.strip()):
            raise ProtocolError("'model' must be a model id (a non-empty string) or absent")
        if thinking is not None and thinking not in THINKING_LEVELS:
            raise ProtocolError(f"'thinking' must be one of {' | '.join(THINKING_LEVELS)}")
        return cls(model.strip() if model else None, thinking)


@dataclass(frozen=True)
class RunRequest:
    """A run as the core is asked for it, by any front end: the LSP's workspaceAgent/run
    params (the wire's `contract.RunParams`, also the argument of the workspaceAgent.run
    command) parsed, or what the ACP agent and the CLI build, with the fields only ACP
    has (`linked`, `embedded`)."""

    prompt: str
    session_id: str | None = None
    context: RunContext | None = None
    """What the user has in the editor (file, selection, problems), put ahead of the prompt."""
    mode: RunMode = "act"
    """`plan`: look, do not touch, end with a plan (agent/plan_mode.py)."""
    pick: ModelPick = field(default_factory=lambda: ModelPick())
    """The model and thinking level picked for the session, in place of the settings'."""
    images: tuple[PromptImage, ...] = ()
    """Images for the model with the prompt; their bytes are checked when the run is
    prepared (agent/prompt_parts.py), where a refusal can say which and why."""
    linked: tuple[str, ...] = ()
    """Paths the prompt links to besides its @-mentions (ACP `resource_link`), resolved
    as mentions are; not on the LSP wire."""
    embedded: tuple[tuple[str, str], ...] = ()
    """Texts the client embedded (ACP `resource`): (where from, text); not on the wire."""

    @classmethod
    def from_wire(cls, raw: Any) -> RunRequest:
        obj = _require_object(raw, "workspaceAgent/run params")
        prompt = obj.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            raise ProtocolError("'prompt' must be a non-empty string")
        mode = obj.get("mode", "act")
        if mode not in RUN_MODES:
            raise ProtocolError(f"'mode' must be one of {' | '.join(RUN_MODES)}")
        return cls(
            prompt=prompt,
            session_id=_optional_session_id(obj),
            context=RunContext.from_wire(obj.get("context")),
            mode=mode,
            images=PromptImage.list_from_wire(obj.get("images")),
            pick=ModelPick.from_wire(obj),
        )

    def to_wire(self) -> contract.RunParams:
        wire: contract.RunParams = {"prompt": self.prompt}
        if self.session_id is not None:
            wire["sessionId"] = self.session_id
        if self.context is not None:
            wire["context"] = self.context.to_wire()
        if self.mode != "act":
            wire["mode"] = self.mode
        if self.images:
            wire["images"] = [{"data": i.data, "mediaType": i.media_type} for i in self.images]
        if self.pick.model is not None:
            wire["model"] = self.pick.model
        if self.pick.thinking is not None:
            wire["thinking"] = self.pick.thinking
        return wire


@dataclass(frozen=True)
class PromptImage:
    """An image given with a prompt: base64 `data` and the `media_type` the client says."""

    data: str
    media_type: str

    @classmethod
    def list_from_wire(cls, raw: Any) -> tuple[PromptImage, ...]:
        if raw is None:
            return ()
        if not isinstance(raw, list):
            raise ProtocolError("'images' must be a list of {data, mediaType}")
        found = []
        for index, item in enumerate(raw):
            if not isinstance(item, dict) or not all(
                isinstance(item.get(key), str) for key in ("data", "mediaType")
            ):
                raise ProtocolError(f"'images[{index}]' must be {{data, mediaType}} (strings)")
            found.append(cls(item["data"], item["mediaType"]))
        return tuple(found)


SEVERITY_NAMES = {1: "error", 2: "warning", 3: "information", 4: "hint"}
"""LSP DiagnosticSeverity numbers and how the context block names them."""


@dataclass(frozen=True)
class Span:
    """An LSP range: zero-based lines, characters in the agreed position encoding."""

    start_line: int
    start_character: int
    end_line: int
    end_character: int

    @property
    def empty(self) -> bool:
        return (self.start_line, self.start_character) == (self.end_line, self.end_character)

    @classmethod
    def from_wire(cls, raw: Any, what: str) -> Span:
        if not isinstance(raw, dict):
            raise ProtocolError(f"'{what}' must be an LSP range {{start, end}}")
        start = _position(raw.get("start"), f"{what}.start")
        end = _position(raw.get("end"), f"{what}.end")
        if end < start:
            raise ProtocolError(f"'{what}' ends before it starts")
        return cls(*start, *end)

    def to_wire(self) -> contract.Range:
        return {
            "start": {"line": self.start_line, "character": self.start_character},
            "end": {"line": self.end_line, "character": self.end_character},
        }


@dataclass(frozen=True)
class Selection:
    """Text the user selected: where it is and what it says."""

    path: str
    range: Span
    text: str

    @classmethod
    def from_wire(cls, raw: Any) -> Selection:
        if not isinstance(raw, dict):
            raise ProtocolError("'context.selection' must be an object {path, range, text}")
        text = raw.get("text")
        if not isinstance(text, str):
            raise ProtocolError("'context.selection.text' must be a string")
        return cls(
            path=_context_path(raw.get("path"), "context.selection.path"),
            range=Span.from_wire(raw.get("range"), "context.selection.range"),
            text=text,
        )

    def to_wire(self) -> contract.Selection:
        return {"path": self.path, "range": self.range.to_wire(), "text": self.text}


@dataclass(frozen=True)
class ContextDiagnostic:
    """A problem the editor shows (an LSP Diagnostic, located by a workspace path)."""

    path: str
    range: Span
    message: str
    severity: contract.Severity | None = None
    """1 error, 2 warning, 3 information, 4 hint; None: the reporter did not say."""
    source: str | None = None
    code: str | int | None = None

    @classmethod
    def from_wire(cls, raw: Any, what: str) -> ContextDiagnostic:
        if not isinstance(raw, dict):
            raise ProtocolError(f"'{what}' must be an object {{path, range, severity, message}}")
        message = raw.get("message")
        if not isinstance(message, str) or not message.strip():
            raise ProtocolError(f"'{what}.message' must be a non-empty string")
        severity = raw.get("severity")
        if severity is not None and (type(severity) is not int or severity not in SEVERITY_NAMES):
            raise ProtocolError(f"'{what}.severity' must be 1 (error) to 4 (hint)")
        source = raw.get("source")
        if source is not None and not isinstance(source, str):
            raise ProtocolError(f"'{what}.source' must be a string")
        code = raw.get("code")
        if code is not None and (isinstance(code, bool) or not isinstance(code, (str, int))):
            raise ProtocolError(f"'{what}.code' must be a string or an integer")
        return cls(
            path=_context_path(raw.get("path"), f"{what}.path"),
            range=Span.from_wire(raw.get("range"), f"{what}.range"),
            message=message,
            severity=cast("contract.Severity | None", severity),  # checked: 1 to 4
            source=source or None,
            code=code,
        )

    def to_wire(self) -> contract.ContextDiagnostic:
        wire: contract.ContextDiagnostic = {
            "path": self.path,
            "range": self.range.to_wire(),
            "message": self.message,
        }
        if self.severity is not None:
            wire["severity"] = self.severity
        if self.source is not None:
            wire["source"] = self.source
        if self.code is not None:
            wire["code"] = self.code
        return wire


@dataclass(frozen=True)
class RunContext:
    """`context` of a run: what the editor knows as the user asks. Paths are relative to
    the workspace root (with "/"), ranges are LSP ranges."""

    active_file: str | None = None
    selection: Selection | None = None
    diagnostics: tuple[ContextDiagnostic, ...] = ()

    @classmethod
    def from_wire(cls, raw: Any) -> RunContext | None:
        """None for an absent or empty context."""
        if raw is None:
            return None
        if not isinstance(raw, dict):
            raise ProtocolError(
                "'context' must be an object {activeFile?, selection?, diagnostics?}"
            )
        active = raw.get("activeFile")
        selection = raw.get("selection")
        diagnostics = raw.get("diagnostics")
        if diagnostics is not None and not isinstance(diagnostics, list):
            raise ProtocolError("'context.diagnostics' must be a list")
        context = cls(
            active_file=None if active is None else _context_path(active, "context.activeFile"),
            selection=None if selection is None else Selection.from_wire(selection),
            diagnostics=tuple(
                ContextDiagnostic.from_wire(item, f"context.diagnostics[{index}]")
                for index, item in enumerate(diagnostics or [])
            ),
        )
        return context if context != cls() else None

    def to_wire(self) -> contract.RunContext:
        wire: contract.RunContext = {}
        if self.active_file is not None:
            wire["activeFile"] = self.active_file
        if self.selection is not None:
            wire["selection"] = self.selection.to_wire()
        if self.diagnostics:
            wire["diagnostics"] = [item.to_wire() for item in self.diagnostics]
        return wire


def _position(raw: Any, what: str) -> tuple[int, int]:
    if isinstance(raw, dict):
        line, character = raw.get("line"), raw.get("character")
        if type(line) is int and type(character) is int and line >= 0 and character >= 0:
            return line, character
    raise ProtocolError(f"'{what}' must be an LSP position {{line, character}} (numbers from 0)")


def _context_path(raw: Any, what: str) -> str:
    if not isinstance(raw, str) or not raw.strip():
        raise ProtocolError(f"'{what}' must be a non-empty path relative to the workspace root")
    path = raw.strip()
    if PurePath(path).is_absolute():
        raise ProtocolError(f"'{what}' must be relative to the workspace root, not {raw!r}")
    return path


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


@dataclass(frozen=True)
class CancelParams:
    """workspaceAgent.cancel's argument: the session, and why (`user` unless the client
    says it stops the server: `reload`, `restart`), for the run's end."""

    session_id: str
    cause: StopCause = "user"

    @classmethod
    def from_wire(cls, raw: Any, what: str) -> CancelParams:
        session = SessionParams.from_wire(raw, what)
        cause = _require_object(raw, what).get("cause", "user")
        if cause not in STOP_CAUSES:
            raise ProtocolError(f"'cause' must be one of {' | '.join(STOP_CAUSES)}")
        return cls(session.session_id, cast("StopCause", cause))


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
    cost: contract.CostEstimate | None = None
    """The run's estimated cost, `{usd, model}` (agent/pricing.py); None: no price known."""
    plan_diff: contract.PlanDiff | None = None
    """A revised plan against the one it revises (stop reason planReady after `revise`)."""

    def to_wire(self) -> contract.RunResult:
        wire: contract.RunResult = {
            "sessionId": self.session_id,
            "stopReason": self.stop_reason,
            "text": self.text,
            "todos": [item.to_wire() for item in self.todos],
            "usage": self.usage.to_wire(),
            "cost": self.cost,
        }
        if self.error is not None:
            wire["error"] = self.error
        if self.plan_diff is not None:
            wire["planDiff"] = self.plan_diff
        return wire


@dataclass(frozen=True)
class PlanItem:
    """One item of a plan as the user left it (workspaceAgent/approvePlan)."""

    id: str
    text: str
    edited: bool = False
    """The user reworded or added it."""

    def to_wire(self) -> contract.PlanItem:
        wire: contract.PlanItem = {"id": self.id, "text": self.text}
        if self.edited:
            wire["edited"] = True
        return wire


@dataclass(frozen=True)
class PlanComment:
    """The user's comment on one item of the plan."""

    todo_id: str
    text: str


@dataclass(frozen=True)
class ApprovePlanParams:
    """Params of workspaceAgent/approvePlan. An empty `items` parses (the core refuses it
    with a message saying what to do): only a malformed one is a ProtocolError."""

    session_id: str
    items: tuple[PlanItem, ...]
    comments: tuple[PlanComment, ...]
    action: PlanAction
    pick: ModelPick = field(default_factory=lambda: ModelPick())
    """As RunRequest's pick: the run of the plan uses it."""

    @classmethod
    def from_wire(cls, raw: Any) -> ApprovePlanParams:
        what = APPROVE_PLAN_REQUEST
        obj = _require_object(raw, f"{what} params")
        session_id = SessionParams.from_wire(obj, what).session_id
        action = obj.get("action")
        if action not in PLAN_ACTIONS:
            raise ProtocolError(f"'action' must be one of {' | '.join(PLAN_ACTIONS)}")
        raw_items, raw_comments = obj.get("items"), obj.get("comments", [])
        if not isinstance(raw_items, list):
            raise ProtocolError("'items' must be a list of {id, text, edited?}")
        if not isinstance(raw_comments, list):
            raise ProtocolError("'comments' must be a list of {todoId, text}")
        items = tuple(_plan_item(item, n) for n, item in enumerate(raw_items))
        ids = [item.id for item in items]
        twice = next((i for i in ids if ids.count(i) > 1), None)
        if twice is not None:
            raise ProtocolError(f"two items of 'items' have the id {twice!r}: give each its own")
        comments = tuple(_plan_comment(c, n, ids) for n, c in enumerate(raw_comments))
        return cls(session_id, items, comments, action, ModelPick.from_wire(obj))


def _plan_item(raw: Any, index: int) -> PlanItem:
    where = f"'items[{index}]'"
    if not isinstance(raw, dict):
        raise ProtocolError(f"{where} must be an object {{id, text, edited?}}")
    item_id, text, edited = raw.get("id"), raw.get("text"), raw.get("edited", False)
    if not isinstance(item_id, str) or not item_id.strip():
        raise ProtocolError(f"{where}.id must be a non-empty string")
    if not isinstance(text, str) or not text.strip():
        raise ProtocolError(f"{where}.text must not be empty (delete the item instead)")
    if not isinstance(edited, bool):
        raise ProtocolError(f"{where}.edited must be true or false")
    return PlanItem(" ".join(item_id.split()), " ".join(text.split()), edited)


def _plan_comment(raw: Any, index: int, ids: list[str]) -> PlanComment:
    where = f"'comments[{index}]'"
    if not isinstance(raw, dict):
        raise ProtocolError(f"{where} must be an object {{todoId, text}}")
    todo_id, text = raw.get("todoId"), raw.get("text")
    if not isinstance(text, str) or not text.strip():
        raise ProtocolError(f"{where}.text must not be empty")
    if not isinstance(todo_id, str) or " ".join(todo_id.split()) not in ids:
        raise ProtocolError(
            f"{where}.todoId must be the id of an item of 'items' (a comment on a deleted "
            "item goes with it)"
        )
    return PlanComment(" ".join(todo_id.split()), text.strip())


@dataclass(frozen=True)
class FileVersionParams:
    """Params of workspaceAgent/fileVersion: one side of one file under one plan item,
    named by its `key` (one occurrence) or its `todo_id` (the latest occurrence)."""

    session_id: str
    todo_id: str | None
    """None: the changes made before any plan item was in progress."""
    path: str
    """The name (`pathBytes` when given, else `path`: maybe a readable form, names.py)."""
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
        path_bytes = obj.get("pathBytes")
        if path_bytes is not None:
            if not isinstance(path_bytes, str):
                raise ProtocolError("'pathBytes' must be a string (the name's bytes, base64)")
            try:
                path = names.decoded(path_bytes)
            except names.BadName as exc:
                raise ProtocolError(str(exc)) from None
        side = obj.get("side")
        if side not in FILE_SIDES:
            raise ProtocolError(f"'side' must be one of {' | '.join(FILE_SIDES)}")
        key = _item_key(obj)
        todo_id = _todo_id(obj, required=key is None)
        return cls(session_id, todo_id, path, side, key, "todoId" in obj)


@dataclass(frozen=True)
class BackgroundOutputParams:
    """Params of workspaceAgent/backgroundOutput: one background command's output from
    `offset` on."""

    session_id: str
    command_id: str
    offset: int = 0

    @classmethod
    def from_wire(cls, raw: Any) -> BackgroundOutputParams:
        what = "workspaceAgent/backgroundOutput"
        obj = _require_object(raw, f"{what} params")
        session_id = SessionParams.from_wire(obj, what).session_id
        offset = obj.get("offset", 0)
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            raise ProtocolError("'offset' must be a whole number of at least 0")
        return cls(session_id, _background_id(obj, required=True) or "", offset)


@dataclass(frozen=True)
class BackgroundStopParams:
    """Params of workspaceAgent/backgroundStop: one command, or (`command_id` None) every
    running one of the session."""

    session_id: str
    command_id: str | None = None

    @classmethod
    def from_wire(cls, raw: Any) -> BackgroundStopParams:
        what = "workspaceAgent/backgroundStop"
        obj = _require_object(raw, f"{what} params")
        session_id = SessionParams.from_wire(obj, what).session_id
        return cls(session_id, _background_id(obj, required=False))


def _background_id(obj: dict[str, Any], required: bool) -> str | None:
    command_id = obj.get("id")
    if command_id is None and not required:
        return None
    if not isinstance(command_id, str) or not command_id:
        raise ProtocolError("'id' must be a background command's id (`b1`), a non-empty string")
    return command_id


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
    only: bool = False
    """Take out that item's changes alone, keeping later ones (a three-way merge)."""

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
        only = _flag(obj, "only")
        if only and last_run:
            raise ProtocolError(f"{what} with 'only' needs a plan item ('key' or 'todoId')")
        return cls(
            session_id,
            _todo_id(obj, required=False),
            last_run,
            _flag(obj, "force"),
            key,
            _flag(obj, "dryRun"),
            "todoId" in obj,
            only,
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


@dataclass(frozen=True)
class McpServerParams:
    """Params of workspaceAgent/mcpRestart, mcpTrust and mcpSetEnabled."""

    name: str
    fingerprint: str | None = None
    enabled: bool | None = None

    @classmethod
    def from_wire(cls, raw: Any, method: str) -> McpServerParams:
        obj = _require_object(raw, f"{method} params")
        name = obj.get("name")
        if not isinstance(name, str) or not name:
            raise ProtocolError(f"{method} needs 'name' (an MCP server's name)")
        fingerprint = obj.get("fingerprint")
        if method == MCP_TRUST_REQUEST and (not isinstance(fingerprint, str) or not fingerprint):
            raise ProtocolError(
                f"{method} needs 'fingerprint' (the server's, from workspaceAgent/mcpServers)"
            )
        enabled = obj.get("enabled")
        if method == MCP_SET_ENABLED_REQUEST and not isinstance(enabled, bool):
            raise ProtocolError(f"{method} needs 'enabled': true or false")
        return cls(name, fingerprint if isinstance(fingerprint, str) else None, enabled)


@dataclass(frozen=True)
class ItemCheckParams:
    """Params of workspaceAgent/setItemCheck: one plan item's own check."""

    session_id: str
    todo_id: str
    command: str | None
    """None (or blank on the wire): the check is taken away."""

    @classmethod
    def from_wire(cls, raw: Any, method: str) -> ItemCheckParams:
        obj = _require_object(raw, f"{method} params")
        session_id, todo_id = obj.get("sessionId"), obj.get("todoId")
        if not isinstance(session_id, str) or not session_id:
            raise ProtocolError(f"{method} needs 'sessionId' (a session's id)")
        if not isinstance(todo_id, str) or not todo_id:
            raise ProtocolError(f"{method} needs 'todoId' (the plan item's id)")
        command = obj.get("command")
        if command is not None and not isinstance(command, str):
            raise ProtocolError(f"{method}: 'command' must be a string or null")
        return cls(session_id, todo_id, command.strip() if command and command.strip() else None)


def todos_payload(session_id: str, items: list[TodoItem]) -> contract.TodosPayload:
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
