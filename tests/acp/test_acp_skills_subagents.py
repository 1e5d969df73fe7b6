"""Skills and subagents over ACP, in one session: a skill of the user's Claude Code folder
(CLAUDE_CONFIG_DIR) is in `available_commands_update` and `/deploy staging` sends its body
with the argument in; the model hands the work to a `general` subagent, shown as the
`task` tool call whose content is the subagent's progress (its calls and its plan) while
it works and its final message at the end, its own calls never separate tool calls."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, text, tool

from tests.support.acp import EditorClient, acp_agent, agent_env, prompt
from tests.support.lsp import wait_for


def content_text(update: dict[str, Any]) -> str:
    return "".join(c.get("content", {}).get("text", "") for c in update.get("content") or [])


def plan(status: str) -> dict[str, Any]:
    return tool(
        "todo", {"items": [{"id": "1", "text": "Write the deploy notes", "status": status}]}
    )


async def test_a_users_skill_runs_and_a_subagent_shows_in_its_task_call(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path
):
    claude = tmp_path / "claude-home"
    skill = claude / "skills" / "deploy"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: deploy\ndescription: Deploy a service.\nargument-hint: TARGET\n---\n"
        "Deploy to $1 and write what you did to deploy.txt.\n"
    )
    model.load(
        {
            "conversations": [
                {
                    "match": "write the deploy notes",
                    "match_system": '"general" subagent',
                    "replies": [
                        reply(plan("in_progress")),
                        reply(tool("write_file", {"path": "deploy.txt", "content": "staging\n"})),
                        reply(plan("completed")),
                        reply(text("deploy.txt says staging.")),
                    ],
                },
                {
                    "replies": [
                        reply(
                            tool(
                                "task",
                                {"description": "Deploy notes", "prompt": "write the deploy notes"},
                                "task_1",
                            )
                        ),
                        reply(text("Deployed to staging.")),
                    ]
                },
            ]
        }
    )
    client = EditorClient()
    env = agent_env(model, CLAUDE_CONFIG_DIR=str(claude))
    async with acp_agent(client, workspace, env) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        await wait_for(lambda: client.of_kind("available_commands_update"), what="the command list")
        assert await prompt(conn, session.session_id, "/deploy staging") == "end_turn"

    (listed,) = client.of_kind("available_commands_update")
    assert {
        "name": "deploy",
        "description": "Deploy a service.",
        "input": {"hint": "TARGET"},
    } in listed["availableCommands"]
    sent = model.requests[0].body["messages"][0]["content"][-1]["text"]
    assert sent.startswith(f'<skill name="deploy" folder="{skill}">\nDeploy to staging and write')
    assert (workspace / "deploy.txt").read_text() == "staging\n"

    starts = client.of_kind("tool_call")
    assert [s["toolCallId"] for s in starts] == ["task_1"]  # its calls are not the session's
    updates = [u for u in client.of_kind("tool_call_update") if u["toolCallId"] == "task_1"]
    progress = [content_text(u) for u in updates if u.get("status") == "in_progress"]
    assert progress == [
        "Plan of general:\n[>] Write the deploy notes",
        "- Edit deploy.txt\nPlan of general:\n[>] Write the deploy notes",
        "- Edit deploy.txt (done)\nPlan of general:\n[>] Write the deploy notes",
        "- Edit deploy.txt (done)\nPlan of general:\n[x] Write the deploy notes",
    ]
    assert updates[-1]["status"] == "completed"
    assert content_text(updates[-1]).startswith(
        "deploy.txt says staging.\n\n[subagent general: finished after 3 tool calls; changed 1 file: deploy.txt (added); "
    )
    assert client.of_kind("plan") == []  # the session's own plan is untouched
    assert client.text().endswith("Deployed to staging.")
