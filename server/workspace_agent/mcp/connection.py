"""One MCP server: its own long-lived task, its state, its tools, its calls.

The SDK's `Client` uses anyio task groups and cancel scopes, so it is entered and left in
one task (`_main`) that lives as long as the server; calls are made from the runs' tasks.
The task starts the server in the background: a run never waits for it, and a server
that is not ready after its startup timeout is stopped and shown as failed. The timeout
counts from when the SDK is imported (sdk.py: after the anthropic SDK's import, so it is
the server's start that is timed, not the imports of a busy first second). While ready,
the task re-lists the tools on `notifications/tools/list_changed` and pings the server
every few seconds, so one that died is shown as failed and its tools leave the map.
Stopping leaves the `async with` (the SDK closes stdin, then terminates the process tree,
shielded from cancellation), so no server process outlives us.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import time
import warnings
from collections.abc import Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..contract import McpState
from ..shared import host_programs
from ..shared.errors import ToolError
from . import sdk
from .config import ServerConfig
from .list_changed_tap import tapped

if TYPE_CHECKING:
    from .. import contract

log = logging.getLogger(__name__)

State = McpState
"""What the connection is doing (of the contract's McpState, it takes starting, ready,
failed and stopped)."""
PING_SECONDS = 2.0
CONNECTION_CLOSED = -32000  # mcp_types.jsonrpc.CONNECTION_CLOSED


class Connection:
    def __init__(
        self,
        config: ServerConfig,
        root: Path | None,
        on_change: Callable[[Connection], None],
    ) -> None:
        self.config = config
        self.root = root
        self.state: State = "starting"
        self.reason: str | None = None
        self.tools: list[Any] = []
        """The server's tool definitions (mcp types Tool), as last listed."""
        self._on_change = on_change
        self._client: Any = None
        self._task: asyncio.Task[None] | None = None
        self._refresh = asyncio.Event()
        self._stop = asyncio.Event()
        self._settled = asyncio.Event()
        self._timer: asyncio.TimerHandle | None = None
        self._modern = False
        self._listing = asyncio.Lock()
        self._scope: Any = None
        self.started_at = time.monotonic()
        """When it was (last) started: a run's first request waits from then on, bounded."""

    @property
    def name(self) -> str:
        return self.config.name

    def start(self) -> None:
        self.started_at = time.monotonic()
        loop = asyncio.get_running_loop()
        self._task = loop.create_task(self._main(), name=f"mcp server {self.name}")

    async def settled(self, timeout: float) -> None:
        """Wait (at most `timeout`) until the server is ready or failed (`mcp list`; a run's
        first request, bounded by the setting mcp.startupWaitSeconds)."""
        try:
            await asyncio.wait_for(self._settled.wait(), timeout)
        except asyncio.TimeoutError:
            pass

    async def stop(self) -> None:
        self._stop.set()
        if self._timer is not None:
            self._timer.cancel()
        task = self._task
        if task is None:
            return
        if self.state == "starting":  # nothing to wait for: the SDK ends the process
            self._cancel()
        try:
            await asyncio.wait_for(asyncio.shield(task), 8.0)
        except asyncio.TimeoutError:
            self._cancel()
        except (asyncio.CancelledError, Exception):  # its end was already reported
            pass
        if not task.done():
            try:
                await task
            except (asyncio.CancelledError, Exception):
                pass
        if self.state != "failed":
            self._set("stopped")

    async def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        """The server's CallToolResult; ToolError when the call could not be made."""
        client = self._client
        if self.state != "ready" or client is None:
            raise ToolError(f"the MCP server {self.name} is {self.describe_state()}")
        timeout = self.config.call_timeout
        try:
            result = await client.call_tool(tool, arguments, read_timeout_seconds=timeout)
            await self._sync_tools()
            return result
        except Exception as exc:
            code = getattr(exc, "code", None)
            if code == CONNECTION_CLOSED:
                self._fail("the server exited")
                raise ToolError(f"the MCP server {self.name} exited during the call") from None
            if "timed out" in str(exc):
                raise ToolError(
                    f"{tool} of the MCP server {self.name} did not answer within "
                    f"{timeout:g} s; the call was cancelled (the server keeps running)"
                ) from None
            raise ToolError(f"the MCP server {self.name} refused the call: {exc}") from None

    @property
    def protocol_version(self) -> str | None:
        """The MCP protocol version the session speaks (`2025-11-25`...), once ready."""
        client = self._client
        return str(client.protocol_version) if client is not None else None

    def describe_state(self) -> str:
        if self.state == "ready":
            return f"ready ({len(self.tools)} tools)"
        if self.state == "failed":
            return f"failed: {self.reason}"
        return self.state

    def to_wire(self) -> contract.McpServerState:
        ready = self.state == "ready"
        return state_wire(
            self.config,
            self.state,
            self.reason,
            [str(tool.name) for tool in self.tools] if ready else [],
        )

    # -- the server's task ---------------------------------------------------------------

    async def _main(self) -> None:
        try:
            await sdk.loaded()  # off the event loop, after the anthropic SDK's import
        except Exception as exc:
            self._fail(f"the mcp SDK could not be imported: {_reason(exc)}")
            return
        import anyio

        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(self.config.startup_timeout, self._too_slow)

        # Stopping cancels this anyio scope, never the task: the SDK's shutdown of the
        # server process is shielded against anyio cancellation only.
        with anyio.CancelScope() as self._scope:
            try:
                await self._serve()
            except BaseException as exc:  # ExceptionGroups from anyio included
                if not isinstance(exc, asyncio.CancelledError):
                    self._fail(_reason(exc))
                else:
                    raise
        self._client = None
        self._settled.set()

    async def _serve(self) -> None:
        async with AsyncExitStack() as stack:
            client = await stack.enter_async_context(self._client_of())
            await self._list(client)
            if self._timer is not None:
                self._timer.cancel()
            self._client = client
            self._modern = str(client.protocol_version) >= "2026-07-28"
            self._set("ready")
            if self._modern and _lists_changes(client):
                # 2026-07-28: list_changed comes only on a subscriptions/listen stream
                sub = await stack.enter_async_context(client.listen(tools_list_changed=True))
                reader = asyncio.ensure_future(self._read_events(sub))
                stack.callback(reader.cancel)
            exited = await self._watch(client)
            self._client = None
            if exited:
                self._fail("the server exited")

    def _client_of(self) -> Any:
        from mcp import Client, StdioServerParameters
        from mcp.types import Implementation

        config = self.config
        transport: Any
        if config.transport == "stdio":
            from mcp.client.stdio import stdio_client

            assert config.command is not None
            params = StdioServerParameters(
                command=config.command,
                args=list(config.args),
                # The server's own children are looked up where ours are, not in the
                # workspace (its `npx` runs `node` from PATH), unless its config sets PATH.
                env={"PATH": host_programs.host_path(), **dict(config.env)},
                cwd=config.cwd or (str(self.root) if self.root else None),
            )
            transport = stdio_client(params, errlog=sys.stderr)
        else:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            assert config.url is not None
            http = httpx2.AsyncClient(headers=dict(config.headers)) if config.headers else None
            transport = streamable_http_client(config.url, http_client=http)
        return Client(
            tapped(transport, self._refresh.set),
            client_info=Implementation(name="workspace-agent", version=__version__),
        )

    async def _list(self, client: Any) -> None:
        tools: list[Any] = []
        cursor = None
        for _ in range(100):
            page = await client.list_tools(cursor=cursor, cache_mode="refresh")
            tools += page.tools
            cursor = page.next_cursor
            if not cursor:
                break
        self.tools = tools

    async def _watch(self, client: Any) -> bool:
        """Until stopped (False) or the server is gone (True): re-list on list_changed,
        ping in between."""
        while not self._stop.is_set():
            waiters = [asyncio.ensure_future(e.wait()) for e in (self._stop, self._refresh)]
            try:
                await asyncio.wait(waiters, timeout=PING_SECONDS, return_when="FIRST_COMPLETED")
            finally:
                for waiter in waiters:
                    waiter.cancel()
            if self._stop.is_set():
                return False
            try:
                if self._refresh.is_set() or self._modern:
                    # 2026-07-28 sessions have no ping: listing again is the probe too.
                    await self._relist(client)
                else:
                    with warnings.catch_warnings():  # deprecated for 2026 sessions only
                        warnings.simplefilter("ignore")
                        ping = client.send_ping()
                    await ping
            except Exception as exc:
                if getattr(exc, "code", None) == CONNECTION_CLOSED:
                    return True
                log.debug("MCP server %s: %s", self.name, exc)
        return False

    async def _read_events(self, subscription: Any) -> None:
        try:
            async for _event in subscription:  # the tap has seen it: drain the backlog
                pass
        except Exception as exc:  # the stream was lost: the probe finds out why
            log.debug("MCP server %s: listen ended: %s", self.name, exc)

    async def _sync_tools(self) -> None:
        """Re-list now if the server said its tools changed (during the call, say), so
        the next model turn sees the new map. The tap (list_changed_tap.py) has seen a
        change sent ahead of the result by the time the call returns: the common case,
        no change, costs no task switch."""
        client = self._client
        if self._refresh.is_set() and client is not None:
            await self._relist(client)
        elif self._listing.locked():  # a re-list under way (the watch loop's) ends first
            async with self._listing:
                pass

    async def _relist(self, client: Any) -> None:
        async with self._listing:
            self._refresh.clear()
            before = [t.name for t in self.tools]
            await self._list(client)
            if [t.name for t in self.tools] != before:
                self._on_change(self)

    def _too_slow(self) -> None:
        if self.state == "starting":
            self._fail(f"did not start within {self.config.startup_timeout:g} s")
            self._cancel()

    def _cancel(self) -> None:
        if self._scope is not None:
            self._scope.cancel()
        elif self._task is not None:  # still waiting for the SDK: nothing is running yet
            self._task.cancel()

    def _fail(self, reason: str) -> None:
        if self.state == "failed":
            return
        self.reason = reason
        self.tools = []
        self._set("failed")
        self._settled.set()

    def _set(self, state: State) -> None:
        self.state = state
        if state != "starting":
            self._settled.set()
        log.info("MCP server %s: %s", self.name, self.describe_state())
        try:
            self._on_change(self)
        except Exception:
            log.exception("MCP state listener failed")


def state_wire(
    config: ServerConfig, state: contract.McpState, reason: str | None, tool_names: list[str]
) -> contract.McpServerState:
    """One server as `workspaceAgent/mcpServers` lists it (docs/protocol.md)."""
    return {
        "name": config.name,
        "source": config.source,
        "origin": config.origin,
        "state": state,
        "tools": len(tool_names),
        "reason": reason,
        "toolNames": tool_names,
        "detail": config.describe(),
        "fingerprint": config.fingerprint(),
    }


def _reason(exc: BaseException) -> str:
    """The first real error inside anyio's exception groups, in one line."""
    while getattr(exc, "exceptions", None):
        exc = exc.exceptions[0]  # type: ignore[attr-defined]
    if isinstance(exc, FileNotFoundError) and exc.filename:
        return f"command not found: {exc.filename}"
    if isinstance(exc, PermissionError) and exc.filename:
        return f"command not executable: {exc.filename}"
    text = str(exc) or type(exc).__name__
    return " ".join(text.split())[:300]


def _lists_changes(client: Any) -> bool:
    tools = getattr(client.server_capabilities, "tools", None)
    return bool(getattr(tools, "list_changed", False))
