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

from .approvals import Approvals
from .documents import DiskOnly, Documents
from .errors import ToolError

if TYPE_CHECKING:
    from ..agent.observers import RunObserver
    from ..agent.todo import TodoList
    from ..config import AgentSettings

__all__ = ["Tool", "ToolContext", "ToolError", "ToolOutput"]


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
    """What watches the calls of tools that change the workspace (agent/observers.py)."""

    @property
    def secrets(self) -> tuple[str, ...]:
        """Values that must never reach the model, the transcript or a command."""
        return tuple(s for s in (self.settings.api_key,) if s)


class ToolOutput(str):
    """The text a handler returns, carrying facts for the observers of the call. It is a
    str, so whatever treats results as text keeps working; the model gets the text."""

    is_error: bool
    """The call failed, yet did something (a command that timed out and was killed)."""
    exit_code: int | None
    """bash: the command's exit status; None when it did not finish by itself."""

    def __new__(
        cls, text: str, *, is_error: bool = False, exit_code: int | None = None
    ) -> ToolOutput:
        self = super().__new__(cls, text)
        self.is_error = is_error
        self.exit_code = exit_code
        return self


Handler = Callable[[ToolContext, dict[str, Any]], Awaitable[str]]


@dataclass(frozen=True)
class Tool:
    """A tool the model can call: the schema it sees and the code that runs."""

    name: str
    description: str
    input_schema: dict[str, Any]
    handler: Handler
    summarize: Callable[[dict[str, Any]], str] | None = field(default=None, compare=False)
    """Turns an input into a one-line summary for the transcript; JSON when absent."""
    changes_workspace: bool = False
    """The tool may change files: its calls are shown to the run's observers."""

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
