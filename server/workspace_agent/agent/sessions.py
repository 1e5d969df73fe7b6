"""The agent service: sessions, runs and cancellation, shared by every front end.

A run is an asyncio Task owned by its session, so it can be cancelled by session id (the
workspaceAgent.cancel command, Ctrl-C) as well as by cancelling the caller
($/cancelRequest). Either way the run ends with stopReason "cancelled", the bash command
it was running is killed, and the conversation stays valid for the next prompt.

Memory holds the running sessions and the few idle ones named last (a client's current
session among them); older idle sessions are saved, dropped, and read back from disk when
named again. What their file does not hold (approvals given "for this session", the
reminder's and compaction's counters, load notes not yet shown) stays behind in memory,
so a session read back behaves exactly as if it had never left.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .. import protocol as p
from ..checkpoints.notes import only_note, revert_note, undo_note
from ..checkpoints.service import CheckpointError, Checkpoints, ItemRef
from ..config import AgentSettings, user_config_dir
from ..guard.approvals import Approvals, Asker
from ..instructions import load_instructions, nested_instructions
from ..protocol import (
    FileVersionParams,
    RevertParams,
    RunContext,
    RunParams,
    RunResult,
    StopReason,
    UndoRevertParams,
)
from ..shared.documents import DiskOnly, Documents
from ..shared.events import AgentListener, SessionEvents
from ..shared.observers import ObserverFactory, RunObserver, RunScope, notify_all
from ..shared.session import Session
from ..tools import TOOLS, Tool, ToolContext
from ..tools.live import LiveTools
from .editor_context import attached_field, render_context
from .errors import SessionError
from .loop import RunState, run_turns
from .model import AnthropicModel, Model, ModelError
from .pricing import estimate_cost
from .prompt import system_prompt
from .store import SessionStore, StoreError

if TYPE_CHECKING:
    from .. import contract

log = logging.getLogger(__name__)

NO_WORKSPACE = "No workspace folder is open: open a folder for the agent to work in."
MISSING_KEY = (
    "ANTHROPIC_API_KEY is not set: set it in the environment, in the workspace's .env file, "
    "or with the editor's 'Set API Key' command, then run again."
)


IDLE_SESSIONS_KEPT = 4
"""Idle sessions kept in memory besides the running ones: the client's current session
and a few it switched between; older idle ones are dropped and read back when named."""

ModelFactory = Callable[[AgentSettings], Model]


class SessionManager:
    def __init__(
        self,
        listener: AgentListener,
        *,
        root: Callable[[], Path | None],
        settings: Callable[[Path], AgentSettings],
        tools: Mapping[str, Tool] | None = None,
        session_tools: Callable[[str], Mapping[str, Tool]] | None = None,
        model_factory: ModelFactory | None = None,
        documents: Documents | None = None,
        asker: Asker | None = None,
        observers: Sequence[ObserverFactory] = (),
    ) -> None:
        self._listener = listener
        self._root = root
        self._settings = settings
        self._tools = TOOLS if tools is None else tools
        self._session_tools = session_tools
        """Tools beyond the fixed ones, by session id, looked up on every turn (MCP)."""
        self._model_factory = model_factory or cached_anthropic_models()
        self._documents = documents or DiskOnly()
        self._asker = asker
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        """Sessions in memory, the one named longest ago first."""
        self._left: dict[str, _LeftBehind] = {}
        """What sessions dropped from memory keep, by id."""
        self._stores: dict[Path, SessionStore] = {}
        self._listing = asyncio.Lock()
        self.checkpoints = Checkpoints()
        """Checkpoints are the first observer of every run: the others read the files it
        finds changed (CallReport.changes)."""
        self._observer_factories: tuple[ObserverFactory, ...] = (
            self.checkpoints.observer,
            *observers,
            nested_instructions,
        )

    def new_session(self) -> Session:
        session = Session()
        self._keep(session)
        return session

    def get(self, session_id: str) -> Session:
        """A session in memory, or one saved in the workspace (resumed after a restart,
        or dropped from memory while idle)."""
        session = self._sessions.get(session_id) or self._reload(session_id)
        self._keep(session)
        return session

    def known(self, session_id: str) -> bool:
        """Whether the session exists (in memory or saved), without reading it."""
        return session_id in self._sessions or self._known(session_id)

    async def list_sessions(self) -> contract.SessionsResult:
        """Saved sessions of the workspace, newest first (the wire form of
        workspaceAgent/sessions), with a note for each file that could not be read. The
        files are read in a worker thread: runs go on meanwhile."""
        store = self._store()
        if store is None:
            return {"sessions": [], "problems": []}
        async with self._listing:  # one listing at a time; a second one waits its turn
            listed, problems = await asyncio.to_thread(_listing, store)
        for entry in listed:
            entry["running"] = self._busy(entry["sessionId"])
        return {"sessions": listed, "problems": problems}

    def session_for(self, params: RunParams) -> Session:
        """The session a run goes to: the named one (which must be idle) or a new one."""
        if params.session_id is None:
            return self.new_session()
        session = self.get(params.session_id)
        if session.busy:
            raise SessionError(
                f"session {session.id} is busy with another run; cancel it or wait for it to finish"
            )
        return session

    def cancel(self, session_id: str) -> bool:
        """Stop the session's run; False when nothing was running."""
        session = self._sessions.get(session_id)
        if session is None:  # not in memory, so not running
            if not self._known(session_id):
                raise SessionError(f"there is no session {session_id!r}")
            return False
        if not session.busy:
            return False
        assert session.task is not None
        session.task.cancel()
        return True

    async def run(self, params: RunParams) -> RunResult:
        session = self.session_for(params)
        task = asyncio.create_task(self._run(session, params.prompt, params.context))
        session.task = task
        try:
            return await task
        except asyncio.CancelledError:
            if not task.cancelled():
                raise
            # Cancelled before the run's first step: nothing ran, nothing to clean up.
            return self._result(session, "cancelled", RunState())
        finally:
            session.task = None
            self._keep(session)

    async def _run(
        self, session: Session, prompt: str, context: RunContext | None = None
    ) -> RunResult:
        events = SessionEvents(self._listener, session.id)
        events.emit(p.EVENT_RUN_START, prompt=prompt, **attached_field(context))
        events.todos(session.todos.items)  # a client joining now starts from the right plan
        root = self._root()
        settings = self._settings(root) if root else None
        state = RunState()
        error: str | None = None
        stop: StopReason
        for note in [*(settings.notes if settings else ()), *session.load_notes]:
            events.emit(p.EVENT_NOTICE, message=note)
        session.load_notes.clear()
        if root is None or settings is None:
            stop, error = "error", NO_WORKSPACE
        elif not settings.api_key:
            stop, error = "error", MISSING_KEY
        else:
            session.add_prompt(prompt, render_context(context, settings.context_max_chars))
            instructions = load_instructions(root, settings.instruction_files, user_config_dir())
            notice = instructions.notice()  # None: no instruction files
            if notice is not None:
                events.emit(p.EVENT_NOTICE, message=notice, instructions=instructions.to_wire())
            scope = RunScope(session, root, settings, events, self._documents, prompt)
            observers = self._observers(scope)
            try:
                await notify_all(observers, "start_run")
                stop = await run_turns(
                    session=session,
                    model=self._model_factory(settings),
                    tools=self._tools_of(session),
                    ctx=ToolContext(
                        root=root,
                        settings=settings,
                        todos=session.todos,
                        approvals=Approvals(
                            settings.approval_policy,
                            self._asker,
                            session.allowed_kinds,
                            session_id=session.id,
                            on_status=lambda **fields: events.emit(p.EVENT_APPROVAL, **fields),
                        ),
                        documents=self._documents,
                        observers=observers,
                        session_id=session.id,
                    ),
                    events=events,
                    system=system_prompt(root, instructions.block()),
                    state=state,
                    on_turn=lambda: self._save(session, events),
                )
            except asyncio.CancelledError:
                stop = "cancelled"
            except ModelError as exc:
                stop, error = "error", str(exc)
            except Exception as exc:  # a bug in a run must not take the server down
                log.exception("run failed in session %s", session.id)
                stop, error = "error", f"internal error: {type(exc).__name__}: {exc}"
            await notify_all(observers, "end_run", stop)
        if error:
            events.emit(p.EVENT_ERROR, message=error)
        if root is not None and session.messages:
            self._save(session, events, durable=True)
        cost = estimate_cost(settings.model, state.usage) if settings else None
        result = self._result(session, stop, state, error, cost)
        events.emit(p.EVENT_RUN_END, stopReason=stop, usage=state.usage.to_wire(), cost=cost)
        return result

    # -- checkpoints: what each plan item changed, and taking it back --------------------

    async def changes(self, session_id: str) -> contract.Changes:
        """workspaceAgent/changes for a session (without sessionId)."""
        session, root = self._session_and_root(session_id)
        with _as_session_error():
            return await self.checkpoints.changes(root, session.id)

    async def file_version(self, params: FileVersionParams) -> str | None:
        session, root = self._session_and_root(params.session_id)
        item = ItemRef(params.todo_id, params.key, params.todo_id_given)
        with _as_session_error():
            return await self.checkpoints.file_version(
                root, session.id, item, params.path, params.side
            )

    async def revert(self, params: RevertParams) -> contract.RevertOutcome:
        """Restore the files the agent changed from a plan item (or the last run) on; the
        conversation is told, so the model does not count on those edits any more. A dry
        run only says what would be done."""
        session, root = self._idle_session(params.session_id)
        item = (
            None if params.last_run else ItemRef(params.todo_id, params.key, params.todo_id_given)
        )
        with _as_session_error():
            result = await self.checkpoints.revert(
                root,
                session.id,
                item,
                force=params.force,
                documents=self._documents,
                max_bytes=self._settings(root).max_file_bytes,
                dry_run=params.dry_run,
                only=params.only,
            )
        if not params.dry_run and not result.conflicts:  # a conflict: nothing was changed
            note = only_note if params.only else revert_note
            await self._after_revert(session, root, note(result.label, result))
        return result.revert_wire()

    async def undo_revert(self, params: UndoRevertParams) -> contract.UndoRevertResult:
        session, root = self._idle_session(params.session_id)
        with _as_session_error():
            result = await self.checkpoints.undo_revert(
                root,
                session.id,
                params.undo_id,
                force=params.force,
                documents=self._documents,
                max_bytes=self._settings(root).max_file_bytes,
                dry_run=params.dry_run,
            )
        if not params.dry_run:
            await self._after_revert(session, root, undo_note(result))
        return result.undo_wire()

    def _session_and_root(self, session_id: str) -> tuple[Session, Path]:
        session = self.get(session_id)
        root = self._root()
        if root is None:
            raise SessionError(NO_WORKSPACE)
        return session, root

    def _idle_session(self, session_id: str) -> tuple[Session, Path]:
        session, root = self._session_and_root(session_id)
        if session.busy:
            raise SessionError(
                f"session {session.id} has a run going on; cancel it or wait for it to finish "
                "before reverting (nothing was changed)"
            )
        return session, root

    async def _after_revert(self, session: Session, root: Path, note: str) -> None:
        events = SessionEvents(self._listener, session.id)
        session.add_note(note)
        self._save(session, events, durable=True)
        with _as_session_error():
            events.changes(await self.checkpoints.changes(root, session.id))

    def _tools_of(self, session: Session) -> Mapping[str, Tool]:
        extra = self._session_tools
        if extra is None:
            return self._tools
        return LiveTools(self._tools, lambda: extra(session.id))

    def _observers(self, scope: RunScope) -> tuple[RunObserver, ...]:
        built = (factory(scope) for factory in self._observer_factories)
        return tuple(observer for observer in built if observer is not None)

    def _busy(self, session_id: str) -> bool:
        session = self._sessions.get(session_id)
        return session is not None and session.busy

    def _keep(self, session: Session) -> None:
        """Note that `session` was just named, and drop the idle sessions beyond the
        few named most recently."""
        self._sessions[session.id] = session
        self._sessions.move_to_end(session.id)
        idle = [s for s in self._sessions.values() if not s.busy]
        for old in idle[: max(len(idle) - IDLE_SESSIONS_KEPT, 0)]:
            if self._drop(old):
                del self._sessions[old.id]

    def _drop(self, session: Session) -> bool:
        """Make sure the idle `session` can be read back as it is, and note what its file
        does not hold; False when it must stay (it could not be saved)."""
        if session.saved is not None or session.messages:  # it has a file, or needs one
            store = self._store()
            if store is None:
                return False
            try:
                store.sync(session)
            except OSError as exc:
                log.warning("keeping session %s in memory: could not save it: %s", session.id, exc)
                return False
        left = _LeftBehind.of(session)
        if left is not None:
            self._left[session.id] = left
        return True

    def _reload(self, session_id: str) -> Session:
        store = self._store()
        try:
            session = store.load(session_id) if store else None
        except StoreError as exc:
            raise SessionError(str(exc)) from None
        left = self._left.pop(session_id, None)
        if session is None:
            if left is None or not left.blank:
                raise SessionError(f"there is no session {session_id!r}")
            session = Session(id=session_id)
        if left is not None:
            left.restore(session)
        return session

    def _known(self, session_id: str) -> bool:
        store = self._store()
        return session_id in self._left or (store is not None and store.exists(session_id))

    def _store(self) -> SessionStore | None:
        root = self._root()
        if root is None:
            return None
        return self._stores.setdefault(root, SessionStore(root))

    def _save(self, session: Session, events: SessionEvents, durable: bool = False) -> None:
        """Persist after every turn; a full disk must not end the run."""
        store = self._store()
        if store is None:
            return
        try:
            store.sync(session, durable)
        except OSError as exc:
            log.warning("could not save session %s: %s", session.id, exc)
            events.emit(p.EVENT_NOTICE, message=f"Could not save the session: {exc}")

    @staticmethod
    def _result(
        session: Session,
        stop: StopReason,
        state: RunState,
        error: str | None = None,
        cost: contract.CostEstimate | None = None,
    ) -> RunResult:
        return RunResult(
            session_id=session.id,
            stop_reason=stop,
            text=state.text,
            todos=session.todos.items,
            usage=state.usage,
            error=error,
            cost=cost,
        )


