"""The history files of the workspace's sessions, one object per session file, and the
history of a session saved before histories were recorded, derived once from its
messages and written down (so later runs append to it like to any other)."""

from __future__ import annotations

import base64
import logging
from collections.abc import Callable
from pathlib import Path

from ..agent.store import SessionStore, StoreError
from .store import HistoryFile, history_folder

log = logging.getLogger(__name__)


class Histories:
    def __init__(self, root: Callable[[], Path | None]) -> None:
        self._root = root
        self._files: dict[tuple[Path, str], HistoryFile] = {}

    def file(self, session_id: str) -> HistoryFile | None:
        """The session's history, derived from its session file first when it has none
        yet; None without a workspace folder."""
        root = self._root()
        if root is None or not valid_id(session_id):
            return None
        key = (root, session_id)
        history = self._files.get(key)
        if history is None:
            history = self._files[key] = HistoryFile(history_folder(root), session_id)
            if not history.exists():
                _derive(history, root, session_id)
        return history

    def recorded(self, session_id: str) -> bool:
        """Whether the session has a history file (it ran, maybe without saving)."""
        root = self._root()
        return (
            root is not None
            and valid_id(session_id)
            and HistoryFile(history_folder(root), session_id).exists()
        )


def _derive(history: HistoryFile, root: Path, session_id: str) -> None:
    """Write the history of a saved session that has none (saved before this feature)."""
    from .derive import derived_entries

    try:
        session = SessionStore(root).load(session_id, repair=False)
    except StoreError as exc:
        log.warning("no history for session %s: %s", session_id, exc)
        return
    if session is None or not session.messages:
        return
    entries, outputs = derived_entries(session.messages, root)
    if not entries:
        return
    carried = {entry["seq"]: entry.pop("imageData", []) for entry in entries}
    try:
        for tool_use_id, text in outputs.items():
            history.add_output(tool_use_id, text)
        history.append(entries)
        for seq, data in carried.items():
            for index, text in enumerate(data):
                history.add_image(seq, index, base64.b64decode(text))
    except OSError as exc:
        log.warning("could not write the history of session %s: %s", session_id, exc)


def valid_id(session_id: str) -> bool:
    """Session ids name files: ASCII letters, digits and dashes only."""
    return session_id.isascii() and session_id.replace("-", "").isalnum()
