"""The server's log lines reach the editor's output once.

vscode-languageclient copies every stderr line of the server into the same output channel
as window/logMessage, so a record sent both ways shows twice. Our records go to the client
(with their level) and stay off stderr; stderr keeps what only it can carry: pygls's
errors, records that could not be sent, and tracebacks.
"""

from __future__ import annotations

import asyncio
import io
import logging
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from workspace_agent import protocol as p
from workspace_agent.lsp.logs import ClientLogHandler, not_sent_to_client
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text

from tests.support.server import SERVER, TEST_KEY, server_env

BAD_SETTING = "invalid literal for int() with base 10: 'lots'"  # the warning for maxTurns


async def test_our_records_reach_the_client_once_and_stderr_keeps_pyglss_errors(
    workspace: Path, model: ScriptedModelServer
):
    client = LanguageClient("log-test", "1")  # pygls's own: this test reads stderr itself
    logged: list[types.LogMessageParams] = []

    @client.feature(types.WINDOW_LOG_MESSAGE)
    def on_log(params: types.LogMessageParams) -> None:
        logged.append(params)

    env = server_env(ANTHROPIC_API_KEY=TEST_KEY, WORKSPACE_AGENT_MAX_TURNS="lots")
    await client.start_io(*SERVER, env=env)
    server = client._server
    assert server is not None and server.stdin is not None and server.stderr is not None
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=workspace.as_uri(),
            initialization_options={"workspaceAgent": {"baseUrl": model.url}},
        )
    )
    client.initialized(types.InitializedParams())
    model.load(script_of(reply(text("Done."))))
    result: Any = await client.protocol.send_request_async(p.RUN_REQUEST, {"prompt": "Hi"})
    assert result.stopReason == "end_turn"  # the bad setting was logged and skipped
    server.stdin.write(b"Content-Length: 9\r\n\r\n{not json")  # a message pygls cannot read
    await client.shutdown_async(None)
    client.exit(None)
    assert await asyncio.wait_for(server.wait(), 20) == 0
    stderr = (await server.stderr.read()).decode()
    await client.stop()

    warnings = [m for m in logged if BAD_SETTING in m.message]
    assert warnings and {m.type for m in warnings} == {types.MessageType.Warning}
    assert BAD_SETTING not in stderr
    assert "Unable to handle message" in stderr and "Traceback" in stderr


def test_records_that_cannot_be_sent_go_to_stderr_and_tracebacks_go_along():
    connected = SimpleNamespace(protocol=SimpleNamespace(writer=object()), sent=[])
    connected.window_log_message = connected.sent.append
    not_yet = SimpleNamespace(protocol=SimpleNamespace(writer=None))
    for ls, name in ((connected, "connected"), (not_yet, "not_yet")):
        stderr = io.StringIO()
        to_stderr = logging.StreamHandler(stderr)
        to_stderr.addFilter(not_sent_to_client)
        log = logging.getLogger(f"workspace_agent.test_server_logs.{name}")
        log.propagate = False
        log.handlers = [ClientLogHandler(ls), to_stderr]  # the order configure() gives them
        try:
            raise ValueError("boom")
        except ValueError:
            log.exception("tool failed")
        ls.stderr = stderr.getvalue()

    (sent,) = connected.sent
    assert sent.type == types.MessageType.Error
    assert sent.message.startswith("tool failed\nTraceback") and "ValueError: boom" in sent.message
    assert connected.stderr == ""
    assert (
        not_yet.stderr.startswith("tool failed\nTraceback") and "ValueError: boom" in not_yet.stderr
    )
