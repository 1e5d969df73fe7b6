"""The language server's features with lifecycle hooks (as esbonio's `LanguageFeature`):
the server lists its features once (MCP servers, the sandbox state, following the
agent's edits) and calls each hook on every one of them, in that order, at its point of
the lifecycle. A feature gets what it needs of the server as a `FeatureHost` (a narrow
Protocol, never the server class), so no feature imports lsp/server.py.

Invariant: a new feature that reacts to the lifecycle is one `LanguageFeature` in the
server's list; the handlers of `initialized`, `workspace/didChangeConfiguration` and
`shutdown` name no feature.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..config import AgentSettings


class FeatureHost(Protocol):
    """What of the language server a feature may use."""

    def workspace_root(self) -> Path | None: ...

    def settings_for(self, root: Path) -> AgentSettings: ...

    def quick_settings(self) -> AgentSettings: ...

    def notify(self, method: str, payload: Any) -> None:
        """Send a notification to the client (raises when the connection is going away)."""
        ...


class LanguageFeature:
    """A part of the server that reacts to the lifecycle; every hook does nothing unless
    the feature overrides it."""

    def initialized(self) -> None:
        """The client is ready (`initialized`). The editor's settings may still be on
        their way: when the server has to ask for them, `settings_changed` follows with
        the answer; otherwise it follows at once."""

    def settings_changed(self) -> None:
        """The editor's settings are known anew: at `initialized`, from a pull, or pushed
        with `workspace/didChangeConfiguration`."""

    async def shutdown(self) -> None:
        """`shutdown`, or any other way the process ends (Lifetime): stop what runs."""
