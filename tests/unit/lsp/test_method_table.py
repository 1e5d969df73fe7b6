"""The language server's custom requests come from the contract's method table
(lsp/methods.py, generated): every request of the contract is registered, each with a
hand-written `on_<method>` handler, and its params parsed as the contract says."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from workspace_agent import protocol as p
from workspace_agent.lsp.methods import COMMANDS, PLAIN_PARAMS, REQUESTS
from workspace_agent.lsp.server import AgentLanguageServer, create_server

ROOT = Path(__file__).resolve().parents[3]
SOURCE = json.loads((ROOT / "contract" / "workspace-agent.json").read_text(encoding="utf-8"))


def test_every_client_request_of_the_contract_is_in_the_table_once():
    wanted = [r["method"] for r in SOURCE["requests"] if r["direction"] == "clientToServer"]
    assert [r.method for r in REQUESTS] == wanted


def test_every_entry_has_its_handler_on_the_server():
    for request in REQUESTS:
        handler = getattr(AgentLanguageServer, request.handler, None)
        assert handler is not None, f"{request.method}: write AgentLanguageServer.{request.handler}"
        assert inspect.iscoroutinefunction(handler), request.handler
        arguments = len(inspect.signature(handler).parameters) - 1  # self
        assert arguments == (1 if request.takes_params else 0), request.handler


def test_every_command_of_the_contract_has_its_handler_on_the_server():
    assert [c.method for c in COMMANDS] == [c["command"] for c in SOURCE["commands"]]
    for command in COMMANDS:
        handler = getattr(AgentLanguageServer, command.handler, None)
        assert handler is not None, f"{command.method}: write AgentLanguageServer.{command.handler}"
        arguments = len(inspect.signature(handler).parameters) - 1  # self
        assert arguments == (1 if command.takes_params else 0), command.handler


def test_create_server_registers_every_command():
    server = create_server()
    commands = server.protocol.fm.commands
    for command in COMMANDS:
        assert command.method in commands, command.method


async def test_command_arguments_that_do_not_fit_are_invalid_params():
    server = create_server()
    cancel = server.protocol.fm.commands[p.CANCEL_COMMAND]
    with pytest.raises(JsonRpcInvalidParams, match="needs 'sessionId'"):
        cancel({"todoId": "1"})


def test_create_server_registers_every_request():
    server = create_server()
    features = server.protocol.fm.features
    for request in REQUESTS:
        assert request.method in features, request.method


def test_params_stay_plain_json_except_for_a_name_a_notification_shares():
    notified = {n["method"] for n in SOURCE["notifications"]}
    assert p.CHANGES_REQUEST not in PLAIN_PARAMS
    assert {r.method for r in REQUESTS} - PLAIN_PARAMS == notified & {r.method for r in REQUESTS}


async def test_params_that_do_not_fit_are_invalid_params():
    server = create_server()
    handler = server.protocol.fm.features[p.FILE_VERSION_REQUEST]
    with pytest.raises(JsonRpcInvalidParams, match="sessionId"):
        await handler({"path": "a.py"})
