"""The editor's code intelligence (workspaceAgent/codeIntel): a client that announced
`experimental.workspaceAgent.codeIntel: true` answers the code_intel and rename_symbol
tools with its own language extensions (shared/code_intel.py). The answer is LSP JSON, as
a language server's; an error answer's message becomes the tool's error.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path

from .. import protocol as p
from ..shared.code_intel import Operation
from ..shared.errors import ToolError
from .wire import to_plain

WAIT_SECONDS = 30.0
"""The longest a tool waits for the editor (a language extension may be indexing)."""


def editor_intel(ls: LanguageServer) -> EditorCodeIntel | None:
    """The editor as a source of answers, when the client announced it can be one."""
    experimental: Any = ls.client_capabilities.experimental
    section = experimental.get(p.SETTINGS_SECTION) if isinstance(experimental, dict) else None
    announced = isinstance(section, dict) and section.get(p.CODE_INTEL_CAPABILITY) is True
    return EditorCodeIntel(ls) if announced else None


class EditorCodeIntel:
    name = "the editor"

    def __init__(self, ls: LanguageServer) -> None:
        self._ls = ls

    def handles(self, path: Path) -> bool:
        return True

    async def ask(
        self,
        operation: Operation,
        path: Path,
        position: dict[str, int] | None,
        query: str | None,
        text: str,
    ) -> Any:
        params: dict[str, Any] = {"operation": operation, "uri": _uri(path)}
        if position is not None:
            params["position"] = position
        if query is not None:
            params["query"] = query
        return await self._send(params)

    async def rename(
        self, path: Path, position: dict[str, int], new_name: str, text: str
    ) -> dict[str, Any] | None:
        params = {"operation": "rename", "uri": _uri(path), "position": position}
        answer = await self._send({**params, "newName": new_name})
        return answer if isinstance(answer, dict) else None

    async def _send(self, params: dict[str, Any]) -> Any:
        try:
            answer = await asyncio.wait_for(
                self._ls.protocol.send_request_async(p.CODE_INTEL_REQUEST, params), WAIT_SECONDS
            )
        except asyncio.TimeoutError:
            raise ToolError(
                f"the editor did not answer {params['operation']} within {WAIT_SECONDS:.0f} s "
                "(its language extension may still be starting); try again, or use search"
            ) from None
        except Exception as exc:  # the client's error answer
            raise ToolError(f"the editor could not answer {params['operation']}: {exc}") from None
        return to_plain(answer)


def _uri(path: Path) -> str:
    return from_fs_path(str(path)) or path.as_uri()
