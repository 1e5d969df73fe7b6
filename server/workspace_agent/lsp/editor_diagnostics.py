"""Asking the editor for the problems its language servers report (workspaceAgent/diagnostics).

Only a client that announced `experimental.workspaceAgent.diagnostics: true` is asked. The
client answers `[{uri, diagnostics}]`; with `wait` it first lets its language servers
settle (bounded by its own timeout), without it it answers with what it has now. The
server never waits longer than WAIT_LIMIT_SECONDS for an answer, and a client that fails
to answer costs the run nothing but the note.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from pygls.lsp.server import LanguageServer

from .. import protocol as p
from .wire import to_plain

log = logging.getLogger(__name__)

WAIT_LIMIT_SECONDS = 12.0
"""The longest the server waits for an answer (clients wait at most 10 s themselves)."""


class EditorDiagnostics:
    def __init__(self, ls: LanguageServer) -> None:
        self._ls = ls

    def supported(self) -> bool:
        experimental: Any = self._ls.client_capabilities.experimental
        section = experimental.get(p.SETTINGS_SECTION) if isinstance(experimental, dict) else None
        return bool(isinstance(section, dict) and section.get(p.DIAGNOSTICS_CAPABILITY) is True)

    async def fetch(self, uris: Sequence[str], wait: bool) -> dict[str, list[Any]] | None:
        """Diagnostics by URI as the client sent them (LSP Diagnostic objects), or None
        when the client cannot answer (no capability, an error, too slow)."""
        if not uris or not self.supported():
            return None
        params = {"uris": list(uris), "wait": wait}
        try:
            answer = await asyncio.wait_for(
                self._ls.protocol.send_request_async(p.DIAGNOSTICS_REQUEST, params),
                WAIT_LIMIT_SECONDS,
            )
        except asyncio.TimeoutError:
            log.warning("the editor did not report diagnostics within %.0f s", WAIT_LIMIT_SECONDS)
            return None
        except Exception as exc:  # the run goes on without the note
            log.warning("the editor could not report diagnostics: %s", exc)
            return None
        return _by_uri(to_plain(answer), set(uris))


def _by_uri(answer: Any, asked: set[str]) -> dict[str, list[Any]] | None:
    if not isinstance(answer, list):
        log.warning("unexpected answer to %s: %r", p.DIAGNOSTICS_REQUEST, answer)
        return None
    found: dict[str, list[Any]] = {}
    for entry in answer:
        if not isinstance(entry, dict):
            continue
        uri, diagnostics = entry.get("uri"), entry.get("diagnostics")
        if uri in asked and isinstance(diagnostics, list):
            found[uri] = diagnostics
    return found
