"""One language server process, spoken to as an LSP client: Content-Length framed
JSON-RPC over its stdin and stdout (the protocol's base layer; the messages are the
protocol's JSON, as the editor's answers are, so no typed layer sits between).

The server's own requests get the answers a minimal client gives (no configuration, no
edits applied by it, progress acknowledged); its notifications are dropped. Its stderr is
kept (the last lines) to say why it stopped. When the process ends every pending request
fails with `ServerStopped`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..tools.process_groups import COMMANDS, kill_tree

if TYPE_CHECKING:
    from ..sandbox.launch import Launch

log = logging.getLogger(__name__)

STDERR_KEPT = 2000
REQUEST_SECONDS = 30.0
"""A request still unanswered after this fails (the server is alive but stuck)."""
STOP_SECONDS = 2.0


class ServerStopped(Exception):
    """The process ended (or could not start): `why` says how, with its last words."""


@dataclass
class ResponseError(Exception):
    code: int
    message: str


class LspProcess:
    def __init__(self, name: str, launch: Launch, root: Path) -> None:
        self.name = name
        self._launch = launch
        self._root = root
        self._proc: asyncio.subprocess.Process | None = None
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._ids = 0
        self._stderr = ""
        self._tasks: list[asyncio.Task[None]] = []
        self.capabilities: dict[str, Any] = {}
        self.on_exit: Callable[[], None] | None = None

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.returncode is None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def why_stopped(self) -> str:
        code = self._proc.returncode if self._proc is not None else None
        status = f"exit status {code}" if code is not None else "it stopped answering"
        said = " ".join(self._stderr.strip().splitlines()[-3:])
        return f"{status}; its last words: {said[-300:]}" if said else status

    async def start(self, initialization_options: Any) -> None:
        launch = self._launch
        try:
            self._proc = await COMMANDS.start(
                asyncio.create_subprocess_exec(
                    *launch.argv,
                    cwd=self._root,
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE,
                    start_new_session=True,
                    env=launch.env,
                    pass_fds=launch.pass_fds,
                    limit=1 << 24,
                )
            )
        except OSError as exc:
            await launch.finished()
            raise ServerStopped(f"its program could not start: {exc}") from None
        launch.started()
        await launch.running()
        self._tasks = [
            asyncio.create_task(self._read()),
            asyncio.create_task(self._drain_stderr()),
        ]
        from .uris import to_uri

        uri = to_uri(self._root)
        answer = await self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "clientInfo": {"name": "workspace-agent"},
                "rootUri": uri,
                "rootPath": str(self._root),
                "workspaceFolders": [{"uri": uri, "name": self._root.name}],
                "initializationOptions": initialization_options,
                "capabilities": CLIENT_CAPABILITIES,
            },
        )
        self.capabilities = (answer or {}).get("capabilities") or {}
        self.notify("initialized", {})

    async def request(self, method: str, params: Any, timeout: float = REQUEST_SECONDS) -> Any:
        if not self.alive:
            raise ServerStopped(self.why_stopped())
        self._ids += 1
        ident = self._ids
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[ident] = future
        self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        try:
            return await asyncio.wait_for(future, timeout)
        except asyncio.TimeoutError:
            self._send({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": ident}})
            raise ServerStopped(
                f"it did not answer {method} within {timeout:.0f} s (it may still be indexing)"
            ) from None
        finally:
            self._pending.pop(ident, None)

    def notify(self, method: str, params: Any) -> None:
        if self.alive:
            self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def stop(self) -> None:
        """shutdown and exit, politely; then its process group is killed either way."""
        proc = self._proc
        if proc is None:
            return
        if self.alive:
            with contextlib.suppress(Exception):
                await self.request("shutdown", None, STOP_SECONDS)
                self.notify("exit", None)
                await asyncio.wait_for(proc.wait(), STOP_SECONDS)
        kill_tree(proc.pid)
        with contextlib.suppress(ProcessLookupError):
            await proc.wait()
        for task in self._tasks:
            task.cancel()
        COMMANDS.finished(proc.pid)
        await self._launch.finished()

    def _send(self, message: dict[str, Any]) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        body = json.dumps(message, ensure_ascii=False).encode("utf-8")
        try:
            self._proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the reader sees it end

    async def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        stream = self._proc.stdout
        try:
            while True:
                length = None
                while True:
                    header = await stream.readline()
                    if not header:
                        return
                    header = header.strip()
                    if not header:
                        break
                    name, _, value = header.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip())
                if length is None:
                    continue
                body = await stream.readexactly(length)
                self._dispatch(json.loads(body))
        except (asyncio.IncompleteReadError, ValueError, ConnectionError) as exc:
            log.warning("language server %s: unreadable output: %s", self.name, exc)
        finally:
            await self._ended()

    async def _ended(self) -> None:
        proc = self._proc
        if proc is not None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(proc.wait(), STOP_SECONDS)
        why = self.why_stopped()
        for future in self._pending.values():
            if not future.done():
                future.set_exception(ServerStopped(why))
        if self.on_exit is not None:
            self.on_exit()

    def _dispatch(self, message: Any) -> None:
        if not isinstance(message, dict):
            return
        if "method" not in message:  # a response
            future = self._pending.get(message.get("id"))  # type: ignore[arg-type]
            if future is None or future.done():
                return
            error = message.get("error")
            if error is not None:
                future.set_exception(ResponseError(error.get("code", 0), error.get("message", "")))
            else:
                future.set_result(message.get("result"))
            return
        if "id" in message:  # the server asks us
            self._send({"jsonrpc": "2.0", "id": message["id"], **_answer(message)})

    async def _drain_stderr(self) -> None:
        assert self._proc is not None and self._proc.stderr is not None
        while chunk := await self._proc.stderr.read(65536):
            self._stderr = (self._stderr + chunk.decode("utf-8", "replace"))[-STDERR_KEPT:]


def _answer(message: dict[str, Any]) -> dict[str, Any]:
    method = message["method"]
    params = message.get("params") or {}
    if method == "workspace/configuration":
        return {"result": [None for _ in params.get("items", [])]}
    if method == "workspace/applyEdit":
        return {"result": {"applied": False, "failureReason": "the agent applies edits itself"}}
    if method in (
        "client/registerCapability",
        "client/unregisterCapability",
        "window/workDoneProgress/create",
        "window/showMessageRequest",
        "workspace/semanticTokens/refresh",
        "workspace/inlayHint/refresh",
        "workspace/diagnostic/refresh",
        "workspace/codeLens/refresh",
    ):
        return {"result": None}
    if method == "workspace/workspaceFolders":
        return {"result": None}
    return {"error": {"code": -32601, "message": f"{method} is not supported by this client"}}


CLIENT_CAPABILITIES: dict[str, Any] = {
    "general": {"positionEncodings": ["utf-16"]},
    "workspace": {
        "workspaceEdit": {"documentChanges": True},
        "symbol": {"dynamicRegistration": False},
        "configuration": True,
        "workspaceFolders": True,
    },
    "textDocument": {
        "synchronization": {"didSave": False},
        "definition": {"linkSupport": True},
        "implementation": {"linkSupport": True},
        "references": {},
        "hover": {"contentFormat": ["markdown", "plaintext"]},
        "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
        "rename": {"prepareSupport": False},
        "callHierarchy": {},
    },
    "window": {"workDoneProgress": False},
}