@contextmanager
def _as_session_error() -> Iterator[None]:
    try:
        yield
    except CheckpointError as exc:
        raise SessionError(str(exc)) from None


@dataclass
class _LeftBehind:
    """What a session dropped from memory keeps there: what its file does not hold."""

    blank: bool
    """It never ran, so it has no file: it comes back empty, under the same id."""
    allowed_kinds: set[str] = field(default_factory=set)
    rounds_without_todo: int = 0
    last_input_tokens: int = 0
    load_notes: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, session: Session) -> _LeftBehind | None:
        left = cls(
            session.saved is None,
            set(session.allowed_kinds),
            session.rounds_without_todo,
            session.last_input_tokens,
            list(session.load_notes),
        )
        return None if left == cls(blank=False) else left

    def restore(self, session: Session) -> None:
        session.allowed_kinds |= self.allowed_kinds
        session.rounds_without_todo = self.rounds_without_todo
        session.last_input_tokens = self.last_input_tokens
        session.load_notes[:0] = self.load_notes


def _listing(store: SessionStore) -> tuple[list[contract.SessionSummary], list[str]]:
    """The listing in its wire form (running: False), built in the worker thread."""
    stored, problems = store.list()
    return [s.to_wire(running=False) for s in stored], problems


def cached_anthropic_models() -> ModelFactory:
    """One SDK client per key, URL, model and token limit, reused across runs (its
    connections stay open)."""
    cache: dict[tuple[object, ...], Model] = {}

    def factory(settings: AgentSettings) -> Model:
        key = (
            settings.api_key,
            settings.base_url,
            settings.model,
            settings.max_tokens,
            settings.max_retries,
            settings.retry_base_seconds,
            settings.prompt_caching,
        )
        if key not in cache:
            cache.clear()
            cache[key] = AnthropicModel(settings)
        return cache[key]

    return factory
