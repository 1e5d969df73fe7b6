"""Whether a run gets `code_intel` and `rename_symbol`, and who answers them: the editor
when its client announced it can (lsp/editor_code_intel.py), else the language servers the
user configured (`lspServers`, `.lsp.json`), kept across runs here and stopped when the
agent ends. Neither: no tool, and nothing of code_intel/ imported. Composed into the run
by sessions.py, as run_extras.py composes skills and subagents.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .. import protocol as p
from ..config import user_config_dir
from ..guard.approvals import Approvals
from ..shared.observers import RunScope
from ..tools.base import Tool

if TYPE_CHECKING:
    from ..code_intel.servers import LanguageServers
    from ..shared.code_intel import CodeIntel


class CodeIntelOffer:
    def __init__(self, editor: Callable[[], CodeIntel | None] | None = None) -> None:
        self._editor = editor
        self._servers: LanguageServers | None = None
        """The configured language servers (code_intel/servers.py), made at first use."""

    async def tools(self, scope: RunScope, approvals: Approvals) -> dict[str, Tool]:
        """The two tools over the run's source; {} when nobody can answer. A problem in
        the servers' configuration is a notice of the run."""
        source = self._editor() if self._editor is not None else None
        if source is None:
            source = await self._configured(scope, approvals)
        if source is None:
            return {}
        from ..code_intel.tools import code_intel_tools

        return code_intel_tools(source)

    async def _configured(self, scope: RunScope, approvals: Approvals) -> CodeIntel | None:
        settings = scope.settings
        if not settings.lsp_servers and not (user_config_dir() / ".lsp.json").is_file():
            return None
        from ..code_intel.config import configured
        from ..code_intel.launching import launcher

        found = configured(settings.lsp_servers, user_config_dir())
        for problem in found.problems:
            scope.events.emit(p.EVENT_NOTICE, message=problem)
        servers = self._servers
        if servers is None or servers.root != scope.root or servers.specs != found.servers:
            if servers is not None:  # the settings changed: the old ones go
                await servers.stop()
            from ..code_intel.servers import LanguageServers

            servers = self._servers = LanguageServers(scope.root, found.servers)
        if not servers.specs:
            return None
        return servers.for_run(launcher(scope.root, scope.session.id, settings, approvals))

    async def stop(self) -> None:
        """Stop the language servers the agent started (the agent is ending)."""
        servers, self._servers = self._servers, None
        if servers is not None:
            await servers.stop()
