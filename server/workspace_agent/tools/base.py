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

from ..contract import ToolKind
from ..guard.approvals import Approvals
from ..shared.documents import DiskOnly, Documents
from ..shared.errors import ToolError
from .paths import safe_path

if TYPE_CHECKING:
    from .. import contract
    from ..config import AgentSettings
    from ..shared.observers import RunObserver
    from ..shared.todo import TodoList

__all__ = [
    "FileChange",
    "Location",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolOutput",
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
        return {"path": str(self.path), "line": self.line}


@dataclass(frozen=True)
class FileChange:
    """What a tool did to a text file, for front ends that show it as a diff. The model
    never sees it; it gets the tool's text."""

    path: Path
    """Absolute, inside the workspace."""
    old_text: str | None
    """The text that was replaced (the whole old file for a rewrite); None for a new file."""
    new_text: str
    """The text that replaced it, with "\\n" line breaks (as the model wrote it)."""
    line: int = 1
    """1-based line of the file where new_text starts."""

    def to_wire(self) -> contract.EditText:
        return {
            "path": str(self.path),
            "oldText": self.old_text,
            "newText": self.new_text,
            "line": self.line,
        }


@dataclass(frozen=True)
class ToolOutput:
    """A handler's answer with what it changed: `text` goes to the model, `changes` only
    to front ends, the rest to the observers of the call (shared/observers.py). A handler
    that changes nothing and cannot half-fail may return a plain str instead."""

    text: str
    changes: tuple[FileChange, ...] = ()
    is_error: bool = False
    """The call failed, yet did something (a command that timed out and was killed)."""
    exit_code: int | None = None
    """bash: the command's exit status; None when it did not finish by itself."""
    images: tuple[dict[str, Any], ...] = ()
    """Image blocks (Messages API shape) that go to the model after the text (MCP)."""
    sandboxed: bool | None = None
    """bash: whether the command ran in the sandbox (sandbox/); None for other tools."""
    network: tuple[dict[str, Any], ...] = ()
    """bash in the sandbox: the hosts it reached for, `{host, allowed}` each."""
    blocked: tuple[dict[str, str], ...] = ()
    """bash in the sandbox, when it failed: what the sandbox blocked, `{kind, target?,
    setting?}` each (sandbox/blocked.py)."""


def output_text(answer: str | ToolOutput) -> str:
    """What the model gets from a handler's answer."""
    return answer.text if isinstance(answer, ToolOutput) else answer


Handler = Callable[[ToolContext, dict[str, Any]], Awaitable["str | ToolOutput"]]
Targets = Callable[[dict[str, Any]], list[tuple[str, "int | None"]]]


@dataclass(frozen=True)
class Tool:
    """A tool the model can call: the schema it sees and the code that runs."""

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

    def schema(self) -> dict[str, Any]:
        """The tool as the Messages API expects it in `tools`."""
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema,
        }

    def summary(self, tool_input: Any) -> str:
        if self.summarize is not None and isinstance(tool_input, dict):
            try:
                return _one_line(self.summarize(tool_input))
            except Exception:  # a summary must never break a run
                pass
        return _one_line(json.dumps(tool_input, ensure_ascii=False, default=str))

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
