"""The `workspaceAgent/sandbox` notification: whether commands run in the sandbox, and if
not why and how to fix it, told to the client once after `initialized` and again when a
settings change alters it (the client shows it, e.g. in a status bar tooltip).

The availability probe starts a bwrap process, so it runs after `initialize` is
answered, never before: the `initialize` result only carries the configured mode.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from .. import protocol as p
from .features import FeatureHost, LanguageFeature

log = logging.getLogger(__name__)


class SandboxStatusPublisher(LanguageFeature):
    def __init__(self, ls: FeatureHost) -> None:
        self._ls = ls
        self._sent: dict[str, Any] | None = None
        self._task: asyncio.Task[None] | None = None

    def settings_changed(self) -> None:
        self.publish()

    def publish(self) -> None:
        """Work the state out (in the background) and send it if it changed."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self._task = asyncio.ensure_future(self._publish())

    async def _publish(self) -> None:
        from ..sandbox.status import sandbox_status

        ls = self._ls
        root = ls.workspace_root()
        try:
            mode = (ls.settings_for(root) if root else ls.quick_settings()).sandbox_mode
            payload = (await sandbox_status(mode, root)).to_wire()
        except Exception:  # the status must never take the server down
            log.exception("could not work out the sandbox's state")
            return
        if payload != self._sent:
            self._sent = payload
            ls.notify(p.SANDBOX_NOTIFICATION, payload)
