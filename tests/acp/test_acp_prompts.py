"""What an ACP prompt can carry besides text, with the real agent process: an image block
(and an embedded image blob) reaches the model as an image; @-mentions typed in the text
and `resource_link` blocks are resolved as over LSP; a link or mention that cannot be
resolved is refused before any model call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, resource_link_block, text_block
from acp.schema import BlobResourceContents, EmbeddedResourceContentBlock, ImageContentBlock

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text

from tests.support.acp import EditorClient, acp_agent, agent_env, real
from tests.support.images import b64, jpeg, png


def first_message(model: ScriptedModelServer) -> list[dict[str, Any]]:
    content = model.requests[0].body["messages"][0]["content"]
    return [{k: v for k, v in block.items() if k != "cache_control"} for block in content]


def image_block(data: bytes, media_type: str) -> dict[str, Any]:
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": media_type, "data": b64(data)},
    }


async def test_image_blocks_reach_the_model_with_the_prompt(
    model: ScriptedModelServer, workspace: Path
):
    model.load(script_of(reply(text("Two pictures."))))
    shot, photo = png(5, 5), jpeg(8, 6)
    async with acp_agent(EditorClient(), workspace, agent_env(model)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        answer = await conn.prompt(
            session_id=session.session_id,
            prompt=[
                text_block("What differs?"),
                ImageContentBlock(type="image", data=b64(shot), mime_type="image/png"),
                EmbeddedResourceContentBlock(
                    type="resource",
                    resource=BlobResourceContents(
                        uri="file:///tmp/photo.jpg", blob=b64(photo), mime_type="image/jpeg"
                    ),
                ),
            ],
        )

    assert answer.stop_reason == "end_turn"
    assert first_message(model) == [
        image_block(shot, "image/png"),
        image_block(photo, "image/jpeg"),
        {"type": "text", "text": "What differs?"},
    ]


async def test_mentions_and_links_are_resolved_like_over_lsp(
    model: ScriptedModelServer, workspace: Path
):
    (workspace / "src").mkdir()
    (workspace / "src" / "app.py").write_text("A = 1\n")
    (workspace / "lib").mkdir()
    (workspace / "lib" / "util.py").write_text("B = 2\n")
    model.load(script_of(reply(text("Read."))))
    async with acp_agent(EditorClient(), workspace, agent_env(model)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        link = (real(workspace) / "src" / "app.py").as_uri()
        await conn.prompt(
            session_id=session.session_id,
            prompt=[
                text_block("Compare "),
                resource_link_block("app.py", link),
                text_block(" with @lib/ (mail me at ann@example.com)"),
            ],
        )

    context, asked = first_message(model)
    assert asked["text"] == "Compare `src/app.py` with @lib/ (mail me at ann@example.com)"
    assert "Mentioned folder lib/ (1 entry):\n- util.py" in context["text"]
    assert "Mentioned file src/app.py:\n```\nA = 1\n\n```" in context["text"]
    assert "example.com" not in context["text"]


@pytest.mark.parametrize(
    ("blocks", "message"),
    [
        (
            lambda root: [text_block("Fix @src/gone.py")],
            "@src/gone.py: there is no file or folder 'src/gone.py' in the workspace",
        ),
        (
            lambda root: [
                text_block("Read "),
                resource_link_block("outside", (root.parent / "outside.txt").as_uri()),
            ],
            "is outside the workspace",
        ),
        (
            lambda root: [text_block("Fix @problems")],
            "@problems: this front end does not report the editor's problems",
        ),
    ],
    ids=["missing mention", "link outside", "problems"],
)
async def test_what_cannot_be_resolved_is_refused_before_any_model_call(
    model: ScriptedModelServer, workspace: Path, blocks: Any, message: str
):
    (workspace / "src").mkdir()
    (workspace.parent / "outside.txt").write_text("secret\n")
    model.load(script_of(reply(text("never"))))
    async with acp_agent(EditorClient(), workspace, agent_env(model)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        with pytest.raises(RequestError, match=message) as refused:
            await conn.prompt(session_id=session.session_id, prompt=blocks(real(workspace)))
        assert refused.value.code == -32602
    assert model.requests == []


async def test_loading_a_session_shows_the_image_its_prompt_carried(
    model: ScriptedModelServer, workspace: Path
):
    model.load(script_of(reply(text("A square."))))
    shot = png(2, 2)
    async with acp_agent(EditorClient(), workspace, agent_env(model)) as (conn, _):
        session_id = (await conn.new_session(cwd=str(workspace))).session_id
        await conn.prompt(
            session_id=session_id,
            prompt=[
                text_block("What is it?"),
                ImageContentBlock(type="image", data=b64(shot), mime_type="image/png"),
            ],
        )

    later = EditorClient()
    async with acp_agent(later, workspace, agent_env(model)) as (conn, _):
        await conn.load_session(cwd=str(workspace), session_id=session_id)
    told = [u for _, u in later.updates if u["sessionUpdate"] == "user_message_chunk"]
    assert [u["content"] for u in told] == [
        {"type": "image", "data": b64(shot), "mimeType": "image/png"},
        {"type": "text", "text": "What is it?"},
    ]
