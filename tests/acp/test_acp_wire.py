"""`workspace-agent acp` at the level of bytes on its stdin and stdout.

Malformed input gets the JSON-RPC error the spec names (and nothing is lost: the agent
keeps answering), and `$/cancel_request` for a pending prompt cancels it. Written by hand
as a client would write them, because no SDK sends malformed messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, tool

from tests.support.acp import agent_env
from tests.support.lsp import wait_for
from tests.support.processes import SLEEPER, gone, sleeping_pid


class RawAgent:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    def send(self, line: bytes | dict[str, Any]) -> None:
        data = json.dumps(line).encode() if isinstance(line, dict) else line
        assert self.process.stdin is not None
        self.process.stdin.write(data + b"\n")

    async def receive(self, timeout: float = 20) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = await asyncio.wait_for(self.process.stdout.readline(), timeout)
        assert line, "the agent closed its stdout"
        message: dict[str, Any] = json.loads(line)
        return message

    async def answer(self, request_id: Any, timeout: float = 20) -> dict[str, Any]:
        """The response to `request_id`, skipping notifications that come first."""
        while True:
            message = await self.receive(timeout)
            if "method" not in message:
                assert message.get("id") == request_id, message
                return message

    async def call(self, line: bytes | dict[str, Any], request_id: Any = None) -> dict[str, Any]:
        self.send(line)
        return await self.answer(request_id)


@contextlib.asynccontextmanager
async def raw_agent(workspace: Path, env: dict[str, str], *args: str) -> AsyncIterator[RawAgent]:
    log = (workspace.parent / "agent.log").open("ab")
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "workspace_agent",
        "acp",
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=log,
        env=env,
        cwd=workspace,
    )
    try:
        yield RawAgent(process)
    finally:
        assert process.stdin is not None
        process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), 10)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
            log.close()


def request(request_id: Any, method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


INITIALIZE = {"protocolVersion": 1, "clientCapabilities": {}}


MALFORMED = [
    (b"this is not json", None, -32700, "Parse error"),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "initialize"', None, -32700, "Parse error"),
    (b"[1, 2]", None, -32600, "batches are not supported"),
    (b'"initialize"', None, -32600, "must be a JSON object"),
    (b'{"id": 2, "method": "initialize", "params": {}}', 2, -32600, '"jsonrpc" member must'),
    (b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "initialize"}', None, -32600, '"id"'),
    (b'{"jsonrpc": "2.0", "id": 3, "method": 7}', 3, -32600, '"method" member'),
    (b'{"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": "x"}', 4, -32600, "params"),
    (b'{"jsonrpc": "2.0", "id": 5, "method": "no/such"}', 5, -32601, "Method not found"),
    (b'{"jsonrpc": "2.0", "id": 6, "method": "initialize", "params": {}}', 6, -32602, ""),
    (
        b'{"jsonrpc": "2.0", "id": 7, "method": "session/new", "params": '
        b'{"cwd": "rel", "mcpServers": []}}',
        7,
        -32602,
        "cwd must be an absolute path, got 'rel'",
    ),
    (
        b'{"jsonrpc": "2.0", "id": 8, "method": "session/prompt", "params": '
        b'{"sessionId": "nope", "prompt": [{"type": "text", "text": "hi"}]}}',
        8,
        -32002,
        "there is no session 'nope'",
    ),
]


async def test_malformed_messages_get_json_rpc_errors_and_the_agent_stays_up(
    model: ScriptedModelServer, workspace: Path
):
    async with raw_agent(workspace, agent_env(model)) as agent:
        for line, request_id, code, message in MALFORMED:
            error = await agent.call(line, request_id)
            assert error["jsonrpc"] == "2.0" and "result" not in error, line
            assert error["error"]["code"] == code, line
            assert message in error["error"]["message"], line

        agent.send(b'{"jsonrpc": "2.0", "id": 40, "result": {}}')  # a stray response: dropped
        agent.send(b'{"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": 5}}')
        answer = await agent.call(request(41, "initialize", INITIALIZE), 41)
        assert answer["result"]["protocolVersion"] == 1
        created = await agent.call(
            request(42, "session/new", {"cwd": str(workspace), "mcpServers": []}), 42
        )
        assert isinstance(created["result"]["sessionId"], str)
        assert agent.process.returncode is None


async def test_cancel_request_for_a_prompt_cancels_its_run(
    model: ScriptedModelServer, workspace: Path
):
    model.load(script_of(reply(tool("bash", {"command": SLEEPER}))))
    async with raw_agent(workspace, agent_env(model), "--yes") as agent:
        await agent.call(request(1, "initialize", INITIALIZE), 1)
        created = await agent.call(
            request(2, "session/new", {"cwd": str(workspace), "mcpServers": []}), 2
        )
        session_id = created["result"]["sessionId"]
        agent.send(
            request(
                "prompt-1",
                "session/prompt",
                {"sessionId": session_id, "prompt": [{"type": "text", "text": "Wait"}]},
            )
        )
        pid = await sleeping_pid(workspace)
        agent.send(
            {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": "prompt-1"}}
        )
        answer = await agent.answer("prompt-1")
        assert answer["result"] == {"stopReason": "cancelled"}
        await wait_for(lambda: gone(pid), 2, "the sleep to be killed")


async def test_closing_stdin_mid_command_ends_the_agent_and_the_command(
    model: ScriptedModelServer, workspace: Path
):
    model.load(script_of(reply(tool("bash", {"command": SLEEPER}))))
    async with raw_agent(workspace, agent_env(model), "--yes") as agent:
        await agent.call(request(1, "initialize", INITIALIZE), 1)
        created = await agent.call(
            request(2, "session/new", {"cwd": str(workspace), "mcpServers": []}), 2
        )
        agent.send(
            request(
                3,
                "session/prompt",
                {
                    "sessionId": created["result"]["sessionId"],
                    "prompt": [{"type": "text", "text": "Wait"}],
                },
            )
        )
        pid = await sleeping_pid(workspace)
        assert agent.process.stdin is not None
        agent.process.stdin.close()  # the editor went away
        assert await asyncio.wait_for(agent.process.wait(), 10) == 0
        await wait_for(lambda: gone(pid), 2, "the sleep to be killed")
