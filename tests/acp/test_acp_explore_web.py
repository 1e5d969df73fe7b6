"""search and web_fetch over ACP: each call is a tool call of ACP's own kind (`search`,
`fetch`) with a title saying what it looks for, and ends with the text the model got
(the page as Markdown, from a loopback server; `web` allowed in the agent's environment)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.acp import EditorClient, acp_agent, agent_env, prompt
from tests.support.web_site import WebSite


@pytest.fixture
def site() -> Iterator[WebSite]:
    served = WebSite()
    yield served
    served.close()


def content_text(update: dict[str, Any]) -> str:
    return "".join(c.get("content", {}).get("text", "") for c in update.get("content") or [])


async def test_search_and_fetch_are_acp_kinds(
    model: ScriptedModelServer, workspace: Path, site: WebSite
):
    (workspace / "notes.md").write_text("# Notes\nneedle here\n")
    model.load(
        script_of(
            reply(tool("search", {"pattern": "needle"}, "s1")),
            reply(tool("web_fetch", {"url": f"{site.url}/docs"}, "f1")),
            reply(text("Done.")),
        )
    )
    client = EditorClient()
    async with acp_agent(client, workspace, agent_env(model, WORKSPACE_AGENT_WEB="allow")) as (
        conn,
        _,
    ):
        session = await conn.new_session(cwd=str(workspace))
        assert await prompt(conn, session.session_id, "find the needle and read the docs") == (
            "end_turn"
        )

    starts = {s["toolCallId"]: s for s in client.of_kind("tool_call")}
    assert (starts["s1"]["kind"], starts["s1"]["title"]) == ("search", "Search: needle")
    assert (starts["f1"]["kind"], starts["f1"]["title"]) == ("fetch", f"Fetch {site.url}/docs")
    ends = {u["toolCallId"]: u for u in client.of_kind("tool_call_update") if u.get("status")}
    assert ends["s1"]["status"] == "completed"
    assert "notes.md:2: needle here" in content_text(ends["s1"])
    assert "# Install" in content_text(ends["f1"])
    assert client.permission_requests == []  # web: allow
