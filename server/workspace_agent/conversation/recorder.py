"""Records each session's history as its events go by: a listener that passes every call
on to the front end's listener and appends the user-facing entries to the session's
history file (store.py).

A `text` entry holds one assistant message's whole text (the live events stream it in
pieces), and a `thinking` entry its whole thinking with how long it took (`seconds`);
both dropped by a retry are dropped here too. Reminders and retries are not
entries. The images a prompt carried (the core's runStart `imageData`) are kept apart, by
the entry's seq, and those a tool's result carried (toolResult `imageData`) by its
toolUseId (store.py). A full disk costs the history, never the run.
"""

from __future__ import annotations

import base64
import binascii
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import protocol as p
from ..protocol import TodoItem
from ..shared.events import AgentListener
from .entries import user_fields
from .histories import Histories
from .store import HistoryFile

if TYPE_CHECKING:
    from .. import contract

log = logging.getLogger(__name__)

NOT_RECORDED = frozenset(
    {p.EVENT_PREPARING, p.EVENT_REMINDER, p.EVENT_RETRY, p.EVENT_TEXT, p.EVENT_THINKING}
)
BESIDE_THE_RUN = frozenset({p.EVENT_BACKGROUND, p.EVENT_BACKGROUND_OUTPUT})
"""Background commands' events: they come whenever the command has news, also in the
middle of an answer's text or thinking, which they must not cut; not recorded either
(their output has a file of its own, tools/output_log.py)."""


def recording(listener: AgentListener, root: Callable[[], Path | None]) -> HistoryRecorder:
    """`listener`, with the histories of the sessions in `root` recorded on the way (every
    front end records, so a session run from the terminal or over ACP and then opened in
    the editor has all of its runs)."""
    return HistoryRecorder(listener, Histories(root))


class HistoryRecorder:
    """An AgentListener around another one."""

    def __init__(self, listener: AgentListener, histories: Histories) -> None:
        self._listener = listener
        self._histories = histories
        self._text: dict[str, list[str]] = {}
        """Assistant text streamed so far and not yet recorded, by session."""
        self._thinking: dict[str, list[Any]] = {}
        """Thinking streamed so far and not yet recorded, by session: [began, ended or
        None, pieces] (it ends with the answer's first text or the next event)."""

    def on_event(self, session_id: str, kind: str, fields: dict[str, Any]) -> None:
        if kind == p.EVENT_TOOL_RESULT and fields.get("imageData"):
            try:  # kept before a front end hears of them, so its first request finds them
                self._keep_tool_images(session_id, fields)
            except OSError as exc:
                log.warning("could not keep the images of session %s: %s", session_id, exc)
        self._listener.on_event(session_id, kind, fields)
        try:
            self._record(session_id, kind, fields)
        except OSError as exc:
            log.warning("could not record the history of session %s: %s", session_id, exc)

    def on_todos(self, session_id: str, items: list[TodoItem]) -> None:
        self._listener.on_todos(session_id, items)

    def on_changes(self, session_id: str, changes: contract.Changes) -> None:
        self._listener.on_changes(session_id, changes)

    def on_context(self, session_id: str, meter: contract.ContextMeter) -> None:
        self._listener.on_context(session_id, meter)  # a gauge: not part of the history

    def _keep_tool_images(self, session_id: str, fields: dict[str, Any]) -> None:
        history = self._histories.file(session_id)
        if history is None:
            return
        for index, text in enumerate(fields["imageData"]):
            try:
                raw = base64.b64decode(str(text), validate=True)
            except (binascii.Error, ValueError):
                continue  # checked when the result was made: never happens
            history.add_tool_image(str(fields.get("toolUseId")), index, raw)

    def _record(self, session_id: str, kind: str, fields: dict[str, Any]) -> None:
        if kind in BESIDE_THE_RUN:
            return
        if kind == p.EVENT_TEXT:
            self._text.setdefault(session_id, []).append(str(fields.get("text", "")))
            return
        if kind == p.EVENT_THINKING:
            thought = self._thinking.setdefault(session_id, [time.monotonic(), None, []])
            thought[2].append(str(fields.get("text", "")))
            return
        open_thought = self._thinking.get(session_id)
        if open_thought is not None and open_thought[1] is None:
            open_thought[1] = time.monotonic()
        if kind == p.EVENT_RETRY:  # the answer streamed so far is thrown away
            self._text.pop(session_id, None)
            self._thinking.pop(session_id, None)
            return
        if kind in NOT_RECORDED:
            return
        history = self._histories.file(session_id)
        if history is None:
            return
        entries: list[dict[str, Any]] = []
        text = "".join(self._text.pop(session_id, []))
        run = history.last_run + (1 if kind == p.EVENT_RUN_START else 0)
        began, ended, pieces = self._thinking.pop(session_id, (0.0, 0.0, []))
        if "".join(pieces).strip():
            seconds = round((ended or time.monotonic()) - began, 1)
            entries.append({"kind": p.EVENT_THINKING, "text": "".join(pieces), "seconds": seconds})
        if text:
            entries.append({"kind": p.EVENT_TEXT, "text": text})
        entries.append({"kind": kind, **user_fields(kind, fields)})
        first = history.total
        for offset, entry in enumerate(entries):
            entry["seq"], entry["run"] = first + offset, max(run, 1)
        if kind == p.EVENT_TOOL_RESULT:
            whole = str(fields.get("fullOutput", fields.get("output", "")))
            if whole != fields.get("output"):
                history.add_output(str(fields.get("toolUseId")), whole)
        history.append(entries)
        if kind == p.EVENT_RUN_START:
            _keep_images(history, entries[-1]["seq"], fields.get("imageData"))


def _keep_images(history: HistoryFile, seq: int, data: Any) -> None:
    for index, text in enumerate(data if isinstance(data, list) else []):
        try:
            raw = base64.b64decode(str(text), validate=True)
        except (binascii.Error, ValueError):
            continue  # checked before the run started: never happens
        history.add_image(seq, index, raw)
