"""The language servers the user configured, as one source of answers (shared/code_intel.py)
for the CLI, ACP and editors that do not answer themselves.

Each server starts at the first question about a file it serves (workspace_symbols
without a file asks them all), in the sandbox (launching.py), and lives until the agent
stops (`stop`). A file asked about is opened with the text the agent sees (the editor's
buffer or the disk) for that request and closed after it, so the server never holds a
stale copy; the other files it reads from disk.

A server that stops is started again at the next call, once; a second stop ends its use
until the agent restarts, and every call says so and why (its exit status and last words).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..shared.code_intel import Operation
from ..shared.errors import ToolError
from .client import LspProcess, ResponseError, ServerStopped
from .config import ServerSpec
from .uris import to_uri

if TYPE_CHECKING:
    from ..sandbox.launch import Launch

log = logging.getLogger(__name__)

Launcher = Callable[[ServerSpec], Awaitable["Launch"]]
"""How a server's process is launched in this run (the sandbox, its network questions)."""

METHODS: dict[str, str] = {
    "definition": "textDocument/definition",
    "references": "textDocument/references",
    "implementations": "textDocument/implementation",
    "hover": "textDocument/hover",
    "document_symbols": "textDocument/documentSymbol",
}
MAX_CALL_ITEMS = 5
"""Call hierarchy items asked about at one place (overloads); more are left out."""


@dataclass
class _Server:
    spec: ServerSpec
    process: LspProcess | None = None
    stops: int = 0
    gone: str | None = None
    """Set once it stopped twice: why, for every later call."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    opened: dict[str, int] = field(default_factory=dict)
    """Documents open in the server now, by URI, with how many calls hold them (calls run
    side by side: a document is opened once and closed by the last)."""


class LanguageServers:
    """The configured servers of one workspace, kept across runs."""

    def __init__(self, root: Path, specs: tuple[ServerSpec, ...]) -> None:
        self.root = root
        self.specs = specs
        self._servers = {spec.name: _Server(spec) for spec in specs}

    def for_run(self, launcher: Launcher) -> ConfiguredIntel:
        return ConfiguredIntel(self, launcher)

    def pids(self) -> dict[str, int]:
        """The running servers' process ids (tests, and a front end's status)."""
        return {
            name: server.process.pid
            for name, server in self._servers.items()
            if server.process is not None and server.process.alive and server.process.pid
        }

    async def stop(self) -> None:
        for server in self._servers.values():
            process, server.process = server.process, None
            if process is not None:
                await process.stop()

    def server_for(self, path: Path) -> _Server | None:
        spec = next((spec for spec in self.specs if spec.handles(path)), None)
        return self._servers[spec.name] if spec is not None else None

    def all(self) -> list[_Server]:
        return list(self._servers.values())

    async def running(self, server: _Server, launcher: Launcher) -> LspProcess:
        """The server's process, started (again, once after a stop) when it is not running."""
        async with server.lock:
            if server.gone is not None:
                raise ToolError(server.gone)
            process = server.process
            if process is not None and process.alive:
                return process
            if process is not None:  # it stopped between two calls
                self._stopped(server, process.why_stopped())
                await process.stop()
            process = LspProcess(server.spec.name, await launcher(server.spec), self.root)
            server.process = process
            server.opened.clear()
            try:
                await process.start(server.spec.initialization_options)
            except (ServerStopped, ResponseError) as exc:
                await process.stop()
                server.process = None
                raise ToolError(self._stopped(server, str(exc), starting=True)) from None
            return process

    def _stopped(self, server: _Server, why: str, starting: bool = False) -> str:
        """Count a stop; the sentence that says what happened and what comes next."""
        server.stops += 1
        name = f"language server `{server.spec.name}`"
        event = "could not start" if starting else "stopped"
        if server.stops >= 2:
            server.gone = (
                f"{name} {event} again ({why}); it is not started again until the agent "
                f"restarts. Check its command ({' '.join(server.spec.command)}) in a terminal, "
                "or use search and read_file meanwhile"
            )
            log.warning("%s", server.gone)
            return server.gone
        return (
            f"{name} {event} ({why}); it is started again at the next call (once: a second "
            "stop ends its use until the agent restarts)"
        )

    async def call(
        self,
        server: _Server,
        launcher: Launcher,
        method: str,
        params: Any,
        opened: tuple[Path, str] | None = None,
    ) -> Any:
        process = await self.running(server, launcher)
        uri = None
        if opened is not None:
            path, text = opened
            uri = to_uri(path)
            item = {
                "uri": uri,
                "languageId": server.spec.language_of(path),
                "version": 1,
                "text": text,
            }
            process.notify("textDocument/didOpen", {"textDocument": item})
        try:
            return await process.request(method, params)
        except ServerStopped as exc:
            if process.alive:  # too slow, not gone
                raise ToolError(f"language server `{server.spec.name}`: {exc}") from None
            async with server.lock:
                if server.process is process:
                    server.process = None
                    message = self._stopped(server, str(exc))
                else:
                    message = server.gone or f"language server `{server.spec.name}` stopped"
            await process.stop()
            raise ToolError(message) from None
        except ResponseError as exc:
            if exc.code == -32601:
                raise ToolError(
                    f"language server `{server.spec.name}` does not offer {method}; "
                    "references and definition may still answer"
                ) from None
            raise ToolError(
                f"language server `{server.spec.name}` could not answer {method}: {exc.message}"
            ) from None
        finally:
            if uri is not None:
                held = server.opened.get(uri, 0) - 1
                if held > 0:
                    server.opened[uri] = held
                else:  # the last call that held it (or the process was started anew)
                    server.opened.pop(uri, None)
                    process.notify("textDocument/didClose", {"textDocument": {"uri": uri}})


