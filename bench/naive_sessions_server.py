"""Row 8's baseline: the real server, answering `workspaceAgent/sessions` the way it did
before session summaries existed: every session file replayed in full, on the event
loop. Run: `python -m bench.naive_sessions_server` (LSP on stdio)."""

from __future__ import annotations

from typing import Any

from workspace_agent.agent import sessions, store
from workspace_agent.shared.session import Session


async def full_replay_listing(self: sessions.SessionManager) -> dict[str, Any]:
    """SessionStore.list and SessionManager.list_sessions as they were: load every file
    (store.load without repair is is_file + _replay), count, sort, in the handler."""
    found: list[store.StoredSession] = []
    problems: list[str] = []
    saved = self._store()
    if saved is not None and saved.folder.is_dir():
        for path in saved.folder.glob("*.jsonl"):
            if not store._valid_id(path.stem):
                continue  # a session's history or outputs (<id>.history.jsonl), not a session
            session = Session(id=path.stem)
            try:
                store._replay(path, session, repair=False)
            except store.StoreError as exc:
                problems.append(str(exc))
                continue
            found.append(
                store.StoredSession.of(session, len(session.messages), path.stat().st_mtime)
            )
    found.sort(key=lambda s: s.updated, reverse=True)
    return {
        "sessions": [s.to_wire(running=self._busy(s.session_id)) for s in found],
        "problems": problems,
    }


def main() -> int:
    from workspace_agent.cli.main import main as server_main

    sessions.SessionManager.list_sessions = full_replay_listing  # type: ignore[method-assign,assignment]
    return server_main()


if __name__ == "__main__":
    raise SystemExit(main())
