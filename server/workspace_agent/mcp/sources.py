"""Where MCP servers come from, in precedence order (a name taken by an earlier source
hides the same name later): the ACP client's `mcpServers` (the editor's own list, which
the user saw), the user's config (`mcp.json` in the user config folder, and VS Code's
user-scope setting `workspaceAgent.mcp.servers`), then the workspace's `.vscode/mcp.json`,
`.mcp.json` and `.cursor/mcp.json`: candidates only, started once trusted (trust.py).

Each stdio server's program is then located (`located`): a bare name is looked up on the
PATH of host programs (shared/host_programs.py), never in the workspace; one that exists
only in the workspace, or a path into it, makes the server a candidate whoever configured
it, shown with its full path. The server is started by that absolute path.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..shared import host_programs
from .config import Parsed, ServerConfig, parse_document, parse_file

WORKSPACE_FILES = (".vscode/mcp.json", ".mcp.json", ".cursor/mcp.json")
USER_FILE = "mcp.json"


def discover(
    root: Path | None,
    user_dir: Path,
    *,
    editor: Mapping[str, Any] | None = None,
    first: Sequence[ServerConfig] = (),
    environ: Mapping[str, str] | None = None,
    editor_origin: str = "setting workspaceAgent.mcp.servers",
) -> Parsed:
    """Every configured server, one per name, and the problems found on the way."""
    if root is not None:
        host_programs.protect(root)
    found = Parsed(servers=list(first))
    parts = [parse_file(user_dir / USER_FILE, source="user", root=root, environ=environ)]
    if editor:
        parts.append(
            parse_document(
                {"servers": editor},
                source="editor",
                origin=editor_origin,
                root=root,
                environ=environ,
            )
        )
    if root is not None:
        parts += [
            parse_file(root / name, source="workspace", root=root, environ=environ, origin=name)
            for name in WORKSPACE_FILES
        ]
    for part in parts:
        found.problems += part.problems
        found.servers += part.servers
    seen: set[str] = set()
    unique = []
    for server in found.servers:
        if server.name in seen:
            continue
        seen.add(server.name)
        unique.append(located(server, root))
    found.servers = unique
    return found


def located(server: ServerConfig, root: Path | None) -> ServerConfig:
    """The server with its program as an absolute path, marked when that path is inside
    the workspace (or another place sandboxed commands may write)."""
    command = server.command
    if server.transport != "stdio" or not command:
        return server
    if os.sep in command:
        base = Path(server.cwd) if server.cwd else root
        path = Path(command) if os.path.isabs(command) or base is None else base / command
        inside = host_programs.inside_writable(path)  # the root is one of those places
        return replace(server, command=str(path), program_in_workspace=inside)
    found = host_programs.find(command)
    if found is not None:
        return replace(server, command=found)
    planted = host_programs.planted(command)
    if planted is not None:
        return replace(server, command=planted, program_in_workspace=True)
    return server  # not found anywhere: its start fails with "command not found"


def any_configured(root: Path | None, user_dir: Path, editor: Mapping[str, Any] | None) -> bool:
    """Cheap check (no parsing): is there anything to look at? With nothing, the MCP
    machinery (and the SDK) is never loaded."""
    if editor:
        return True
    paths = [user_dir / USER_FILE] + ([root / n for n in WORKSPACE_FILES] if root else [])
    return any(path.is_file() for path in paths)
