"""The sessions of a workspace, in memory and on disk: the session cache every front end
names sessions through (new, by id, listed).

Memory holds the running sessions and the few idle ones named last (a client's current
session among them); older idle sessions are saved, dropped, and read back from disk when
named again. What their file does not hold (approvals given "for this session", the
reminder's and compaction's counters, load notes not yet shown) stays behind in memory,
so a session read back behaves exactly as if it had never left. Its own module: keeping
sessions is one concern, running them (sessions.py) another.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .. import protocol as p
from ..shared.events import SessionEvents
from ..shared.session import Session
from .errors import SessionError
from .store import SessionStore, StoreError

if TYPE_CHECKING:
    from .. import contract

log = logging.getLogger(__name__)

IDLE_SESSIONS_KEPT = 4
"""Idle sessions kept in memory besides the running ones: the client's current session
and a few it switched between; older idle ones are dropped and read back when named."""


class SessionCache:
    """Sessions by id: the running ones and the few idle ones named last in memory, the
    others in the workspace's session store."""

    def __init__(self, root: Callable[[], Path | None]) -> None:
        self._root = root
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        """Sessions in memory, the one named longest ago first."""
        self._left: dict[str, _LeftBehind] = {}
        """What sessions dropped from memory keep, by id."""
        self._stores: dict[Path, SessionStore] = {}
        self._listing = asyncio.Lock()

    def new_session(self) -> Session:
        session = Session()
        self.keep(session)
        return session

    def get(self, session_id: str) -> Session:
        """A session in memory, or one saved in the workspace (resumed after a restart,
        or dropped from memory while idle)."""
        session = self._sessions.get(session_id) or self._reload(session_id)
        self.keep(session)
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

    def in_memory(self, session_id: str) -> Session | None:
        """The session if memory holds it (every running session is there)."""
        return self._sessions.get(session_id)

    def running(self) -> list[Session]:
        """The sessions with a run going (all in memory)."""
        return [session for session in self._sessions.values() if session.busy]

    def keep(self, session: Session) -> None:
        """Note that `session` was just named, and drop the idle sessions beyond the
        few named most recently."""
        self._sessions[session.id] = session
        self._sessions.move_to_end(session.id)
        idle = [s for s in self._sessions.values() if not s.busy]
        for old in idle[: max(len(idle) - IDLE_SESSIONS_KEPT, 0)]:
            if self._drop(old):
                del self._sessions[old.id]

    def save(self, session: Session, events: SessionEvents, durable: bool = False) -> None:
        """Persist (after every turn, after a revert); a full disk must not end the run,
        it is a notice."""
        store = self._store()
        if store is None:
            return
        try:
            store.sync(session, durable)
        except OSError as exc:
            log.warning("could not save session %s: %s", session.id, exc)
            events.emit(p.EVENT_NOTICE, message=f"Could not save the session: {exc}")

    def _busy(self, session_id: str) -> bool:
        session = self._sessions.get(session_id)
        return session is not None and session.busy

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
