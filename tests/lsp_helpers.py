"""Helpers for end-to-end tests: collect the server's custom notifications, send runs."""

from __future__ import annotations

import asyncio
import itertools
import os
import time
from pathlib import Path
from typing import Any

import psutil
from pytest_lsp import LanguageClient

from workspace_agent import protocol as p
from workspace_agent.lsp.wire import to_plain


def record_notifications(client: LanguageClient) -> None:
    """Keep every workspaceAgent/event, workspaceAgent/todos and workspaceAgent/changes
    payload, in order, as plain dicts (`client.events` with the time they arrived,
    `client.todos`, `client.changes`), and the order of all of them (`client.arrivals`:
    "changes", "todos" or the event's kind); workspaceAgent/sandbox in `client.sandbox`."""
    client.arrivals = []  # type: ignore[attr-defined]
    client.events = []  # type: ignore[attr-defined]
    client.todos = []  # type: ignore[attr-defined]
    client.changes = []  # type: ignore[attr-defined]
    client.sandbox = []  # type: ignore[attr-defined]

    @client.feature(p.SANDBOX_NOTIFICATION)
    def on_sandbox(params: Any) -> None:
        client.sandbox.append(to_plain(params))  # type: ignore[attr-defined]

    @client.feature(p.EVENT_NOTIFICATION)
    def on_event(params: Any) -> None:
        client.events.append({**to_plain(params), "_at": time.monotonic()})  # type: ignore[attr-defined]
        client.arrivals.append(client.events[-1]["kind"])  # type: ignore[attr-defined]

    @client.feature(p.TODOS_NOTIFICATION)
    def on_todos(params: Any) -> None:
        client.todos.append(to_plain(params))  # type: ignore[attr-defined]
        client.arrivals.append("todos")  # type: ignore[attr-defined]

    @client.feature(p.CHANGES_NOTIFICATION)
    def on_changes(params: Any) -> None:
        client.changes.append(to_plain(params))  # type: ignore[attr-defined]
        client.arrivals.append("changes")  # type: ignore[attr-defined]


async def run(
    client: LanguageClient, prompt: str, session_id: str | None = None, **kw: Any
) -> dict[str, Any]:
    params: dict[str, Any] = {"prompt": prompt}
    if session_id:
        params["sessionId"] = session_id
    return to_plain(await client.protocol.send_request_async(p.RUN_REQUEST, params, **kw))


async def command(client: LanguageClient, name: str, *arguments: Any) -> Any:
    from lsprotocol import types

    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=name, arguments=list(arguments))
    )
    return to_plain(result)


async def request(client: LanguageClient, method: str, params: Any) -> Any:
    return to_plain(await client.protocol.send_request_async(method, params))


def events_of(client: LanguageClient, kind: str) -> list[dict[str, Any]]:
    return [e for e in client.events if e["kind"] == kind]  # type: ignore[attr-defined]


async def wait_for(predicate: Any, timeout: float = 10.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        await asyncio.sleep(0.02)


def tool_results(request_body: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool_result blocks of the last user message of a recorded model request."""
    last = request_body["messages"][-1]
    assert last["role"] == "user"
    return [b for b in last["content"] if b["type"] == "tool_result"]


def assert_valid_history(messages: list[dict[str, Any]]) -> None:
    """What the Messages API demands of a conversation: it starts with the user, roles
    alternate, and every tool_use is answered by a tool_result in the next message."""
    assert messages[0]["role"] == "user"
    for before, after in itertools.pairwise(messages):
        assert before["role"] != after["role"]
    for index, message in enumerate(messages):
        uses = [b["id"] for b in message["content"] if b["type"] == "tool_use"]
        if uses:
            following = messages[index + 1]["content"]
            assert [b["tool_use_id"] for b in following if b["type"] == "tool_result"] == uses


async def raw_request(client: LanguageClient, method: str, params: Any) -> Any:
    """A standard request sent and answered as plain JSON: `params` may be malformed on
    purpose, and the answer is what an editor gets (the client's own structuring can
    pick the wrong member of a union: codeAction answers `(Command | CodeAction)[]`)."""
    protocol = client.protocol
    raw: set[str] | None = getattr(protocol, "_raw_methods", None)
    if raw is None:
        raw = protocol._raw_methods = set()  # type: ignore[attr-defined]
        typed_message, typed_result = protocol.get_message_type, protocol.get_result_type
        protocol.get_message_type = lambda name: None if name in raw else typed_message(name)  # type: ignore[method-assign]
        protocol.get_result_type = lambda name: None if name in raw else typed_result(name)  # type: ignore[method-assign]
    raw.add(method)
    return to_plain(await protocol.send_request_async(method, params))


def host_pid(pid: int, workspace: Path) -> int | None:
    """The host pid of a live process that a command in `workspace` wrote down (`$!`):
    in the sandbox a command sees the jail's own pid namespace, so its pid differs from the
    host's (the last NSpid entry of /proc/PID/status is the one the command saw). None
    when no such process runs (never the bare number: that is some other host process)."""
    real = os.path.realpath(workspace)
    for proc in psutil.process_iter():
        try:
            if proc.cwd() != real:
                continue
            status = Path(f"/proc/{proc.pid}/status").read_text()
        except (OSError, psutil.Error):
            continue
        for line in status.splitlines():
            if line.startswith("NSpid:") and int(line.split()[-1]) == pid:
                return proc.pid
    return None


def processes_in(workspace: Path) -> list[int]:
    """Live processes (not zombies) whose working directory is `workspace`: what a
    command left running there, sandboxed or not."""
    real = os.path.realpath(workspace)
    found = []
    for proc in psutil.process_iter():
        try:
            if proc.cwd() == real and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc.pid)
        except psutil.Error:
            continue
    return found
