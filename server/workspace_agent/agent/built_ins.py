"""The built-in slash commands that are not a model run: /compact, /clear, /undo, /cost
(/plan is a run in plan mode, sessions.py). Each answers like a run that ends at once:
runStart, a notice with what was done, runEnd, and a result whose text says the same, so
every front end shows it where it shows a run. /compact runs the PreCompact hooks first
(trigger `manual`), their rows in that answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from .. import protocol as p
from ..protocol import RevertParams, RunResult, Usage
from ..shared.errors import CheckpointError
from ..shared.events import SessionEvents
from .compaction import compact_if_needed
from .context_meter import context_meter
from .errors import SessionError
from .pricing import estimate_cost
from .saved_prompts import Invocation

if TYPE_CHECKING:
    from ..checkpoints.requests import SessionCheckpoints
    from ..config import AgentSettings
    from ..shared.events import AgentListener
    from ..shared.session import Session


class BuiltInHost(Protocol):
    """What of the session manager (sessions.py) the built-in commands use."""

    @property
    def listener(self) -> AgentListener: ...

    def save(self, session: Session, events: SessionEvents, durable: bool = False) -> None: ...

    def new_session(self) -> Session: ...

    def settings_now(self) -> AgentSettings: ...

    def checkpoints(self, session_id: str) -> SessionCheckpoints: ...

    async def stop_background(self, session_id: str) -> list[str]: ...

    async def before_compact(self, session: Session, events: SessionEvents) -> None: ...


async def run_built_in(manager: BuiltInHost, session: Session, command: Invocation) -> RunResult:
    """Do `command` in `session`; SessionError (saying what to do) when it cannot be done."""
    if command.arguments:
        raise SessionError(f"/{command.name} takes no arguments (got {command.arguments!r})")
    events = SessionEvents(manager.listener, session.id)
    answer_session = session
    started = False
    if command.name == "compact":
        # Started first: the PreCompact hooks' rows belong to this answer.
        events.emit(p.EVENT_RUN_START, prompt=command.text)
        started = True
        if session.messages:
            await manager.before_compact(session, events)
        message = _compact(manager, session)
        manager.save(session, events, durable=True)
    elif command.name == "clear":
        stopped = await manager.stop_background(session.id)
        answer_session = manager.new_session()
        answer_session.restarted = "clear"
        message = (
            f"Started a new session {answer_session.id}; the previous one ({session.id}) stays "
            "in the history."
        )
        if stopped:
            message += f" Its background commands were stopped: {', '.join(stopped)}."
    elif command.name == "undo":
        message = await _undo(manager, session)
    else:
        message = _cost(manager, session)
    events = SessionEvents(manager.listener, answer_session.id)
    if not started:
        events.emit(p.EVENT_RUN_START, prompt=command.text)
    events.emit(p.EVENT_NOTICE, message=message)
    if command.name in ("compact", "clear"):  # the meter falls with the conversation
        window = manager.settings_now().context_window
        events.context(context_meter(answer_session.id, answer_session.last_input_tokens, window))
    events.emit(p.EVENT_RUN_END, stopReason="end_turn", usage=Usage().to_wire(), cost=None)
    return RunResult(
        session_id=answer_session.id,
        stop_reason="end_turn",
        text=message,
        todos=answer_session.todos.items,
        usage=Usage(),
    )


def _compact(manager: BuiltInHost, session: Session) -> str:
    if not session.messages:
        return "Nothing to compact: the session has no conversation yet."
    window = manager.settings_now().context_window
    measured = max(session.last_input_tokens, window)  # as if full: shrink it now
    compaction = compact_if_needed(session.messages, measured, window, session.todos.render())
    if compaction is None:
        return "Nothing to compact: the conversation is already as short as it gets."
    session.history_rewritten = True
    session.restarted = "compact"  # the next run's SessionStart hooks say so
    session.last_input_tokens = compaction.after_tokens
    return compaction.describe().replace("to fit the context window", "as asked")


async def _undo(manager: BuiltInHost, session: Session) -> str:
    try:
        outcome = await manager.checkpoints(session.id).revert(
            RevertParams(session.id, last_run=True)
        )
    except CheckpointError as exc:
        raise SessionError(f"/undo: {exc}") from None
    if outcome.get("conflicts"):
        files = ", ".join(c["path"] for c in outcome["conflicts"])
        raise SessionError(
            f"/undo: nothing was changed: {files} changed since the run; revert with force "
            "from the Changes view or `workspace-agent revert --last-run --force`"
        )
    restored, deleted, skipped = outcome["restored"], outcome["deleted"], outcome["skipped"]
    parts = [
        f"restored {', '.join(restored)}" if restored else "",
        f"deleted {', '.join(deleted)}" if deleted else "",
    ]
    done = "; ".join(part for part in parts if part) or "no file needed changing"
    left = "; ".join(f"{s['path']} ({s['reason']})" for s in skipped)
    return f"Reverted the last run: {done}." + (f" Left as they are: {left}." if left else "")


def _cost(manager: BuiltInHost, session: Session) -> str:
    usage = session.usage
    model = manager.settings_now().model
    cost = estimate_cost(model, usage)
    price = (
        f"about ${cost['usd']:.4f} at {model}'s prices" if cost else f"no price known for {model}"
    )
    return (
        f"Session {session.id}: {usage.prompt_tokens:,} input tokens "
        f"({usage.cache_read_tokens:,} read from the prompt cache, {usage.cache_write_tokens:,} "
        f"written to it) and {usage.output_tokens:,} output tokens; {price}."
    )
