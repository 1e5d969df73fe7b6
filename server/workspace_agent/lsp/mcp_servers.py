"""MCP servers for the language server: found when the client is ready and again at the
start of every run, their states pushed as `workspaceAgent/mcpServers`, workspace
candidates asked about with window/showMessageRequest (EditorAsker), all stopped on
`shutdown` and on every other way out (Lifetime).

Until a server is configured somewhere (the user's mcp.json, the user-scope setting
`workspaceAgent.mcp.servers`, a workspace file) nothing of MCP is imported and the
dispatch map is the built-in one.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import protocol as p
from ..config import AgentSettings, user_config_dir
from .features import FeatureHost, LanguageFeature

if TYPE_CHECKING:
    from .. import contract
    from ..guard.approvals import Asker
    from ..mcp.runtime import McpRuntime
    from ..shared.observers import RunObserver, RunScope
    from ..tools.base import Tool

log = logging.getLogger(__name__)


class LspMcp(LanguageFeature):
    def __init__(self, server: FeatureHost, asker: Callable[[], Asker]) -> None:
        self._server = server
        self._asker = asker
        self.runtime: McpRuntime | None = None
        self._started_with: AgentSettings | None = None

    def initialized(self) -> None:
        # Configured MCP servers start in the background, with the settings known now (a
        # server from settings pulled later starts when they come, or with the first run).
        self.start()

    def settings_changed(self) -> None:
        # A server added to (or removed from) mcp.servers: at once. Settings that are the
        # ones the servers were started with (a settings change that changed nothing)
        # start nothing again.
        if self._server.quick_settings() is not self._started_with:
            self.start()

    def start(self) -> None:
        """Start the configured servers in the background (and stop the removed ones)."""
        self._started_with = self._server.quick_settings()
        root = self._server.workspace_root()
        runtime = self._ensure(root)
        if runtime is not None:
            runtime.refresh(root)

    def observer(self, scope: RunScope) -> RunObserver | None:
        runtime = self._ensure(scope.root)
        return runtime.observer(scope) if runtime is not None else None

    def tools(self, _session_id: str) -> Mapping[str, Tool]:
        return self.runtime.tools() if self.runtime is not None else {}

    def states(self) -> list[contract.McpServerState]:
        servers = self.runtime.servers if self.runtime is not None else None
        return servers.states() if servers is not None else []

    async def act(self, method: str, params: p.McpServerParams) -> contract.McpServersPayload:
        """One of the MCP Servers view's requests; answers the states after it. Raises
        McpActionError (the message says what to do instead)."""
        from ..mcp.runtime import McpActionError

        root = self._server.workspace_root()
        runtime = self._ensure(root)
        if runtime is None:
            raise McpActionError(
                f"there is no MCP server named {params.name!r} (none is configured); add "
                "one to the workspaceAgent.mcp.servers setting or to mcp.json in your user "
                "config folder",
                "openSettings",
            )
        if method == p.MCP_RESTART_REQUEST:
            await runtime.restart(root, params.name)
        elif method == p.MCP_TRUST_REQUEST:
            assert params.fingerprint is not None
            runtime.trust_server(root, params.name, params.fingerprint)
        else:
            assert params.enabled is not None
            runtime.set_enabled(root, params.name, params.enabled)
        return {"servers": self.states()}

    async def shutdown(self) -> None:
        if self.runtime is not None:
            await self.runtime.shutdown()

    def _ensure(self, root: Path | None) -> McpRuntime | None:
        if self.runtime is not None:
            return self.runtime
        from ..mcp.sources import any_configured

        user_dir = user_config_dir()
        if not any_configured(root, user_dir, self._editor_servers()):
            return None
        from ..mcp.runtime import McpRuntime

        self.runtime = McpRuntime(
            user_dir,
            asker=self._asker(),
            editor=self._editor_servers,
            on_change=self._publish,
        )
        return self.runtime

    def _editor_servers(self) -> Mapping[str, Any] | None:
        """`workspaceAgent.mcp.servers` (VS Code's mcp.json `servers` shape), user scope."""
        raw = self._server.quick_settings().mcp_servers
        value = json.loads(raw) if raw else None
        return value if isinstance(value, Mapping) and value else None

    def _publish(self, states: list[contract.McpServerState]) -> None:
        try:
            self._server.notify(p.MCP_SERVERS_NOTIFICATION, {"servers": states})
        except Exception:  # the connection is going away
            log.debug("could not send the MCP server states", exc_info=True)
