"""Work-done progress ($/progress) for one run: begin, "2/5 · current step", end; while
a question waits for the user, "Waiting for your approval".

Only used when the client announced `window.workDoneProgress`. Cancelling the progress in
the client (window/workDoneProgress/cancel) cancels the run.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from ..protocol import TodoItem

log = logging.getLogger(__name__)

END_MESSAGES = {
    "end_turn": "Done",
    "stop_sequence": "Done (at a stop sequence)",
    "cancelled": "Cancelled",
    "max_turns": "Stopped: turn limit reached",
    "budget": "Stopped: token budget reached",
    "refusal": "Stopped: the model declined the request",
    "error": "Stopped by an error",
    "planReady": "Plan ready",
}
"""The progress's end message for each stop reason (protocol.STOP_REASONS)."""
WAITING = "Waiting for your approval"


def progress_text(items: list[TodoItem]) -> tuple[str, int | None]:
    """The report message ("2/5 · Write the tests") and the percentage, for a plan."""
    if not items:
        return "working…", None
    done = sum(1 for item in items if item.status == "completed")
    current = next((item for item in items if item.status == "in_progress"), None)
    message = f"{done}/{len(items)}" + (f" · {current.text}" if current else "")
    return message, round(100 * done / len(items))


class RunProgress:
    def __init__(self, ls: LanguageServer, on_cancel: Callable[[], Any]) -> None:
        self._ls = ls
        self._on_cancel = on_cancel
        self._token: str | None = None
        self._items: list[TodoItem] = []
        self._waiting = 0
        """Questions open now (a run asks one at a time; counted to be safe)."""

    @staticmethod
    def supported(ls: LanguageServer) -> bool:
        window = ls.client_capabilities.window
        return bool(window and window.work_done_progress)

    async def begin(self, title: str, message: str) -> None:
        if not self.supported(self._ls):
            return
        token = f"workspace-agent-run-{uuid.uuid4().hex}"
        try:
            await self._ls.work_done_progress.create_async(token)
        except Exception as exc:  # the client may refuse; the run goes on without progress
            log.info("client refused a progress token: %s", exc)
            return
        self._token = token
        self._ls.work_done_progress.tokens[token].add_done_callback(self._cancelled)
        self._ls.work_done_progress.begin(
            token,
            types.WorkDoneProgressBegin(
                title=title, message=message, cancellable=True, percentage=0
            ),
        )

    def report(self, items: list[TodoItem]) -> None:
        self._items = items
        if self._token is None or self._waiting:
            return
        message, percentage = progress_text(items)
        self._ls.work_done_progress.report(
            self._token, types.WorkDoneProgressReport(message=message, percentage=percentage)
        )

    def approval(self, status: str) -> None:
        """A question was asked ("waiting") or answered: say so, then back to the plan."""
        self._waiting = max(0, self._waiting + (1 if status == "waiting" else -1))
        if self._token is None:
            return
        if self._waiting:
            _, percentage = progress_text(self._items)
            self._ls.work_done_progress.report(
                self._token,
                types.WorkDoneProgressReport(message=WAITING, percentage=percentage),
            )
        else:
            self.report(self._items)

    def end(self, message: str) -> None:
        if self._token is None:
            return
        token, self._token = self._token, None
        self._ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))
        self._ls.work_done_progress.tokens.pop(token, None)

    def _cancelled(self, future: Any) -> None:
        if future.cancelled() and self._token is not None:
            self._on_cancel()
