"""A background command over ACP (issue 46): the bash call that starts a dev server stays
`in_progress` after the prompt turn, its content following the server's output; the URL
of its port is a line of the agent's message; when it ends the call does too (`failed`
for a non-zero status), with how it ended."""

from __future__ import annotations

import asyncio
import socket
import urllib.request
from pathlib import Path

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.acp import EditorClient, acp_agent, agent_env, prompt
from tests.support.lsp import wait_for


def get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return str(answer.read().decode())


async def test_a_background_call_follows_its_output_until_it_ends(
    model: ScriptedModelServer, workspace: Path, sandbox_works: None
):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = f"python3 -m http.server {port} --bind 127.0.0.1"
    command = f"{server} & until [ -e go ]; do sleep 0.05; done; echo bye; exit 3"  # on cue
    model.load(
        script_of(
            reply(tool("bash", {"command": command, "run_in_background": True})),
            reply(text("Started.")),
        )
    )
    client = EditorClient()
    async with acp_agent(client, workspace, agent_env(model)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        assert await prompt(conn, session.session_id, "Serve it") == "end_turn"

        [call] = client.of_kind("tool_call")
        first = [
            u for u in client.of_kind("tool_call_update") if u["toolCallId"] == call["toolCallId"]
        ]
        assert first[-1]["status"] == "in_progress"
        assert first[-1]["content"][0]["content"]["text"].startswith("```\nid: b1\n")
        url = f"http://localhost:{port}"
        assert f"> b1 listens on port {port}: {url} (a host port that leads into the sandbox)" in (
            client.text()
        )

        await asyncio.to_thread(get, f"http://127.0.0.1:{port}/")

        def updates() -> list[dict[str, object]]:
            found = client.of_kind("tool_call_update")
            return [u for u in found if u["toolCallId"] == call["toolCallId"]]

        await wait_for(lambda: any("GET / HTTP/1.1" in str(u.get("content")) for u in updates()))
        following = next(u for u in updates() if "GET / HTTP/1.1" in str(u.get("content")))
        assert following["status"] == "in_progress"
        (workspace / "go").touch()  # the command ends now
        await wait_for(lambda: updates()[-1]["status"] == "failed", 20, "the command to end")
        last = str(updates()[-1]["content"])
        assert "bye" in last and f"b1 `{server} & until" in last  # long: cut with …
        assert "` exited with status 3]" in last
        assert f"> b1 `{server} & until" in client.text()
        assert "` exited with status 3" in client.text()
