"""The user's Claude Code hooks through `workspace-agent acp`, as an ACP client (Zed) sees
them: the test HOME's `~/.claude/settings.json` and real scripts (tests/support/hooks.py),
one prompt that meets them all. Each hook's run is a quoted line of the agent's message,
the refused call fails with the hook's words, the formatted file is on disk, and the plan
entry carries the item's check (failed, then passed)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from workspace_agent.testing.scripted_model import ScriptedModelServer

from tests.support import hooks
from tests.support.acp import EditorClient, acp_agent, agent_env, prompt

HOME = hooks.claude_home(Path(tempfile.mkdtemp(prefix="wa-hooks-home-")))


async def test_the_users_claude_code_hooks_over_acp(model: ScriptedModelServer, workspace: Path):
    hooks.prepare(workspace)
    model.load(hooks.the_run())
    client = EditorClient()
    env = agent_env(model, HOME=str(HOME), CLAUDE_CONFIG_DIR="")
    async with acp_agent(client, workspace, env) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        assert await prompt(conn, session.session_id, hooks.PROMPT) == "end_turn"

    hooks.check_what_the_model_got(model.requests, workspace)
    said = client.text()
    assert f"> PreToolUse hook guard.sh: blocked the call: {hooks.REFUSED} (" in said
    assert "> PostToolUse hook fmt.sh: ok (" in said
    assert f"> TaskCompleted hook once.sh: kept the item open: {hooks.CHECK_FAILED} (" in said
    assert f"> Stop hook once.sh: kept the agent working: {hooks.STOP_REASON} (" in said
    refused = next(u for u in client.of_kind("tool_call") if u["title"] == "`rm -rf build`")
    (failed,) = [
        u
        for u in client.of_kind("tool_call_update")
        if u["toolCallId"] == refused["toolCallId"] and u.get("status") == "failed"
    ]
    assert hooks.REFUSED in failed["content"][0]["content"]["text"]
    entries = [plan["entries"][0] for plan in client.of_kind("plan")]
    assert [(e["content"], e["status"]) for e in entries] == [
        ("Set x", "in_progress"),
        (f"Set x — check failed: {hooks.CHECK_FAILED}", "in_progress"),
        ("Set x — check passed", "completed"),
    ]
