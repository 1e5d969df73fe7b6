"""@-mentions and images over LSP with the real server: what the model receives for each
mention kind and for an image sent with the run; what is refused (a missing path, a path
outside the workspace, a corrupt or too large image, @problems from a client that reports
none) before any model call; read_file of a PNG."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from workspace_agent import protocol as p
from workspace_agent.lsp.wire import to_plain
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient
from tests.support.images import b64, png
from tests.support.lsp import events_of, request, run, tool_results
from tests.support.server import TEST_KEY

REQUEST_FAILED = -32803


def prompt_message(model: ScriptedModelServer) -> list[dict[str, Any]]:
    """The blocks of the first user message of the first model request (without the
    prompt cache's marks)."""
    first = model.requests[0].body["messages"][0]
    assert first["role"] == "user"
    return [{k: v for k, v in b.items() if k != "cache_control"} for b in first["content"]]


def files(workspace: Path) -> None:
    (workspace / "src").mkdir()
    (workspace / "src" / "app.py").write_text("def main():\n    return 1\n")
    (workspace / "docs").mkdir()
    (workspace / "docs" / "guide.md").write_text("# Guide\n")
    (workspace / "docs" / "api.md").write_text("# API\n")


def git(workspace: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(workspace), *args], check=True, capture_output=True)


