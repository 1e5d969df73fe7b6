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
included (nested instructions/, hooks/).

An observer may also have a say at the run's points (`RunGate`, each method optional and
looked up by name, so the loop names no feature): what the run opens with (context for the
model, or a refusal of the prompt), a call before it runs (refused, allowed without the
question, asked anyway, its input changed), the end of a call's work while its changes
are still being watched (`finish_tool`: what runs there counts as the call's), whether
the run may stop yet, a compaction about to happen, the agent waiting for the user, and
a subagent that ended (`subagent_stop`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from .. import names
from ..protocol import ChangeKind, StopReason
from .tool_result import Reach, ToolResult
from .verdicts import HostVerdict

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
    aliases: tuple[str, ...] = ()
    """The names other agents give its tool (Tool.aliases: Claude Code's `Bash`, `Edit`)."""


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
            **names.path_fields(self.path),  # type: ignore[typeddict-item]
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
    scan_workspace: bool = False
    """Something besides the tool ran in the call's change window (a PostToolUse hook):
    the change watchers look at the whole workspace, not only the file the call names."""


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


@dataclass
class SubagentReport:
    """A subagent that ended (agent/subagents.py): what `subagent_stop` observers see and
    add to."""

    tool_use_id: str
    """The `task` call that ran it."""
    agent: str
    description: str
    stop: StopReason
    text: str
    """Its final message."""
    notes: list[str] = field(default_factory=list)
    """Lines for the model, after the `task` call's result (a SubagentStop hook's block:
    the subagent has ended, so the main agent is told)."""


class BackgroundStep(Protocol):
    """A background command of the session as the change watchers see it: the step that
    started it, when it ran, and the files it was seen writing (tools/background.py).
    What it writes belongs to that step, whichever step is in progress meanwhile."""

    tool_use_id: str | None
    """The bash call that started it."""
    todo_id: str | None
    todo_text: str | None
    started_wall: float
    """time.time() when it started."""
    ended_wall: float | None
    """time.time() when it ended (None: it runs)."""
    claimed: set[str]
    """Workspace paths (relative, "/") its writes were found in: a later command's scan
    leaves them to it (checkpoints/observer.py adds to it)."""


def no_background() -> Sequence[BackgroundStep]:
    return ()


class RunQuestions(Protocol):
    """What an observer may ask the user through the run's approvals
    (guard/approvals.py `Approvals`, which the run's tools ask through too)."""

    @property
    def unattended(self) -> bool:
        """No person answers (`--yes`): nothing may be trusted on the user's behalf."""

    async def require(
        self,
        kind: str,
        action: str,
        must_ask_reason: str | None = None,
        *,
        details: Any = None,
        sandboxed: bool = False,
        tool: str | None = None,
    ) -> None:
        """Return when the user allows `action`; ToolError saying why not."""

    async def ask_host(
        self, host: str, command: str, call: tuple[str, str | None] | None = None
    ) -> HostVerdict:
        """May a sandboxed `command` reach `host`?"""


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
    questions: RunQuestions | None = None
    """The run's approvals, for an observer that must ask the user something."""
    background: Callable[[], Sequence[BackgroundStep]] = no_background
    """The session's background commands (running, and those that ended), oldest first."""


Permission = Literal["allow", "ask"]
"""An observer's word on a call's question: `allow` skips it (never the guard's must-ask,
a `deny` policy, the sandbox or safe_path), `ask` asks even where the kind is allowed."""


@dataclass(frozen=True)
class CallVerdict:
    """What observers said of a call before it runs (`RunGate.decide`)."""

    refused: str | None = None
    """The call does not run; the model gets this as the tool's error."""
    permission: Permission | None = None
    input: dict[str, Any] | None = None
    """The input the call runs with instead (checked against the tool's schema again)."""
    notes: tuple[str, ...] = ()
    """Lines for the model, after the call's result."""


@dataclass(frozen=True)
class RunOpening:
    """What observers said as the run opens, before the model is asked (`RunGate.open_run`)."""

    context: tuple[str, ...] = ()
    """Texts for the model, with the prompt."""
    refused: str | None = None
    """The prompt is refused: the run ends with this error, the prompt is not kept."""


class RunGate(Protocol):
    """The say an observer may have at the run's points; each method is optional (an
    observer has the ones it needs) and its failure is logged, never the run's."""

    async def open_run(self) -> RunOpening | None:
        """The prompt is in the conversation, the model not asked yet."""

    async def decide(self, call: ToolCall) -> CallVerdict | None:
        """A call whose input fits its tool, before it is shown to `before_tool`."""

    async def finish_tool(self, report: CallReport) -> None:
        """The call's handler returned and its changes are still being watched (between
        `before_tool` and `after_tool`): files changed now are the call's; notes may be
        added."""

    async def before_stop(self) -> str | None:
        """The model ended its turn without a tool call: an instruction that keeps the run
        going (the next user message), or None to let it stop."""

    async def before_compact(self, trigger: str) -> None:
        """The conversation is about to be compacted: `auto` (it came near the context
        window) or `manual` (/compact)."""

    def waiting(self, message: str) -> None:
        """The agent waits for the user (a question was asked); must not block."""

    def halted(self) -> str | None:
        """Why the run must end now (a hook said `continue: false`), or None; asked after
        each round of tool calls."""

    async def subagent_stop(self, report: SubagentReport) -> None:
        """A subagent of the run (a `task` call's) has ended, by itself or not, but for a
        cancel: once each, before its `task` call answers; notes may be added."""


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
    """Call `method` on every observer that has it, in order; a failing observer is
    logged, not fatal."""
    await answers_of(observers, method, *args)


async def answers_of(observers: tuple[RunObserver, ...], method: str, *args: Any) -> list[Any]:
    """Call `method` (a RunObserver's, or a RunGate's) on every observer that has it, in
    order: what they answered other than None. A failing observer is logged and skipped."""
    found = []
    for observer in observers:
        func = getattr(observer, method, None)
        if func is None:
            continue
        try:
            answer = await func(*args)
        except Exception:
            log.exception("observer %s.%s failed", type(observer).__name__, method)
            continue
        if answer is not None:
            found.append(answer)
    return found


def tell_all(observers: tuple[RunObserver, ...], method: str, *args: Any) -> None:
    """Call the plain (not async) `method` on every observer that has it."""
    for observer in observers:
        func = getattr(observer, method, None)
        if func is None:
            continue
        try:
            func(*args)
        except Exception:
            log.exception("observer %s.%s failed", type(observer).__name__, method)


async def verdict_on(observers: tuple[RunObserver, ...], call: ToolCall) -> CallVerdict:
    """The observers' verdicts on `call` as one: a refusal wins, then `ask` over `allow`;
    the last changed input; every note."""
    verdicts: list[CallVerdict] = await answers_of(observers, "decide", call)
    if not verdicts:
        return CallVerdict()
    refused = [v.refused for v in verdicts if v.refused]
    permissions = {v.permission for v in verdicts}
    inputs = [v.input for v in verdicts if v.input is not None]
    return CallVerdict(
        refused="\n".join(refused) if refused else None,
        permission="ask" if "ask" in permissions else "allow" if "allow" in permissions else None,
        input=inputs[-1] if inputs else None,
        notes=tuple(note for v in verdicts for note in v.notes),
    )


async def opening_of(observers: tuple[RunObserver, ...]) -> RunOpening:
    """The observers' openings as one: every context text; the refusals joined."""
    openings: list[RunOpening] = await answers_of(observers, "open_run")
    refused = [o.refused for o in openings if o.refused]
    return RunOpening(
        tuple(text for o in openings for text in o.context),
        "\n".join(refused) if refused else None,
    )


async def notify_subagent_stop(observers: tuple[RunObserver, ...], report: SubagentReport) -> None:
    """Tell the observers that have `subagent_stop` that a subagent ended (not fatal)."""
    await notify_all(observers, "subagent_stop", report)
