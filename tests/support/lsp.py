"""Helpers for end-to-end tests: send runs, commands and requests, read what was recorded
and what the model received, wait for a condition."""

from __future__ import annotations

import asyncio
import itertools
import time
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient

from workspace_agent import protocol as p
from workspace_agent.lsp.wire import to_plain
from workspace_agent.testing.scripted_model import ScriptedModelServer

from tests.support.client import RecordingClient


async def run(
    client: LanguageClient,
    prompt: str,
    session_id: str | None = None,
    mode: str | None = None,
    **kw: Any,
) -> dict[str, Any]:
    params: dict[str, Any] = {"prompt": prompt}
    if session_id:
        params["sessionId"] = session_id
    if mode:
        params["mode"] = mode
    return to_plain(await client.protocol.send_request_async(p.RUN_REQUEST, params, **kw))


async def command(client: LanguageClient, name: str, *arguments: Any) -> Any:
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=name, arguments=list(arguments))
    )
    return to_plain(result)


async def request(client: LanguageClient, method: str, params: Any) -> Any:
    return to_plain(await client.protocol.send_request_async(method, params))


def events_of(client: RecordingClient, kind: str) -> list[dict[str, Any]]:
    return client.events_of(kind)


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
        protocol.get_message_type = lambda name: None if name in raw else typed_message(name)  # type: ignore[method-assign,assignment]
        protocol.get_result_type = lambda name: None if name in raw else typed_result(name)  # type: ignore[method-assign,assignment]
    raw.add(method)
    return to_plain(await protocol.send_request_async(method, params))


def settings(client: RecordingClient, model: ScriptedModelServer, **approvals: str) -> None:
    """Push settings of the scripted model and these approvals only (the rest defaults)."""
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"workspaceAgent": {"baseUrl": model.url, "approvals": approvals}}
        )
    )


async def push_settings(
    client: RecordingClient, model: ScriptedModelServer, extra: dict[str, Any]
) -> None:
    """Push the whole settings section (as editors do), with the test's own on top."""
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={
                "workspaceAgent": {
                    "baseUrl": model.url,
                    "bashTimeoutSeconds": 20,
                    "approvals": {"bash": "allow"},
                    **extra,
                }
            }
        )
    )


async def changes(client: RecordingClient, session_id: str) -> dict[str, Any]:
    """The session's workspaceAgent/changes answer."""
    return await request(client, p.CHANGES_REQUEST, {"sessionId": session_id})
