"""The MCP servers of an ACP session: the client's `mcpServers` (stdio; http, which we
advertise in `mcpCapabilities`; sse is not advertised, so such entries are skipped) plus
the user's own mcp.json. A workspace's candidates start only when trusted in the editor.

State changes (ready with N tools, failed: reason) reach the client as quoted agent
message lines, like the run's notices. Without any server nothing of MCP is imported.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..agent.front_end import mcp_runtime

if TYPE_CHECKING:
    from ..mcp.runtime import McpRuntime

log = logging.getLogger(__name__)

UNTRUSTED = (
    "from {where}: not trusted (approve it in VS Code, or add it to your editor's MCP servers)"
)


def session_mcp(
    entries: list[Any] | None, root: Path, notify: Callable[[str], None]
) -> McpRuntime | None:
    """The session's MCP runtime (not started yet: `refresh` starts the servers), or None
    when no server is configured anywhere."""
    servers, problems = _from_client(entries or [], root) if entries else ([], [])
    for problem in problems:
        log.warning("%s", problem)
    return mcp_runtime(
        root,
        first=servers,
        first_problems=problems,
        state_lines=notify,
        untrusted_hint=UNTRUSTED,
    )


def _from_client(entries: list[Any], root: Path) -> tuple[list[Any], list[str]]:
    from ..mcp.config import ConfigError, parse_entry

    servers, problems = [], []
    for entry in entries:
        raw = entry.model_dump(by_alias=True) if hasattr(entry, "model_dump") else dict(entry)
        name = str(raw.get("name", "?"))
        kind = raw.get("type") or "stdio"
        if kind not in ("stdio", "http"):
            problems.append(f"MCP server {name}: {kind} servers are not supported (skipped)")
            continue
        config = {k: raw.get(k) for k in ("command", "args", "env", "url", "headers", "type")}
        config = {k: v for k, v in config.items() if v is not None}
        config.setdefault("type", kind)
        try:
            server = parse_entry(
                name, config, source="acp", origin="the ACP client (session/new)", root=root
            )
        except ConfigError as exc:
            problems.append(f"MCP server {name} from the ACP client skipped: {exc}")
            continue
        if server is not None:
            servers.append(server)
    return servers, problems