class ConfiguredIntel:
    """The servers as one run asks them (its launcher: its sandbox and its questions)."""

    def __init__(self, servers: LanguageServers, launcher: Launcher) -> None:
        self._servers = servers
        self._launcher = launcher
        names = ", ".join(f"`{s.name}` ({' '.join(s.extensions)})" for s in servers.specs)
        self.name = f"the configured language servers: {names}"

    def handles(self, path: Path) -> bool:
        return self._servers.server_for(path) is not None

    def _server(self, path: Path) -> _Server:
        server = self._servers.server_for(path)
        if server is None:
            raise ToolError(
                f"no configured language server serves {path.suffix or path.name} files"
            )
        return server

    async def ask(
        self,
        operation: Operation,
        path: Path,
        position: dict[str, int] | None,
        query: str | None,
        text: str,
    ) -> Any:
        call = self._servers.call
        if operation == "workspace_symbols":
            servers = [self._server(path)] if path != self._servers.root else self._servers.all()
            found: list[Any] = []
            for server in servers:
                answer = await call(server, self._launcher, "workspace/symbol", {"query": query})
                found.extend(answer or [])
            return found
        server = self._server(path)
        document = {"textDocument": {"uri": to_uri(path)}}
        opened = (path, text)
        if operation in ("incoming_calls", "outgoing_calls"):
            items = await call(
                server,
                self._launcher,
                "textDocument/prepareCallHierarchy",
                {**document, "position": position},
                opened,
            )
            method = (
                "callHierarchy/incomingCalls"
                if operation == "incoming_calls"
                else "callHierarchy/outgoingCalls"
            )
            calls: list[Any] = []
            for item in (items or [])[:MAX_CALL_ITEMS]:
                calls.extend(await call(server, self._launcher, method, {"item": item}) or [])
            return calls
        params: dict[str, Any] = dict(document)
        if position is not None:
            params["position"] = position
        if operation == "references":
            params["context"] = {"includeDeclaration": True}
        return await call(server, self._launcher, METHODS[operation], params, opened)

    async def rename(
        self, path: Path, position: dict[str, int], new_name: str, text: str
    ) -> dict[str, Any] | None:
        server = self._server(path)
        params = {"textDocument": {"uri": to_uri(path)}, "position": position, "newName": new_name}
        answer: dict[str, Any] | None = await self._servers.call(
            server, self._launcher, "textDocument/rename", params, (path, text)
        )
        return answer
