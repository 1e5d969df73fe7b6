"""The MCP servers of one front end (or one ACP session): which run, their states, and
their tools as one map for the agent loop.

`configure` is called with the servers found (sources.py) at the start of every run, so
an edited config applies to the next run: a server whose config is unchanged keeps
running, a changed one is restarted, a removed one is stopped. Which of them may start is
the front end's decision (`may_start`: user-configured ones always, workspace candidates
once trusted). The map is built afresh whenever a server's tools change, so a
list_changed or a crash updates it before the next model turn.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ..tools.base import Tool
from .config import ServerConfig
from .connection import Connection, state_wire
from .names import tool_name
from .tools import build_tool

if TYPE_CHECKING:
    from .. import contract

log = logging.getLogger(__name__)

DISABLED = "turned off by you: Enable (VS Code's MCP Servers view) starts it again"
MANY_TOOLS = 40
"""Past this many MCP tool definitions the user is told (each one costs tokens per turn)."""


class McpServers:
    def __init__(
        self,
        root: Path | None,
        on_change: Callable[[list[contract.McpServerState]], None] = lambda states: None,
        reserved: Iterable[str] = (),
    ) -> None:
        self.root = root
        self.connections: dict[str, Connection] = {}
        self.not_started: dict[str, tuple[ServerConfig, str]] = {}
        """Servers found but not started, with why (a candidate not trusted yet)."""
        self.disabled: dict[str, ServerConfig] = {}
        """Servers found that the user disabled (disabled.py): never started nor asked about."""
        self.problems: list[str] = []
        self._on_change = on_change
        self._reserved = frozenset(reserved)
        self._tools: dict[str, Tool] | None = None
        self._stopping: set[asyncio.Task[None]] = set()
        self.reverse: dict[str, tuple[str, str]] = {}
        """Tool name in the map -> (server, the server's own tool name)."""

    def configure(
        self,
        servers: Iterable[ServerConfig],
        may_start: Callable[[ServerConfig], str | None] = lambda server: None,
        problems: Iterable[str] = (),
        disabled: Callable[[ServerConfig], bool] = lambda server: False,
    ) -> list[Connection]:
        """Start what should run and stop the rest; `may_start` returns None or why a
        server is not started (asked only of servers not `disabled`). The stopped ones
        finish in the background."""
        wanted: dict[str, ServerConfig] = {}
        self.not_started = {}
        self.disabled = {}
        self.problems = list(problems)
        for server in servers:
            if disabled(server):
                self.disabled[server.name] = server
                continue
            why_not = may_start(server)
            if why_not is None:
                wanted[server.name] = server
            else:
                self.not_started[server.name] = (server, why_not)
        started = []
        for name, connection in list(self.connections.items()):
            if wanted.get(name) != connection.config:
                del self.connections[name]
                self._stop_later(connection)
        for name, server in wanted.items():
            if name not in self.connections:
                connection = Connection(server, self.root, self._changed)
                self.connections[name] = connection
                connection.start()
                started.append(connection)
        self._tools = None
        self._publish()
        return started

    def tools(self) -> Mapping[str, Tool]:
        """name -> Tool of every ready server's allowed tools (names unique, never a
        built-in's)."""
        if self._tools is None:
            built: dict[str, Tool] = {}
            reverse: dict[str, tuple[str, str]] = {}
            taken = set(self._reserved)
            for connection in self.connections.values():
                if connection.state != "ready":
                    continue
                for definition in connection.tools:
                    if not _allowed(connection.config, str(definition.name)):
                        continue
                    name = tool_name(connection.name, str(definition.name), taken)
                    taken.add(name)
                    built[name] = build_tool(connection, definition, name)
                    reverse[name] = (connection.name, str(definition.name))
            self._tools, self.reverse = built, reverse
        return self._tools

    def starting(self, names: Iterable[str], wait: float) -> list[tuple[Connection, float]]:
        """The servers of `names` still starting that a run may yet wait for, each with the
        seconds left of its `wait` (counted from its start)."""
        now = time.monotonic()
        named = [self.connections[n] for n in names if n in self.connections]
        left = [(c, c.started_at + wait - now) for c in named]
        return [(c, seconds) for c, seconds in left if c.state == "starting" and seconds > 0]

    async def wait_for_starting(self, starting: list[tuple[Connection, float]]) -> None:
        """Until each of `starting` is ready or failed, or its time is up."""
        await asyncio.gather(*(c.settled(seconds) for c, seconds in starting))

    def states(self) -> list[contract.McpServerState]:
        running = [c.to_wire() for c in self.connections.values()]
        waiting = [
            state_wire(server, "not started", why, []) for server, why in self.not_started.values()
        ]
        off = [state_wire(server, "disabled", DISABLED, []) for server in self.disabled.values()]
        return running + waiting + off

    def config(self, name: str) -> ServerConfig | None:
        """The config of a server found, whatever its state."""
        connection = self.connections.get(name)
        if connection is not None:
            return connection.config
        waiting = self.not_started.get(name)
        return waiting[0] if waiting is not None else self.disabled.get(name)

    def summary(self) -> str | None:
        """One line for the start of a run; None without servers."""
        parts = [f"{c.name} {c.describe_state()}" for c in self.connections.values()]
        parts += [f"{s.name} not started: {why}" for s, why in self.not_started.values()]
        parts += [f"{name} disabled" for name in self.disabled]
        parts += [f"skipped: {problem}" for problem in self.problems]
        if not parts:
            return None
        line = "MCP servers: " + "; ".join(parts)
        count = len(self.tools())
        if count > MANY_TOOLS:
            line += (
                f". {count} MCP tool definitions go with every request (more than "
                f"{MANY_TOOLS}): limit them with a server's allowTools / denyTools"
            )
        return line

    async def restart(self, name: str) -> bool:
        """Stop the server and start it again with the same config; False: no such one."""
        connection = self.connections.get(name)
        if connection is None:
            return False
        await connection.stop()
        fresh = Connection(connection.config, self.root, self._changed)
        self.connections[name] = fresh
        fresh.start()
        self._tools = None
        self._publish()
        return True

    async def shutdown(self) -> None:
        """Stop every server and wait until their processes are gone."""
        connections = list(self.connections.values())
        self.connections.clear()
        self._tools = None
        await asyncio.gather(
            *(c.stop() for c in connections), *self._stopping, return_exceptions=True
        )

    def _stop_later(self, connection: Connection) -> None:
        task = asyncio.ensure_future(connection.stop())
        self._stopping.add(task)
        task.add_done_callback(self._stopping.discard)

    def _changed(self, connection: Connection) -> None:
        if self.connections.get(connection.name) is connection:
            self._tools = None
            self._publish()

    def _publish(self) -> None:
        try:
            self._on_change(self.states())
        except Exception:
            log.exception("MCP state listener failed")


def _allowed(config: ServerConfig, tool: str) -> bool:
    if config.allow_tools is not None and tool not in config.allow_tools:
        return False
    return tool not in config.deny_tools
