"""Which session a client works in, for requests that do not name one (code actions).

A plain LSP client (Neovim, Helix, Emacs) has no session picker: its current session is
the one its last run went to, or the one `workspaceAgent.newSession` made for it,
whichever came last. A code action's command continues that session, and no action is
offered while it has a run going. One server process serves one client, so this is
per server.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


class CurrentSession:
    def __init__(self) -> None:
        self.id: str | None = None
        self._running: set[str] = set()

    def named(self, session_id: str) -> None:
        """The client started a run in this session or created it."""
        self.id = session_id

    @contextmanager
    def running(self, session_id: str) -> Iterator[None]:
        """Around a run: the session becomes current and counts as busy until it ends."""
        self.id = session_id
        self._running.add(session_id)
        try:
            yield
        finally:
            self._running.discard(session_id)

    @property
    def busy(self) -> bool:
        """The current session has a run going."""
        return self.id is not None and self.id in self._running
