"""The images a prompt carried, through the real server: a history page holds only their
records, and workspaceAgent/historyImage gives each one back (for a view's thumbnail),
after a restart too and for a session saved before the history kept images; what it
does not have is a clear failure."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from workspace_agent import protocol as p
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text

from tests.support.client import RecordingClient, another_server
from tests.support.images import b64, gif, png
from tests.support.lsp import events_of, request
from tests.support.server import folder_of


async def image_of(client: RecordingClient, session_id: str, seq: Any, index: Any) -> Any:
    params = {"sessionId": session_id, "seq": seq, "index": index}
    return await request(client, p.HISTORY_IMAGE_REQUEST, params)


async def test_the_history_gives_back_the_images_a_prompt_carried(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    model.load(script_of(reply(text("Red, then a GIF.")), reply(text("Just text."))))
    shot, anim = png(40, 30), gif(5, 5)
    sent = [
        {"data": b64(shot), "mediaType": "image/png"},
        {"data": b64(anim), "mediaType": "image/gif"},
    ]
    params = {"prompt": "What are these?", "images": sent}
    first = await request(client, p.RUN_REQUEST, params)
    session_id = first["sessionId"]
    await request(client, p.RUN_REQUEST, {"prompt": "And now?", "sessionId": session_id})

    page = await request(client, p.HISTORY_REQUEST, {"sessionId": session_id})
    starts = [e for e in page["entries"] if e["kind"] == "runStart"]
    records = [
        {"mediaType": "image/png", "width": 40, "height": 30, "bytes": len(shot)},
        {"mediaType": "image/gif", "width": 5, "height": 5, "bytes": len(anim)},
    ]
    assert starts[0]["images"] == records and "images" not in starts[1]
    # The page is lean: records, never the bytes; the live event neither.
    assert b64(shot) not in json.dumps(page)
    assert all("imageData" not in e for e in [*page["entries"], *events_of(client, "runStart")])

    seq = starts[0]["seq"]
    assert await image_of(client, session_id, seq, 0) == sent[0]
    assert await image_of(client, session_id, seq, 1) == sent[1]

    async with another_server(workspace) as fresh:  # after a window reload: from the files
        assert await image_of(fresh, session_id, seq, 0) == sent[0]

    for where, index in ((seq, 2), (starts[1]["seq"], 0), (999, 0)):
        with pytest.raises(JsonRpcException) as caught:
            await image_of(client, session_id, where, index)
        assert caught.value.code == -32803
        assert caught.value.message.startswith(
            f"image {index + 1} of entry {where} of session {session_id} was not kept"
        )


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"seq": -1, "index": 0}, "needs 'seq' (a whole number from 0)"),
        ({"seq": "0", "index": 0}, "needs 'seq' (a whole number from 0)"),
        ({"seq": 0}, "needs 'index' (a whole number from 0)"),
        ({"seq": 0, "index": True}, "needs 'index' (a whole number from 0)"),
    ],
)
async def test_bad_params_are_refused(
    client: RecordingClient, model: ScriptedModelServer, params: dict[str, Any], message: str
):
    model.load(script_of(reply(text("hi"))))
    session_id = (await request(client, p.RUN_REQUEST, {"prompt": "Hi"}))["sessionId"]
    with pytest.raises(JsonRpcException) as caught:
        await request(client, p.HISTORY_IMAGE_REQUEST, {"sessionId": session_id, **params})
    assert caught.value.code == -32602
    assert message in caught.value.message


async def test_a_session_saved_before_histories_gets_its_images_from_its_messages(
    client: RecordingClient, workspace: Path
):
    shot = png(12, 9)
    prompt = [
        {"type": "text", "text": "<editor-context>\nnothing\n</editor-context>"},
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": b64(shot)},
        },
        {"type": "text", "text": "Look at this"},
    ]
    lines = [
        {"type": "session", "id": "old-shot", "created": 1_700_000_000.0, "format": 1},
        {
            "type": "messages",
            "messages": [
                {"role": "user", "content": prompt},
                {"role": "assistant", "content": [{"type": "text", "text": "A red box."}]},
            ],
        },
    ]
    folder = folder_of(workspace)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "old-shot.jsonl").write_text("\n".join(json.dumps(r) for r in lines) + "\n")

    page = await request(client, p.HISTORY_REQUEST, {"sessionId": "old-shot"})

    start = page["entries"][0]
    assert start == {
        "kind": "runStart",
        "prompt": "Look at this",
        "images": [{"mediaType": "image/png", "width": 12, "height": 9, "bytes": len(shot)}],
        "seq": 0,
        "run": 1,
    }
    image = await image_of(client, "old-shot", 0, 0)
    assert image == {"mediaType": "image/png", "data": b64(shot)}
