"""What a tool is and how its call ended, as data every layer reads: the one result type
(`ToolResult`, from the handler through the observers to the toolResult event) and the
vocabulary of tool metadata (`Reach`) that replaces lists of tool names.

It lives in `shared/` because the observers (checkpoints, the editor's problems, ACP's
whole texts) see calls and results here without importing `tools/`. A command's exit
status travels in `ToolResult.exit_code`; nobody reads it back from the text the model
gets (the one exception, sessions saved with nothing but that text, is bash's own
`exit_status_in`, used by conversation/derive.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .. import names

if TYPE_CHECKING:
    from .. import contract

Reach = Literal["nothing", "named_file", "workspace"]
"""What the calls of a tool may change on disk (Tool.reach): "nothing" (read_file, todo,
an MCP tool that only reads); "named_file", the one file its `path` input names and no
other (write_file, edit_file: read before and after, no scan); "workspace", anything
(bash, the other MCP tools: the checkpoints scan the workspace after each call). Calls
that reach something are shown to the change watchers (shared/observers.py)."""


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
            "path": names.readable(str(self.path)),
            "oldText": self.old_text,
            "newText": self.new_text,
            "line": self.line,
        }


@dataclass(frozen=True)
class ToolResult:
    """How a call ended: `text` goes to the model, `changes` only to front ends, the rest
    to the observers of the call and the toolResult event. A handler returns one (or a
    plain str when it changes nothing and cannot half-fail); the loop makes the others
    (refused, cancelled, failed)."""

    text: str
    changes: tuple[FileChange, ...] = ()
    is_error: bool = False
    """The call failed (it may still have done something: a command killed at its timeout)."""
    exit_code: int | None = None
    """A command's exit status (128+N when signal N ended it); None when it did not finish
    by itself (timed out, cancelled) or the tool runs no command."""
    images: tuple[dict[str, Any], ...] = ()
    """Image blocks (Messages API shape) that go to the model after the text (MCP)."""
    sandboxed: bool | None = None
    """bash: whether the command ran in the sandbox (sandbox/); None for other tools."""
    network: tuple[dict[str, Any], ...] = ()
    """bash in the sandbox: the hosts it reached for, `{host, allowed}` each."""
    blocked: tuple[dict[str, str], ...] = ()
    """bash in the sandbox, when it failed: what the sandbox blocked, `{kind, target?,
    setting?}` each (sandbox/blocked.py)."""
    background: str | None = None
    """bash with `run_in_background`: the id of the command it started (tools/background.py)."""
    ran: bool = True
    """False when nothing was done: refused, declined, invalid input, or an error before
    the tool touched anything. Observers may then skip their work."""
    cancelled: bool = False

    @property
    def ok(self) -> bool:
        return not self.is_error

    def facts(self) -> dict[str, Any]:
        """The toolResult event's optional fields about a command: whether it ran in the
        sandbox, the hosts it reached for, what the sandbox blocked, the background
        command it started (absent when unknown)."""
        found: dict[str, Any] = {}
        if self.sandboxed is not None:
            found["sandboxed"] = self.sandboxed
        if self.network:
            found["network"] = list(self.network)
        if self.blocked:
            found["blocked"] = list(self.blocked)
        if self.background is not None:
            found["background"] = self.background
        return found


def as_result(answer: str | ToolResult) -> ToolResult:
    """A handler's answer as a ToolResult (a plain str is a success that changed nothing)."""
    return answer if isinstance(answer, ToolResult) else ToolResult(answer)
