"""What a tool is: its schema and its handler kept together, plus what handlers may use.

The agent loop knows tools only through this shape; adding a tool means adding one
`Tool` to the registry in `tools/__init__.py`.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import names
from ..contract import ToolKind
from ..guard.approvals import Approvals
from ..shared.documents import DiskOnly, Documents
from ..shared.errors import ToolError
from ..shared.tool_result import FileChange, Reach, ToolResult
from .paths import safe_path

if TYPE_CHECKING:
    from .. import contract
    from ..config import AgentSettings
    from ..shared.observers import RunObserver
    from ..shared.todo import TodoList
    from .background import BackgroundCommands

__all__ = [
    "FileChange",
    "Location",
    "Reach",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolResult",
    "first_line",
    "output_text",
]

SECRET_MIN_CHARS = 8
"""Shorter values are not hidden: a key of a character or two (a gateway's dummy, "x")
is no secret, and hiding it would cut words of every output (`new1.txt` into
`new1.t[redacted]t`)."""


@dataclass
class ToolContext:
    """Everything a handler may touch: the workspace, the settings, the session's plan,
    the editor's documents and the user's approval."""

    root: Path
    settings: AgentSettings
    todos: TodoList
    approvals: Approvals
    documents: Documents = field(default_factory=DiskOnly)
    observers: tuple[RunObserver, ...] = ()
    """What watches the calls of tools that change the workspace (shared/observers.py)."""
    session_id: str = ""
    """The session the run belongs to (state kept per session, such as the sandbox's /tmp)."""
    read_only: bool = False
    """Plan mode: the workspace must not change (bash keeps to it in a read-only sandbox)."""
    read_roots: tuple[Path, ...] = ()
    """Folders outside the workspace read_file may read (never write): the user's skills'
    folders, so a skill's other files can be read (tools/paths.py readable_path)."""
    step_plan: TodoList | None = None
    """The plan whose item in progress the calls are made under, when it is not `todos`:
    a subagent keeps a plan of its own, and its calls belong to its parent's step."""
    background: BackgroundCommands | None = None
    """The session manager's background commands (bash's `run_in_background`,
    bash_output, bash_stop); None where there are none (a tool used on its own)."""

    @property
    def steps(self) -> TodoList:
        """The plan the calls' step (their `todoId`, their checkpoints) is read from."""
        return self.step_plan if self.step_plan is not None else self.todos

    @property
    def secrets(self) -> tuple[str, ...]:
        """Values that must never reach the model, the transcript or a command."""
        headers = tuple(value for _, value in self.settings.custom_headers)
        values = (self.settings.api_key, self.settings.auth_token, *headers)
        return tuple(s for s in values if s and len(s) >= SECRET_MIN_CHARS)


@dataclass(frozen=True)
class Location:
    """A place in the workspace a tool call is about (follow-along views open it)."""

    path: Path
    """Absolute, inside the workspace."""
    line: int | None = None
    """1-based, when the call is about a particular line."""

    def to_wire(self) -> contract.ToolLocation:
        return {"path": names.readable(str(self.path)), "line": self.line}


def output_text(answer: str | ToolResult) -> str:
    """What the model gets from a handler's answer."""
    return answer.text if isinstance(answer, ToolResult) else answer


Handler = Callable[[ToolContext, dict[str, Any]], Awaitable["str | ToolResult"]]
Targets = Callable[[dict[str, Any]], list[tuple[str, "int | None"]]]


@dataclass(frozen=True)
class Tool:
    """A tool the model can call: the schema it sees, the code that runs, and what it is
    (its metadata: kind, reach, read-only, how its result reads). Everything that treats
    tools differently (the observers, the front ends, the loop's nag) reads the metadata,
    never the tool's name (tests/unit/tools/test_tool_metadata.py)."""

    name: str
    description: str
    input_schema: dict[str, Any]
    handler: Handler
    summarize: Callable[[dict[str, Any]], str] | None = field(default=None, compare=False)
    """Turns an input into a one-line summary for the transcript; JSON when absent."""
    kind: ToolKind = "other"
    targets: Targets | None = field(default=None, compare=False)
    """The workspace paths (and 1-based lines) an input is about, as the model gave them."""
    plan_safe: bool = False
    """Runs as is in plan mode: it changes nothing (read_file, todo, an MCP tool its server
    marks readOnlyHint) or keeps to `ToolContext.read_only` itself (bash). Plan mode
    refuses the others (agent/plan_mode.py)."""
    read_only: bool = False
    """Its calls change nothing, not even the plan (read_file, an MCP tool its server marks
    readOnlyHint): those of one answer may run side by side (agent/concurrency.py), and
    observers that watch for changes are not shown them (shared/observers.py)."""
    read_only_of: Callable[[dict[str, Any]], bool] | None = field(default=None, compare=False)
    """Whether a call with this input is read-only, for a tool whose calls differ (`task`:
    a subagent whose tools are all read-only); `read_only` when absent."""
    reach: Reach = "workspace"
    """What its calls may change on disk (shared/tool_result.py): "nothing", the
    "named_file" its `path` input names, or anything in the "workspace" (the default, so
    a tool that says nothing is watched like a command)."""
    whole_file_changes: bool = False
    """Its FileChanges carry the whole old and new text (write_file); otherwise the
    replaced snippet at its line (edit_file), which ACP widens to the whole file
    (acp/edit_texts.py)."""
    command_of: Callable[[dict[str, Any]], str] | None = field(default=None, compare=False)
    """The shell command a call runs (bash): checkpoints list it with its exit status."""
    result_gist: Callable[[str], str] | None = field(default=None, compare=False)
    """One line that says what a result was (the terminal); its first line when absent."""
    exit_status_in: Callable[[str], int | None] | None = field(default=None, compare=False)
    """Reads a command's exit status back from the text the model got. Only for sessions
    saved before histories were recorded, which hold nothing else (conversation/derive.py);
    live calls carry it as data (ToolResult.exit_code)."""
    aliases: tuple[str, ...] = ()
    """The names other agents give this tool (Claude Code's `Bash`, `Edit`, `MultiEdit`):
    hooks written for them match its calls, and are told the first (hooks/)."""

    def schema(self) -> dict[str, Any]:
        """The tool as the Messages API expects it in `tools`."""
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema,
        }

    def reads_only(self, tool_input: Any) -> bool:
        """Whether this call changes nothing (`read_only`, or `read_only_of` its input)."""
        if self.read_only:
            return True
        if self.read_only_of is None or not isinstance(tool_input, dict):
            return False
        try:
            return bool(self.read_only_of(tool_input))
        except Exception:  # a malformed input: the handler reports it
            return False

    def summary(self, tool_input: Any) -> str:
        if self.summarize is not None and isinstance(tool_input, dict):
            try:
                return _one_line(self.summarize(tool_input))
            except Exception:  # a summary must never break a run
                pass
        return _one_line(json.dumps(tool_input, ensure_ascii=False, default=str))

    def gist(self, output: str) -> str:
        """One line that says what a result was (`result_gist`, else `first_line`)."""
        if self.result_gist is not None:
            try:
                return self.result_gist(output)
            except Exception:  # a gist must never break what shows it
                pass
        return first_line(output)

    def command(self, tool_input: Any) -> str | None:
        """The shell command a call with this input runs (None: the tool runs none)."""
        if self.command_of is None or not isinstance(tool_input, dict):
            return None
        return str(self.command_of(tool_input))

    def locations(self, root: Path, tool_input: Any) -> list[Location]:
        """Where in the workspace a call with this input reads or writes; paths that are
        not usable (outside the workspace, malformed) are left out: the call itself says why."""
        if self.targets is None or not isinstance(tool_input, dict):
            return []
        found = []
        try:
            targets = self.targets(tool_input)
        except Exception:  # a malformed input: the handler reports it
            return []
        for raw, line in targets:
            try:
                found.append(Location(safe_path(root, raw), line))
            except ToolError:
                continue
        return found

    def validate(self, tool_input: Any) -> None:
        """Raise ToolError with a readable message when the input does not fit the schema."""
        if not isinstance(tool_input, dict):
            raise ToolError(
                f"invalid input for {self.name}: expected a JSON object, "
                f"got {type(tool_input).__name__}"
            )
        errors = sorted(self._validator.iter_errors(tool_input), key=lambda e: list(e.path))
        if errors:
            problems = "; ".join(_describe(error) for error in errors)
            raise ToolError(f"invalid input for {self.name}: {problems}")

    @cached_property
    def _validator(self) -> Any:
        from jsonschema import Draft202012Validator  # imported on first tool call only

        return Draft202012Validator(self.input_schema)


def first_line(output: str) -> str:
    """A result's first non-blank line, and how many more there are."""
    lines = [line for line in output.strip().splitlines() if line.strip()] or [""]
    more = f"  (+{len(lines) - 1} lines)" if len(lines) > 1 else ""
    return lines[0][:160] + more


def _describe(error: Any) -> str:
    where = ".".join(str(part) for part in error.absolute_path)
    rule, bound = error.validator, error.validator_value
    if rule == "maxItems":
        message = f"has {len(error.instance)} items, at most {bound} are allowed"
    elif rule == "minLength" and bound == 1:
        message = "must not be empty"
    elif rule == "additionalProperties":
        message = error.message.replace("Additional properties are not allowed", "unknown key")
    else:
        message = error.message
    message = _one_line(message, 300)
    return f"{where}: {message}" if where else message


def _one_line(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
