"""The images an MCP tool's result carries, through the real server and a real MCP server
(server-everything's get-tiny-image): the model gets them as image blocks; the toolResult
notification and the history page carry only their records (type, pixels, bytes); and
workspaceAgent/toolImage gives each one back for the card's thumbnail, after a restart
too. What it does not have is a clear failure."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from workspace_agent import protocol as p
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient, another_server
from tests.support.lsp import events_of, request, run, tool_results, wait_for
from tests.support.mcp import EVERYTHING, record_states, require_servers
from tests.support.server import USER_CONFIG

# Tests that start the real MCP servers share one pytest-xdist worker: some count those
# servers' processes machine-wide.
pytestmark = pytest.mark.xdist_group("mcp-servers")

TOOL = "mcp__everything__get-tiny-image"


@pytest.fixture
def everything() -> Iterator[Path]:
    """server-everything as the user's own MCP server, the config removed afterwards."""
    require_servers()
    (USER_CONFIG / "mcp.json").write_text(
        json.dumps({"mcpServers": {"everything": {"command": str(EVERYTHING)}}})
    )
    yield USER_CONFIG
    for name in ("mcp.json", "mcp-trust.json", "mcp-disabled.json"):
        (USER_CONFIG / name).unlink(missing_ok=True)


async def tool_image(client: RecordingClient, session_id: str, tool_use_id: str, index: Any) -> Any:
    params = {"sessionId": session_id, "toolUseId": tool_use_id, "index": index}
    return await request(client, p.TOOL_IMAGE_REQUEST, params)


async def test_an_mcp_tool_image_reaches_the_card_by_its_id_and_the_pages_stay_small(
    everything: Path, editor: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    states = record_states(editor)
    editor.double.answers = ["Allow", "Allow"]
    model.load(script_of(reply(text("ok"))))
    await run(editor, "warm up")  # the first run finds the config written after the start
    await wait_for(
        lambda: any(s["name"] == "everything" and s["state"] == "ready" for b in states for s in b),
        timeout=30,
        what="server-everything ready",
    )
    model.load(script_of(reply(tool(TOOL, {})), reply(text("A tiny image."))))

    result = await run(editor, "show me the tiny image")

    session_id = result["sessionId"]
    (sent,) = [
        b for b in tool_results(model.requests[-1].body)[0]["content"] if b["type"] == "image"
    ]
    data = sent["source"]["data"]
    raw = base64.b64decode(data)
    (live,) = [e for e in events_of(editor, "toolResult") if e["name"] == TOOL]
    assert live["ok"] is True
    assert live["images"] == [
        {
            "mediaType": "image/png",
            "width": live["images"][0]["width"],
            "height": live["images"][0]["height"],
            "bytes": len(raw),
        }
    ]
    assert live["images"][0]["width"] > 0 and live["images"][0]["height"] > 0
    # The notification and the history page are lean: records, never the bytes.
    assert "imageData" not in live and data not in json.dumps(live)
    page = await request(editor, p.HISTORY_REQUEST, {"sessionId": session_id})
    (entry,) = [e for e in page["entries"] if e["kind"] == "toolResult" and e["name"] == TOOL]
    assert entry["images"] == live["images"] and data not in json.dumps(page)

    tool_use_id = live["toolUseId"]
    assert await tool_image(editor, session_id, tool_use_id, 0) == {
        "mediaType": "image/png",
        "data": data,
    }
    async with another_server(workspace) as fresh:  # after a window reload: from the files
        assert (await tool_image(fresh, session_id, tool_use_id, 0))["data"] == data

    for call, index in ((tool_use_id, 1), ("toolu_nope", 0)):
        with pytest.raises(JsonRpcException) as caught:
            await tool_image(editor, session_id, call, index)
        assert caught.value.code == -32803
        assert caught.value.message.startswith(
            f"image {index + 1} of the result of tool call {call!r} of session {session_id} "
            "was not kept"
        )


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"toolUseId": "t", "index": -1}, "needs 'index' (a whole number from 0)"),
        ({"toolUseId": "t", "index": "0"}, "needs 'index' (a whole number from 0)"),
        ({"index": 0}, "needs 'sessionId' and 'toolUseId' (non-empty strings)"),
    ],
)
async def test_bad_params_are_refused(
    client: RecordingClient, model: ScriptedModelServer, params: dict[str, Any], message: str
):
    model.load(script_of(reply(text("hi"))))
    session_id = (await request(client, p.RUN_REQUEST, {"prompt": "Hi"}))["sessionId"]
    with pytest.raises(JsonRpcException) as caught:
        await request(client, p.TOOL_IMAGE_REQUEST, {"sessionId": session_id, **params})
    assert caught.value.code == -32602
    assert message in caught.value.message
