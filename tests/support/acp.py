"""Driving `workspace-agent acp` over real stdio with the ACP package's own client side.

`EditorClient` plays the editor the way ACP clients such as Zed do: it records every
`session/update`, answers `session/request_permission` with the option a test chose, and
(when it advertises `fs`) serves `fs/read_text_file` from its open buffers (unsaved text
wins; other files come from disk; a missing file is a "Resource not found" error) and
applies `fs/write_text_file` to the buffer and saves it to disk.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from acp import RequestError, spawn_agent_process, text_block
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    ReadTextFileResponse,
    RequestPermissionResponse,
)

from workspace_agent.testing.scripted_model import ScriptedModelServer

from tests.support import warm_start
from tests.support.server import TEST_KEY, server_env


class EditorClient:
    def __init__(self, fs: bool = False, *answers: str | None) -> None:
        self.fs = fs
        self.answers = list(answers) or ["allow_once"]
        """The optionIds picked for permission requests, in order (the last one repeats);
        None: the user dismissed the question."""
        self.updates: list[tuple[str, dict[str, Any]]] = []
        self.permission_requests: list[dict[str, Any]] = []
        self.buffers: dict[str, str] = {}
        """Open documents by absolute path, unsaved changes included."""
        self.reads: list[str] = []
        self.writes: list[tuple[str, str]] = []
        self.cancelled = asyncio.Event()
        """Set by a test when it sends session/cancel: a question still open (the answer
        "wait") is then answered "cancelled", as the protocol asks of clients."""

    def capabilities(self) -> ClientCapabilities:
        return ClientCapabilities(
            fs=FileSystemCapabilities(read_text_file=self.fs, write_text_file=self.fs)
        )

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((session_id, _plain(update)))

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.permission_requests.append(
            {
                "sessionId": session_id,
                "toolCall": _plain(tool_call),
                "options": [_plain(option) for option in options],
            }
        )
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if answer == "wait":
            await self.cancelled.wait()
            answer = None
        if answer is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=answer)
        )

    async def read_text_file(
        self,
        session_id: str,
        path: str,
        line: int | None = None,
        limit: int | None = None,
        **kw: Any,
    ) -> ReadTextFileResponse:
        self.reads.append(path)
        if path in self.buffers:
            return ReadTextFileResponse(content=self.buffers[path])
        content = _disk_text(path)
        if content is None:
            raise RequestError.resource_not_found(path)
        return ReadTextFileResponse(content=content)

    async def write_text_file(self, session_id: str, path: str, content: str, **kw: Any) -> None:
        self.writes.append((path, content))
        self.buffers[path] = content
        _save(path, content)  # editors save what the agent wrote

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        return [u for _, u in self.updates if u["sessionUpdate"] == kind]

    def text(self) -> str:
        return "".join(u["content"]["text"] for u in self.of_kind("agent_message_chunk"))


def _disk_text(path: str) -> str | None:
    file = Path(path)
    return file.read_text(encoding="utf-8") if file.is_file() else None


def _save(path: str, content: str) -> None:
    Path(path).write_text(content, encoding="utf-8")


def real(path: Path) -> Path:
    """The path as the agent reports it (symlinks resolved)."""
    return path.resolve()


def _plain(model: Any) -> dict[str, Any]:
    """A model as the JSON it came from (wire names, no unset fields)."""
    plain: dict[str, Any] = model.model_dump(by_alias=True, exclude_none=True, mode="json")
    return plain


def agent_env(model: ScriptedModelServer, **extra: str) -> dict[str, str]:
    env = server_env(
        ANTHROPIC_API_KEY=TEST_KEY,
        ANTHROPIC_BASE_URL=model.url,
        WORKSPACE_AGENT_BASH_TIMEOUT="20",
    )
    env.update(extra)
    return env


@contextlib.asynccontextmanager
async def acp_agent(
    client: EditorClient,
    workspace: Path,
    env: dict[str, str],
    *args: str,
    log: Path | None = None,
) -> AsyncIterator[tuple[ClientSideConnection, Any]]:
    """`python -m workspace_agent acp ARGS` on stdio (forked warm: tests/support/warm_start.py),
    initialized; yields (connection, process)."""
    stderr = (log or workspace.parent / "agent.log").open("ab")
    program, *rest = warm_start.command("acp", *args)
    try:
        async with spawn_agent_process(
            client,  # type: ignore[arg-type]  # the double has what it advertises (fs), no terminals
            program,
            *rest,
            env=env,
            cwd=workspace,
            # The SDK's 2 s before SIGTERM (and 2 more before SIGKILL) is short for a
            # loaded CI machine: its kill then races the agent's own exit.
            transport_kwargs={"stderr": stderr, "shutdown_timeout": 15.0},
        ) as (conn, process):
            await conn.initialize(protocol_version=1, client_capabilities=client.capabilities())
            yield conn, process
    finally:
        stderr.close()


async def prompt(conn: ClientSideConnection, session_id: str, text: str) -> str:
    """Send a text prompt; the stop reason."""
    answer = await conn.prompt(session_id=session_id, prompt=[text_block(text)])
    return str(answer.stop_reason)
