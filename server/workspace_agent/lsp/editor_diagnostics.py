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
from pathlib import Path
from typing import Any

from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from .. import protocol as p
from ..protocol import ContextDiagnostic, ProtocolError
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

    async def ask(self, params: dict[str, Any]) -> Any:
        """The client's plain answer to workspaceAgent/diagnostics, or None when it failed."""
        try:
            answer = await asyncio.wait_for(
                self._ls.protocol.send_request_async(p.DIAGNOSTICS_REQUEST, params),
                WAIT_LIMIT_SECONDS,
            )
        except Exception as exc:  # TimeoutError included
            log.warning("the editor could not report its problems: %s", exc)
            return None
        return to_plain(answer)


async def workspace_problems(
    editor: EditorDiagnostics, root: Path | None
) -> list[ContextDiagnostic] | None:
    """Every problem the editor knows in the workspace (`all`), errors first, for a prompt's
    `@problems`; None when the client does not report problems or could not answer."""
    if root is None or not editor.supported():
        return None
    params = {"uris": [], "all": True, "wait": False}
    answer = await editor.ask(params)
    if not isinstance(answer, list):
        return None
    found: list[ContextDiagnostic] = []
    for entry in answer:
        if not isinstance(entry, dict) or not isinstance(entry.get("diagnostics"), list):
            continue
        path = _relative(str(entry.get("uri", "")), root)
        for raw in entry["diagnostics"] if path else ():
            try:
                found.append(ContextDiagnostic.from_wire({**raw, "path": path}, "diagnostic"))
            except (ProtocolError, TypeError):
                continue  # not a diagnostic we can show
    return sorted(found, key=lambda item: (item.severity or 9, item.path))


def _relative(uri: str, root: Path) -> str | None:
    """The workspace path of a file: URI inside `root`, else None."""
    fs_path = to_fs_path(uri) if uri.startswith("file:") else None
    if not fs_path:
        return None
    try:
        return Path(fs_path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None


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
