"""Logging for the language server: stderr always, and window/logMessage once connected.

stdout carries the protocol, so nothing may ever be printed there.
"""

from __future__ import annotations

import logging
import sys

from lsprotocol import types
from pygls.lsp.server import LanguageServer

LEVELS = {
    logging.ERROR: types.MessageType.Error,
    logging.WARNING: types.MessageType.Warning,
    logging.INFO: types.MessageType.Info,
}


class ClientLogHandler(logging.Handler):
    """Forwards our own log records (not pygls's) to the client's output channel."""

    def __init__(self, ls: LanguageServer) -> None:
        super().__init__(logging.INFO)
        self._ls = ls

    def emit(self, record: logging.LogRecord) -> None:
        try:
            kind = next(kind for level, kind in LEVELS.items() if record.levelno >= level)
            self._ls.window_log_message(
                types.LogMessageParams(type=kind, message=self.format(record))
            )
        except Exception:  # the client may be gone; logging must never break a run
            pass


def configure(ls: LanguageServer, level: str = "INFO") -> None:
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[stderr])
    ours = logging.getLogger("workspace_agent")
    ours.setLevel(level)
    ours.addHandler(ClientLogHandler(ls))