async def test_file_folder_and_diff_mentions_reach_the_model(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    files(workspace)
    git(workspace, "init", "-q")
    git(workspace, "add", "src")
    git(workspace, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    (workspace / "src" / "app.py").write_text("def main():\n    return 2\n")
    model.load(script_of(reply(text("Seen."))))
    prompt = (
        "Review @src/app.py against @docs/ and @diff. Mail ann@example.com; keep\n"
        "@dataclass as it is."
    )

    result = await run(client, prompt)

    assert result["stopReason"] == "end_turn"
    block, asked = prompt_message(model)
    assert asked == {"type": "text", "text": prompt}
    context = block["text"]
    assert context.startswith("<editor-context>\nWhat the user mentions with @ in their prompt")
    assert "Mentioned file src/app.py:\n```\ndef main():\n    return 2\n\n```" in context
    assert "Mentioned folder docs/ (2 entries):\n- api.md\n- guide.md" in context
    assert "The working tree's git diff against HEAD:\n```diff\n" in context
    assert "-    return 1\n+    return 2" in context
    assert "example.com" not in context and "dataclass" not in context
    (start,) = events_of(client, "runStart")
    assert start["mentions"] == ["@src/app.py", "@docs/", "@diff"]


@pytest.mark.parametrize(
    ("prompt", "message"),
    [
        (
            "Fix @src/nope.py",
            "@src/nope.py: there is no file or folder 'src/nope.py' in the workspace; check "
            "the path (relative to the workspace root) and send the prompt again",
        ),
        ("Read @../outside.txt", "@../outside.txt: path '../outside.txt' is outside the workspace"),
        ("Fix @problems", "@problems: this front end does not report the editor's problems"),
    ],
    ids=["missing", "escaping", "problems without the capability"],
)
async def test_a_mention_that_cannot_be_resolved_is_refused_before_any_model_call(
    client: RecordingClient,
    model: ScriptedModelServer,
    workspace: Path,
    prompt: str,
    message: str,
):
    files(workspace)
    (workspace.parent / "outside.txt").write_text("secret\n")
    model.load(script_of(reply(text("never"))))

    with pytest.raises(JsonRpcException) as refused:
        await run(client, prompt)

    assert refused.value.code == REQUEST_FAILED
    assert message in str(refused.value)
    assert model.requests == []
    assert events_of(client, "runStart") == []


PROBLEM = {
    "range": {"start": {"line": 1, "character": 4}, "end": {"line": 1, "character": 10}},
    "severity": 1,
    "source": "pyright",
    "message": '"retrun" is not defined',
}


@pytest.mark.parametrize("configured_editor", [{"diagnostics": True}], indirect=True)
async def test_problems_mention_asks_the_editor_for_the_workspaces_problems(
    configured_editor: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    client = configured_editor
    files(workspace)
    client.double.workspace_problems = {
        (workspace / "src" / "app.py").as_uri(): [PROBLEM],
        "file:///elsewhere/other.py": [PROBLEM],  # outside the workspace: left out
    }
    model.load(script_of(reply(text("Fixing."))))

    await run(client, "Fix @problems")

    assert client.double.diagnostics_asked[0] == {"uris": [], "all": True, "wait": False}
    context = prompt_message(model)[0]["text"]
    assert (
        "Problems the editor reports in the workspace (1):\n"
        '- src/app.py:2:5 error: "retrun" is not defined [pyright]'
    ) in context


async def test_an_image_sent_with_the_run_reaches_the_model_before_the_prompt(
    client: RecordingClient, model: ScriptedModelServer
):
    model.load(script_of(reply(text("A red square."))))
    image = png(6, 4)

    result = await run_images(
        client, "What is this?", [{"data": b64(image), "mediaType": "image/png"}]
    )

    assert result["stopReason"] == "end_turn"
    assert prompt_message(model) == [
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": b64(image)},
        },
        {"type": "text", "text": "What is this?"},
    ]
    record = [{"mediaType": "image/png", "width": 6, "height": 4, "bytes": len(image)}]
    (start,) = events_of(client, "runStart")
    assert start["images"] == record
    history = await request(client, p.HISTORY_REQUEST, {"sessionId": result["sessionId"]})
    assert history["entries"][0]["kind"] == "runStart"
    assert history["entries"][0]["images"] == record  # the record; the bytes stay in the session


@pytest.mark.parametrize(
    ("image", "message"),
    [
        (
            {"data": b64(png()[:30]), "mediaType": "image/png"},
            "image 1 looks like a PNG image but is corrupt or cut short",
        ),
        (
            {"data": b64(png()[:8] + bytes(4_000_000)), "mediaType": "image/png"},
            "image 1 is too large for the model: 3.8 MB (5.1 MB as base64), the Messages API "
            "takes at most 5.0 MB per image",
        ),
        (
            {"data": b64(png()), "mediaType": "image/gif"},
            "image 1 is said to be image/gif but its bytes are image/png",
        ),
    ],
    ids=["corrupt", "too large", "wrong type"],
)
async def test_an_image_the_model_cannot_take_is_refused_before_any_model_call(
    client: RecordingClient, model: ScriptedModelServer, image: dict[str, str], message: str
):
    model.load(script_of(reply(text("never"))))
    with pytest.raises(JsonRpcException, match=re.escape(message)) as refused:
        await run_images(client, "What is this?", [image])
    assert refused.value.code == REQUEST_FAILED
    assert model.requests == []


async def test_read_file_of_a_png_gives_the_model_the_image(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    image = png(8, 8)
    (workspace / "shot.png").write_bytes(image)
    (workspace / "broken.png").write_bytes(image[:40])
    model.load(
        script_of(
            reply(tool("read_file", {"path": "shot.png"})),
            reply(tool("read_file", {"path": "broken.png"})),
            reply(text("It is red.")),
        )
    )

    await run(client, "Describe shot.png")

    (result,) = tool_results(model.requests[1].body)
    assert result["content"] == [
        {"type": "text", "text": f"shot.png: image (PNG, 8x8, {len(image)} bytes), shown below."},
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": b64(image)},
        },
    ]
    (broken,) = tool_results(model.requests[2].body)
    assert broken["is_error"] is True
    assert broken["content"].startswith(
        "broken.png looks like a PNG image but is corrupt or cut short"
    )


async def run_images(
    client: RecordingClient, prompt: str, images: list[dict[str, str]]
) -> dict[str, Any]:
    params = {"prompt": prompt, "images": images}
    return to_plain(await client.protocol.send_request_async(p.RUN_REQUEST, params))


async def test_a_mentioned_file_never_shows_the_model_the_api_key(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    (workspace / "settings.ini").write_text(f"key = {TEST_KEY}\nname = demo\n")
    model.load(script_of(reply(text("Seen."))))

    await run(client, "Check @settings.ini")

    context = prompt_message(model)[0]["text"]
    assert "key = [redacted]\nname = demo" in context
    assert TEST_KEY not in context
