"""`workspace-agent mcp list`: the MCP servers a headless run would see, and their state.

Servers from the user's config (and workspace ones named with --mcp, or trusted in the
editor) are started, given up to their startup timeout, listed with their tools' names,
and stopped again; untrusted workspace candidates are listed, never started.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from ..config import user_config_dir


async def list_servers(root: Path, named: tuple[str, ...]) -> int:
    from ..agent.settings_file import file_mcp_servers
    from ..mcp import sdk
    from ..mcp.runtime import McpRuntime

    servers_setting, origin = file_mcp_servers()  # settings.json's mcp.servers
    runtime = McpRuntime(
        user_config_dir(), named=named, editor=lambda: servers_setting, editor_origin=origin
    )
    servers = runtime.refresh(root)
    try:
        if servers.connections:  # their startup timeouts count from the SDK's import
            with contextlib.suppress(Exception):  # a failed import is each server's failure
                await sdk.loaded()
        await asyncio.gather(
            *(c.settled(c.config.startup_timeout + 1) for c in servers.connections.values())
        )
        tools = servers.tools()
        if not servers.connections and not servers.not_started and not servers.disabled:
            print("no MCP servers configured")
        for connection in servers.connections.values():
            config = connection.config
            where = f"[{config.source}: {config.origin}]"
            print(f"{connection.name}  {where}  {connection.describe_state()}")
            for name in tools:
                if servers.reverse[name][0] == connection.name:
                    print(f"    {name}")
        for server, why in servers.not_started.values():
            print(f"{server.name}  [{server.source}: {server.origin}]  not started: {why}")
            print(f"    runs: {server.describe()}")
        for server in servers.disabled.values():
            print(f"{server.name}  [{server.source}: {server.origin}]  disabled (in the editor)")
        for problem in servers.problems:
            print(f"problem: {problem}")
        failed = any(c.state == "failed" for c in servers.connections.values())
    finally:
        await runtime.shutdown()
    return 1 if failed else 0
