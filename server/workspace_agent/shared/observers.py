"""Observers of workspace-changing tool calls: one small mechanism for features that must
see every call that may change files (checkpoints, the editor's diagnostics, ...), so none
of them is a special case inside the agent loop.

The session manager creates the observers at the start of each run (from the factories it
was given) and puts them into the ToolContext. For every call of a tool that may change
files (its `Tool.reach` is not "nothing": write_file and edit_file reach the file they
name, bash and most MCP tools the workspace; not a tool marked `read_only`), the loop
awaits `before_tool` of each observer, runs the tool, then awaits `after_tool` of each
observer in order with a `CallReport`: the call (with the tool's metadata, so no observer
names a tool), its result (`ToolResult`, the exit status as data), the files it changed
(filled in by the first observer that knows: checkpoints) and notes for the model. An
observer that fails is logged and skipped; it never fails the tool or the run. An
observer with `sees_every_tool = True` is shown the calls of every tool, read-only ones
included (nested instructions/).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..protocol import ChangeKind, StopReason
from .tool_result import Reach, ToolResult

if TYPE_CHECKING:
    from .. import contract
    from ..config import AgentSettings
    from .documents import Documents
    from .events import SessionEvents
    from .session import Session

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ToolCall:
    """A workspace-changing tool call about to run (or that just ran)."""

    tool_use_id: str
    name: str
    input: dict[str, Any]
    todo_id: str | None
    """The plan item in progress when the call was made (None: no item was)."""
    todo_text: str | None = None
    """That item's text then (plan item ids are reused by later plans; the text tells
    the items apart)."""
    paths: tuple[Path, ...] = ()
    """The workspace paths the call is about (Tool.locations), absolute."""
    reach: Reach = "workspace"
    """What the call may change (Tool.reach): "named_file" is only the file its `path`
    input names, so that file alone is looked at; "workspace" anything."""
    whole_file_changes: bool = False
    """Its FileChanges carry whole files (Tool.whole_file_changes)."""
    command: str | None = None
    """The shell command it runs (Tool.command_of), None when it runs none."""


@dataclass(frozen=True)
class ChangedFile:
    """One file a call changed; `path` is relative to the workspace root, with "/"."""

    path: str
    change: ChangeKind
    additions: int = 0
    """Lines added (0 for binary files)."""
    deletions: int = 0

    def to_wire(self) -> contract.ChangedFile:
        return {
            "path": self.path,
            "change": self.change,
            "additions": self.additions,
            "deletions": self.deletions,
        }


@dataclass
class CallReport:
    """What `after_tool` observers see and add to, in order."""

    call: ToolCall
    outcome: ToolResult
    changes: list[ChangedFile] | None = None
    """The files the call changed, set by the checkpoint observer (None: not known, e.g.
    checkpoints are off). Later observers (diagnostics) read it."""
    notes: list[str] = field(default_factory=list)
    """Lines appended to the tool result the model gets (and to the transcript)."""


class RunObserver(Protocol):
    """Sees one run of one session. Every method may be a no-op."""

    async def start_run(self) -> None:
        """The run begins, before the first model call."""

    async def before_tool(self, call: ToolCall) -> None:
        """A workspace-changing tool is about to run."""

    async def after_tool(self, report: CallReport) -> None:
        """It ran (or failed, or was cancelled): look, and add to the report."""

    async def end_run(self, stop: StopReason) -> None:
        """The run is over (also after a cancel or an error)."""

    # Optional: `async def subagent_stop(self, report: SubagentReport) -> None`, called
    # once each subagent of the run has ended (hooks' SubagentStop): notify_subagent_stop.


@dataclass(frozen=True)
class SubagentReport:
    """A subagent that ended (agent/subagents.py): what `subagent_stop` observers see."""

    tool_use_id: str
    """The `task` call that ran it."""
    agent: str
    description: str
    stop: StopReason
    text: str
    """Its final message."""


@dataclass(frozen=True)
class RunScope:
    """What an observer factory may use to build the observer of one run."""

    session: Session
    root: Path
    settings: AgentSettings
    events: SessionEvents
    documents: Documents
    prompt: str = ""
    """What the user asked for in this run."""


ObserverFactory = Callable[[RunScope], "RunObserver | None"]
"""Builds the observer of a run, or None when the feature is off for it."""


def observers_of(
    observers: tuple[RunObserver, ...], reach: Reach | None, read_only: bool = False
) -> tuple[RunObserver, ...]:
    """The observers a call of a tool of `reach` is shown to (None: an unknown tool). A
    `read_only` tool (Tool.read_only) changes nothing whatever it says, and its calls may
    overlap, which the change watchers (one call at a time) could not follow."""
    if reach is None:
        return ()
    if reach != "nothing" and not read_only:
        return observers
    return tuple(o for o in observers if getattr(o, "sees_every_tool", False))


async def notify_all(observers: tuple[RunObserver, ...], method: str, *args: Any) -> None:
    """Call `method` on every observer in order; a failing observer is logged, not fatal."""
    for observer in observers:
        try:
            await getattr(observer, method)(*args)
        except Exception:
            log.exception("observer %s.%s failed", type(observer).__name__, method)


async def notify_subagent_stop(observers: tuple[RunObserver, ...], report: SubagentReport) -> None:
    """Tell the observers that have `subagent_stop` that a subagent ended (not fatal)."""
    for observer in observers:
        hook = getattr(observer, "subagent_stop", None)
        if hook is None:
            continue
        try:
            await hook(report)
        except Exception:
            log.exception("observer %s.subagent_stop failed", type(observer).__name__)
