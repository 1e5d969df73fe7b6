"""code_intel over ACP with a language server the user configured (jedi-language-server,
in the sandbox): the call's result reaches the client, the server runs as the agent's
child while the session lives, and nothing of it is left once the agent ends."""

from __future__ import annotations

from pathlib import Path

import psutil

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.acp import EditorClient, acp_agent, agent_env, prompt
from tests.support.language_servers import python_project, user_settings


def language_servers(workspace: Path) -> list[psutil.Process]:
    """This test's language server: its sandbox's command line names the server and binds
    the workspace."""
    found = []
    for proc in psutil.process_iter():
        try:
            line = " ".join(proc.cmdline())
        except psutil.Error:
            continue
        if "jedi-language-server" in line and str(workspace) in line:
            found.append(proc)
    return found


async def test_references_over_acp_and_the_server_ends_with_the_agent(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path, sandbox_works: None
):
    python_project(workspace)
    config = user_settings(tmp_path / "config")
    references = {"operation": "references", "path": "lib.py", "line": 1, "column": 5}
    model.load(script_of(reply(tool("code_intel", references)), reply(text("Found them."))))
    client = EditorClient()
    env = agent_env(model, WORKSPACE_AGENT_CONFIG_DIR=str(config))
    async with acp_agent(client, workspace, env) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        assert await prompt(conn, session.session_id, "Who uses greet?") == "end_turn"
        [call] = client.of_kind("tool_call")
        done = [
            u for u in client.of_kind("tool_call_update") if u["toolCallId"] == call["toolCallId"]
        ]
        assert done[-1]["status"] == "completed"
        shown = done[-1]["content"][0]["content"]["text"]
        assert "7 references in 3 files:" in shown and "more.py:5:25:" in shown, shown
        running = language_servers(workspace)
        assert running, "the language server runs while the session lives"
    _, alive = psutil.wait_procs(running, timeout=10)
    assert alive == []
