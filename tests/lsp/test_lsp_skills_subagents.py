"""Skills and subagents through the real language server, in one run: workspaceAgent/
commands lists the workspace's skill; `/release-notes v2` sends the skill's body with its
argument in; the model hands a search to an `explore` subagent, whose plan comes as
`subagent` events under the step in progress and whose calls come marked with the task
call (`parentToolUseId`), the parent getting only its final message; every payload fits
the contract, and the history keeps the subagent's entries for a reload."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from workspace_agent import protocol as p
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, text, tool

from tests.support.client import RecordingClient
from tests.support.contract_schema import problems
from tests.support.lsp import request, run


def plan(*items: tuple[str, str]) -> dict[str, Any]:
    return tool(
        "todo",
        {"items": [{"id": str(n), "text": t, "status": s} for n, (t, s) in enumerate(items, 1)]},
    )


async def test_a_skill_starts_a_run_whose_explore_subagent_reports_under_its_step(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    skill = workspace / ".claude" / "skills" / "release-notes"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: release-notes\ndescription: Write release notes.\nargument-hint: VERSION\n"
        "---\nWrite the notes for $ARGUMENTS from CHANGES.txt.\n"
    )
    (workspace / "CHANGES.txt").write_text("Fixed the parser.\n")
    model.load(
        {
            "conversations": [
                {
                    "match": "what changed",
                    "match_system": '"explore" subagent',
                    "replies": [
                        reply(plan(("Read CHANGES.txt", "in_progress"))),
                        reply(tool("read_file", {"path": "CHANGES.txt"})),
                        reply(plan(("Read CHANGES.txt", "completed"))),
                        reply(text("One change: the parser was fixed.")),
                    ],
                },
                {
                    "replies": [
                        reply(plan(("Find the changes", "in_progress"), ("Write", "pending"))),
                        reply(
                            tool(
                                "task",
                                {
                                    "description": "Find the changes",
                                    "prompt": "what changed since v1?",
                                    "agent": "explore",
                                },
                                "task_1",
                            )
                        ),
                        reply(text("v2: the parser was fixed.")),
                    ]
                },
            ]
        }
    )

    listing = await request(client, p.COMMANDS_REQUEST, None)
    result = await run(client, "/release-notes v2")

    assert {
        "name": "release-notes",
        "description": "Write release notes.",
        "argumentHint": "VERSION",
        "source": "skill",
        "path": str(skill / "SKILL.md"),
    } in listing["commands"]
    assert result["stopReason"] == "end_turn" and result["text"] == "v2: the parser was fixed."
    first = model.requests[0].body
    assert first["messages"][0]["content"][-1]["text"].startswith(
        '<skill name="release-notes" folder=".claude/skills/release-notes">\n'
        "Write the notes for v2 from CHANGES.txt.\n</skill>"
    )
    mains = [
        r.body
        for r in model.requests
        if '"explore" subagent' not in "".join(b["text"] for b in r.body["system"])
    ]
    assert "Fixed the parser." not in json.dumps([m["messages"] for m in mains])
    (answer,) = [b for b in mains[-1]["messages"][-1]["content"] if b.get("type") == "tool_result"]
    assert answer["content"].startswith(
        "One change: the parser was fixed.\n\n[subagent explore: finished after 3 tool calls; changed no files; "
    )

    subagent = [e for e in client.events if e["kind"] == p.EVENT_SUBAGENT]
    assert [
        (e["todoId"], [i["status"] for i in e["items"]], e.get("stopReason")) for e in subagent
    ] == [
        ("1", [], None),
        ("1", ["in_progress"], None),
        ("1", ["completed"], None),
        ("1", ["completed"], "end_turn"),
    ]
    assert subagent[-1]["usage"]["outputTokens"] > 0 and subagent[-1]["toolCalls"] == 3
    inner = [e for e in client.events if e.get("parentToolUseId") == "task_1"]
    assert [(e["kind"], e["name"]) for e in inner if e["kind"] == p.EVENT_TOOL_CALL] == [
        ("toolCall", "todo"),
        ("toolCall", "read_file"),
        ("toolCall", "todo"),
    ]
    assert {e["todoId"] for e in inner} == {"1"}  # the parent's step, not the subagent's own

    history = await request(client, p.HISTORY_REQUEST, {"sessionId": result["sessionId"]})
    kept = [
        e
        for e in history["entries"]
        if e.get("parentToolUseId") == "task_1" or e["kind"] == "subagent"
    ]
    assert len(kept) == len(inner) + len(subagent)
    checked = [(e, f"{e['kind'][0].upper()}{e['kind'][1:]}Event") for e in client.events]
    checked += [(history, "HistoryResult"), (listing, "CommandsResult")]
    found = [
        problem
        for value, name in checked
        for problem in problems({k: v for k, v in value.items() if k != "_at"}, name)
    ]
    assert not found, found
