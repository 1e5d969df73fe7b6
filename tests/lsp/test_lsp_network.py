"""The sandbox's network question through the real server: a sandboxed command reaching
for a host of the host machine (a loopback server, `127.0.0.1:PORT`) makes the server ask
about that host (in place, with Always allow for a client that keeps hosts; as a toast
otherwise), the command stays in the sandbox, and the `toolResult` event lists the host.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from workspace_agent import protocol as p
from workspace_agent.contract import WITHDRAWN_REASON
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient
from tests.support.host_server import HostServer
from tests.support.lsp import command, events_of, request, run, tool_results, wait_for

KEEPS = pytest.mark.parametrize(
    "configured_editor", [{"approvals": True, "always_allow_hosts": True}], indirect=True
)
IN_PLACE = pytest.mark.parametrize("configured_editor", [{"approvals": True}], indirect=True)


@pytest.fixture
def host(sandbox_works: None):
    server = HostServer("127.0.0.1")
    yield server
    server.close()


def bash_results(client: RecordingClient) -> list[dict[str, Any]]:
    return [e for e in events_of(client, p.EVENT_TOOL_RESULT) if e["name"] == "bash"]


@KEEPS
async def test_always_allow_is_offered_in_place_and_the_host_is_not_asked_again(
    configured_editor: RecordingClient, model: ScriptedModelServer, host: HostServer
):
    editor = configured_editor
    editor.double.approval_answers = [{"decision": "allowAlways"}]
    curl = f"curl -s -m 10 {host.url}"
    model.load(
        script_of(
            reply(tool("bash", {"command": curl}, "toolu_first")),
            reply(tool("bash", {"command": curl}, "toolu_again")),
            reply(text("done")),
        )
    )
    result = await run(editor, "Check the server")

    message = f"Allow network access to `{host.name}` (from `{curl}`)? It stays in the sandbox."
    assert editor.double.approvals == [
        {
            "sessionId": result["sessionId"],
            "toolUseId": "toolu_first",
            "todoId": None,
            "kind": "network",
            "message": message,
            "command": curl,
            "host": host.name,
            "options": ["allow", "allowSession", "allowAlways", "deny"],
        }
    ]
    assert host.hits == [2]  # asked once: allowed for the session at once
    first, again = bash_results(editor)
    for event in (first, again):
        assert event["sandboxed"] is True and event["ok"] is True
        assert event["network"] == [{"host": host.name, "allowed": True}]
        assert "hello from the host" in event["output"]
    sent = tool_results(model.requests[1].body)
    assert f"[network: {host.name} allowed]" in sent[0]["content"]


@IN_PLACE
async def test_an_in_place_client_that_keeps_no_hosts_is_not_offered_always_and_a_denial_blocks(
    configured_editor: RecordingClient, model: ScriptedModelServer, host: HostServer
):
    editor = configured_editor
    editor.double.approval_answers = [{"decision": "deny"}]
    model.load(
        script_of(
            reply(tool("bash", {"command": f"curl -sS -m 10 {host.url}"})),
            reply(text("done")),
        )
    )
    await run(editor, "Check the server")

    (question,) = editor.double.approvals
    assert question["options"] == ["allow", "allowSession", "deny"]
    assert host.hits == [0]
    (event,) = bash_results(editor)
    assert event["sandboxed"] is True
    assert event["network"] == [{"host": host.name, "allowed": False}]
    # the card is told the host was blocked, and which setting would let it through
    assert event["blocked"] == [
        {"kind": "network", "target": host.name, "setting": "sandbox.allowedDomains"}
    ]
    sent = tool_results(model.requests[1].body)[0]["content"]
    assert f"network access to {host.name} was blocked by the user" in sent


async def test_a_client_without_approvals_in_place_is_asked_with_a_toast(
    editor: RecordingClient, model: ScriptedModelServer, host: HostServer
):
    editor.double.answers = ["Allow"]
    model.load(
        script_of(
            reply(tool("bash", {"command": f"curl -s -m 10 {host.url}"})),
            reply(text("done")),
        )
    )
    await run(editor, "Check the server")

    (question,) = editor.double.questions
    assert question.startswith(f"Allow network access to `{host.name}`")
    assert editor.double.offered == [["Allow", "Allow for this session", "Deny"]]
    assert host.hits == [1]


@IN_PLACE
async def test_a_metadata_address_is_refused_by_rule_without_a_question(
    configured_editor: RecordingClient, model: ScriptedModelServer, sandbox_works: None
):
    """169.254.169.254 hands out the machine's cloud credentials: never a question, and
    refused before any connection (the proxy checks the address it would connect to)."""
    editor = configured_editor
    curl = "curl -sSf -m 5 http://169.254.169.254/latest/meta-data/"
    model.load(script_of(reply(tool("bash", {"command": curl})), reply(text("done"))))
    await run(editor, "Where am I running?")

    assert editor.double.approvals == []
    (event,) = bash_results(editor)
    assert event["network"] == [
        {"host": "169.254.169.254", "allowed": False, "refused": "metadata"}
    ]
    assert event["blocked"] == [{"kind": "network", "target": "169.254.169.254"}]  # no button
    sent = tool_results(model.requests[1].body)[0]["content"]
    assert (
        "[network access to 169.254.169.254 was refused: an instance-metadata address (it hands "
        "out the machine's cloud credentials)"
    ) in sent


@IN_PLACE
async def test_cancelling_a_run_withdraws_an_open_network_question_without_a_traceback(
    configured_editor: RecordingClient,
    model: ScriptedModelServer,
    host: HostServer,
    capfd: pytest.CaptureFixture[str],
):
    """The user stops the run while the host's question waits: the question is withdrawn
    (the card is told so), the client's answer to the cancelled request is expected, and
    the server logs no unhandled CancelledError."""
    editor = configured_editor
    editor.double.hold = asyncio.get_running_loop().create_future()  # the user is away
    curl = f"curl -s -m 30 {host.url}"
    model.load(script_of(reply(tool("bash", {"command": curl}, "toolu_net")), reply(text("ok"))))
    running = asyncio.ensure_future(run(editor, "Check the server"))
    await wait_for(lambda: editor.double.approvals, what="the network question")

    session_id = editor.double.approvals[0]["sessionId"]
    assert await command(editor, p.CANCEL_COMMAND, {"sessionId": session_id}) == {"cancelled": True}
    assert (await running)["stopReason"] == "cancelled"
    await wait_for(lambda: editor.double.approvals_cancelled, what="$/cancelRequest")
    # one more round trip: the server has read the client's answer to the cancelled request
    await request(editor, p.HISTORY_REQUEST, {"sessionId": session_id})

    statuses = [
        (e["status"], e.get("reason"))
        for e in events_of(editor, p.EVENT_APPROVAL)
        if e["toolUseId"] == "toolu_net"
    ]
    assert statuses == [("waiting", None), ("denied", WITHDRAWN_REASON)]
    assert host.hits == [0]
    logged = capfd.readouterr().err
    assert "CancelledError" not in logged and "Traceback" not in logged, logged
    assert "unknown message id" not in logged, logged
