"""Logging for the language server: one route per record, so no line shows up twice.

vscode-languageclient writes every line the server prints on stderr into the same output
channel as window/logMessage (as an error, whatever its level). So our own records go to
the client as window/logMessage, with their level, and to stderr only when they could
not be sent (no connection yet, or the client is gone). stderr keeps everything else:
pygls's warnings and errors, our debug records, and the traceback of a crash (Python
prints it there). stdout carries the protocol, so nothing may ever be printed there.
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
SENT_TO_CLIENT = "sent_to_client"
"""Set on a record that reached the client, so that the stderr handler leaves it out."""


class ClientLogHandler(logging.Handler):
    """Forwards our own log records (not pygls's) to the client's output channel."""

    def __init__(self, ls: LanguageServer) -> None:
        super().__init__(logging.INFO)
        self._ls = ls

    def emit(self, record: logging.LogRecord) -> None:
        if self._ls.protocol.writer is None:  # not connected yet: stderr has it
            return
        try:
            kind = next(kind for level, kind in LEVELS.items() if record.levelno >= level)
            self._ls.window_log_message(
                types.LogMessageParams(type=kind, message=self.format(record))
            )
        except Exception:  # the client is gone: stderr has it; logging never breaks a run
            return
        setattr(record, SENT_TO_CLIENT, True)


def not_sent_to_client(record: logging.LogRecord) -> bool:
    return not getattr(record, SENT_TO_CLIENT, False)


def configure(ls: LanguageServer, level: str = "INFO") -> None:
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    stderr.addFilter(not_sent_to_client)
    logging.basicConfig(level=logging.WARNING, handlers=[stderr])
    ours = logging.getLogger("workspace_agent")
    ours.setLevel(level)
    ours.addHandler(ClientLogHandler(ls))
