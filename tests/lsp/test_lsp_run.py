"""End to end through the real server process: a scripted multi-step task over LSP.

Asserts what an editor sees (notifications, progress, the run result), what lands on
disk, and what went back to the model.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException

from workspace_agent.agent.loop import REMINDER
from workspace_agent.testing.scripted_model import (
    ScriptedModelServer,
    reply,
    script_of,
    text,
    tool,
)

from tests.support.client import RecordingClient
from tests.support.lsp import command, events_of, run, tool_results
from tests.support.server import TEST_KEY


def plan(*statuses: str) -> dict:
    texts = ["Create the module", "Edit the greeting", "Check the result"]
    return {
        "items": [
            {"id": str(i + 1), "text": t, "status": s}
            for i, (t, s) in enumerate(zip(texts, statuses, strict=True))
        ]
    }


THREE_STEP_TASK = script_of(
    reply(text("Plan first."), tool("todo", plan("in_progress", "pending", "pending"))),
    reply(
        tool("write_file", {"path": "pkg/hello.py", "content": "def greet():\n    return 'hi'\n"})
    ),
    reply(
        tool("todo", plan("completed", "in_progress", "pending")),
        tool("edit_file", {"path": "pkg/hello.py", "old_text": "'hi'", "new_text": "'hello'"}),
    ),
    reply(
        tool("todo", plan("completed", "completed", "in_progress")),
        tool("bash", {"command": "cat pkg/hello.py"}),
    ),
    reply(tool("todo", plan("completed", "completed", "completed"))),
    reply(text("Created pkg/hello.py and made it say hello.")),
)


async def test_three_step_plan_end_to_end(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    model.load(THREE_STEP_TASK)

    result = await run(client, "Create a greeting module")

    assert result["stopReason"] == "end_turn"
    assert result["text"] == "Created pkg/hello.py and made it say hello."
    assert [item["status"] for item in result["todos"]] == ["completed"] * 3
    usage = result["usage"]
    assert usage["outputTokens"] > 0 and usage["cacheWriteTokens"] > 0
    assert usage["cacheReadTokens"] > usage["cacheWriteTokens"]  # each turn re-reads the prefix
    assert (workspace / "pkg" / "hello.py").read_text() == "def greet():\n    return 'hello'\n"

    # Every plan change reached the editor, in order, preceded by the run-start snapshot.
    statuses = [[item["status"] for item in n["items"]] for n in client.todos]
    assert statuses == [
        [],
        ["in_progress", "pending", "pending"],
        ["completed", "in_progress", "pending"],
        ["completed", "completed", "in_progress"],
        ["completed", "completed", "completed"],
    ]
    assert [(n["completed"], n["total"]) for n in client.todos] == [
        (0, 0),
        (0, 3),
        (1, 3),
        (2, 3),
        (3, 3),
    ]
    assert {n["sessionId"] for n in client.todos} == {result["sessionId"]}

    # The transcript: tool calls tagged with the plan item that was in progress.
    calls = [(e["name"], e["todoId"]) for e in events_of(client, "toolCall")]
    assert calls == [
        ("todo", None),
        ("write_file", "1"),
        ("todo", "1"),
        ("edit_file", "2"),
        ("todo", "2"),
        ("bash", "3"),
        ("todo", "3"),
    ]
    bash_result = next(e for e in events_of(client, "toolResult") if e["name"] == "bash")
    assert bash_result["ok"] is True and "return 'hello'" in bash_result["output"]
    assert (
        next(e for e in events_of(client, "toolCall") if e["name"] == "bash")["summary"]
        == "cat pkg/hello.py"
    )
    kinds = [e["kind"] for e in client.events]
    assert kinds[0] == "runStart" and kinds[-1] == "runEnd"
    assert "".join(e["text"] for e in events_of(client, "text")).endswith("made it say hello.")
    assert events_of(client, "runEnd")[0]["stopReason"] == "end_turn"

    # Work-done progress: begin, a report per plan change ("2/3 · item"), end.
    (reports,) = client.progress_reports.values()
    assert (
        reports[0].kind == "begin"
        and reports[0].title == "Workspace Agent"
        and reports[0].cancellable
    )
    messages = [r.message for r in reports if r.kind == "report"]
    assert "1/3 · Edit the greeting" in messages and "2/3 · Check the result" in messages
    assert reports[-1].kind == "end" and reports[-1].message == "Done"

    # What went to the model: system prompt, the ten tools, the API key, real results.
    first = model.requests[0]
    assert first.api_key == TEST_KEY
    assert {t["name"] for t in first.body["tools"]} == {
        "bash",
        "read_file",
        "write_file",
        "edit_file",
        "todo",
        "search",
        "find_files",
        "web_fetch",
        "web_search",
        "task",
    }
    (system,) = first.body["system"]
    assert str(workspace) in system["text"] and system["cache_control"] == {"type": "ephemeral"}
    assert first.body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert first.body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert first.body["stream"] is True
    edit_result = tool_results(model.requests[3].body)[1]
    assert (
        edit_result["content"].startswith("Edited pkg/hello.py") and "is_error" not in edit_result
    )
    assert (
        tool_results(model.requests[2].body)[0]["content"]
        == "Created pkg/hello.py (2 lines, 29 bytes)"
    )


async def test_follow_up_run_continues_the_session(
    client: RecordingClient, model: ScriptedModelServer
):
    model.load(
        script_of(
            reply(
                tool("todo", {"items": [{"id": "a", "text": "Say hi", "status": "in_progress"}]})
            ),
            reply(text("Hi!")),
            reply(text("Still here; your plan has 1 item.")),
        )
    )
    first = await run(client, "Say hi")
    second = await run(client, "Are you still there?", first["sessionId"])

    assert second["sessionId"] == first["sessionId"]
    assert second["text"] == "Still here; your plan has 1 item."
    assert second["todos"] == [{"id": "a", "text": "Say hi", "status": "in_progress"}]
    messages = model.requests[-1].body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant", "user"]
    assert messages[0]["content"][0]["text"] == "Say hi"
    assert messages[-1]["content"][-1]["text"] == "Are you still there?"
    # The follow-up starts by re-publishing the session's plan, not an empty one.
    assert client.todos[-1]["items"] == second["todos"]

    todos = await command(client, "workspaceAgent.getTodos", {"sessionId": first["sessionId"]})
    assert todos == {
        "sessionId": first["sessionId"],
        "items": second["todos"],
        "completed": 0,
        "total": 1,
    }


async def test_reminder_after_three_rounds_without_todo(
    client: RecordingClient, model: ScriptedModelServer
):
    model.load(
        script_of(
            reply(
                tool(
                    "todo", {"items": [{"id": "1", "text": "Look around", "status": "in_progress"}]}
                )
            ),
            reply(tool("bash", {"command": "true"})),
            reply(tool("bash", {"command": "true"})),
            reply(tool("bash", {"command": "true"}), tool("read_file", {"path": "missing.txt"})),
            reply(tool("bash", {"command": "true"})),
            reply(
                tool("todo", {"items": [{"id": "1", "text": "Look around", "status": "completed"}]})
            ),
            reply(text("Done.")),
        )
    )
    await run(client, "Look around")

    bodies = [r.body for r in model.requests]

    def has_reminder(body: dict) -> bool:
        return any(b.get("text") == REMINDER for b in body["messages"][-1]["content"])

    # Request n answers reply n-1: replies 1-4 are rounds without todo, reply 5 uses it.
    assert [has_reminder(b) for b in bodies] == [False, False, False, False, True, True, False]
    last_user = bodies[4]["messages"][-1]["content"]
    assert [b["type"] for b in last_user] == ["tool_result", "tool_result", "text"]
    assert (
        last_user[1]["is_error"] is True and "missing.txt does not exist" in last_user[1]["content"]
    )
    assert len(events_of(client, "reminder")) == 2


async def test_model_sees_errors_for_unknown_tools_and_bad_input(
    client: RecordingClient, model: ScriptedModelServer
):
    model.load(
        script_of(
            reply(
                tool("launch_rockets", {"count": 3}),
                tool("read_file", {"offset": 2}),
                tool("write_file", {"path": "x.txt", "content": 42}),
                tool("bash", {"command": "echo ok", "shell": "zsh"}),
            ),
            reply(text("I will stop here.")),
        )
    )
    result = await run(client, "Do odd things")

    assert result["stopReason"] == "end_turn"
    results = tool_results(model.requests[1].body)
    assert all(r["is_error"] for r in results)
    assert results[0]["content"] == (
        "unknown tool 'launch_rockets'; the available tools are: bash, read_file, write_file, "
        "edit_file, todo, search, find_files, web_fetch, web_search, task"
    )
    assert results[1]["content"] == "invalid input for read_file: 'path' is a required property"
    assert (
        results[2]["content"] == "invalid input for write_file: content: 42 is not of type 'string'"
    )
    assert "unknown key ('shell' was unexpected)" in results[3]["content"]
    assert [e["ok"] for e in events_of(client, "toolResult")] == [False] * 4


async def test_todo_rule_violations_keep_the_previous_list(
    client: RecordingClient, model: ScriptedModelServer
):
    good = {
        "items": [
            {"id": "1", "text": "First", "status": "in_progress"},
            {"id": "2", "text": "Second", "status": "pending"},
        ]
    }
    too_many = {"items": [{"id": str(i), "text": f"t{i}", "status": "pending"} for i in range(21)]}
    two_working = {
        "items": [
            {"id": "1", "text": "a", "status": "in_progress"},
            {"id": "2", "text": "b", "status": "in_progress"},
        ]
    }
    empty_text = {"items": [{"id": "1", "text": "   ", "status": "pending"}]}
    bad_status = {"items": [{"id": "1", "text": "a", "status": "done"}]}
    duplicate = {
        "items": [
            {"id": "1", "text": "a", "status": "pending"},
            {"id": "1", "text": "b", "status": "pending"},
        ]
    }
    model.load(
        script_of(
            reply(tool("todo", good)),
            reply(
                tool("todo", too_many),
                tool("todo", two_working),
                tool("todo", empty_text),
                tool("todo", bad_status),
                tool("todo", duplicate),
            ),
            reply(text("ok")),
        )
    )
    result = await run(client, "Plan badly")

    messages = [r["content"] for r in tool_results(model.requests[2].body)]
    assert messages[0] == "invalid input for todo: items: has 21 items, at most 20 are allowed"
    assert messages[1] == (
        "todo list rejected, the previous list is kept: only one item may be in_progress at a time, found 2: #1, #2"
    )
    assert (
        messages[2]
        == "todo list rejected, the previous list is kept: item 1 (#1): 'text' must not be empty"
    )
    assert messages[3].startswith("invalid input for todo: items.0.status: 'done' is not one of")
    assert messages[4] == "todo list rejected, the previous list is kept: item 2: duplicate id '1'"
    assert (
        tool_results(model.requests[1].body)[0]["content"]
        == "[>] #1: First\n[ ] #2: Second\n(0/2 completed)"
    )
    assert result["todos"] == good["items"]
    assert len(client.todos) == 2  # the run-start snapshot and the one good list


async def test_edit_file_needs_exactly_one_match(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    original = "x = 1\nx = 1\ny = 2\n"
    (workspace / "code.py").write_text(original)
    model.load(
        script_of(
            reply(
                tool("edit_file", {"path": "code.py", "old_text": "x = 1", "new_text": "x = 3"}),
                tool("edit_file", {"path": "code.py", "old_text": "z = 9", "new_text": "z = 0"}),
                tool(
                    "edit_file",
                    {
                        "path": "code.py",
                        "old_text": "y = 2",
                        "new_text": "y = 'it''s \"quoted\" $HOME'",
                    },
                ),
            ),
            reply(text("ok")),
        )
    )
    await run(client, "Edit")

    duplicate, missing, good = tool_results(model.requests[1].body)
    assert duplicate["is_error"] and "occurs 2 times in code.py" in duplicate["content"]
    assert missing["is_error"] and "old_text was not found in code.py" in missing["content"]
    assert "is_error" not in good
    assert (workspace / "code.py").read_text() == "x = 1\nx = 1\ny = 'it''s \"quoted\" $HOME'\n"


async def test_paths_outside_the_workspace_are_refused(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path, tmp_path: Path
):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("top secret\n")
    (workspace / "link").symlink_to(outside)
    model.load(
        script_of(
            reply(
                tool("read_file", {"path": "../outside/secret.txt"}),
                tool("read_file", {"path": str(outside / "secret.txt")}),
                tool("read_file", {"path": "link/secret.txt"}),
                tool("write_file", {"path": "../outside/new.txt", "content": "x"}),
                tool("write_file", {"path": "link/new.txt", "content": "x"}),
                tool("edit_file", {"path": "link/secret.txt", "old_text": "top", "new_text": "no"}),
                tool("write_file", {"path": str(workspace / "inside.txt"), "content": "fine"}),
            ),
            reply(text("ok")),
        )
    )
    await run(client, "Escape")

    results = tool_results(model.requests[1].body)
    for refused in results[:6]:
        assert refused["is_error"] is True
        assert "is outside the workspace" in refused["content"]
        assert "top secret" not in refused["content"]
    assert "is_error" not in results[6]
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert (outside / "secret.txt").read_text() == "top secret\n"
    assert (workspace / "inside.txt").read_text() == "fine"


async def test_tail_of_a_100000_line_file(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    with (workspace / "big.log").open("w") as f:
        for n in range(1, 100_001):
            f.write(f"line {n}\n")
    model.load(
        script_of(
            reply(tool("read_file", {"path": "big.log", "offset": -50})),
            reply(tool("read_file", {"path": "big.log", "offset": 500, "limit": 2})),
            reply(text("ok")),
        )
    )
    await run(client, "Read the end")

    tail = tool_results(model.requests[1].body)[0]["content"].splitlines()
    assert tail[0] == "big.log: lines 99951-100000 of 100000"
    assert tail[1] == " 99951\tline 99951" and tail[-1] == "100000\tline 100000"
    assert len(tail) == 51
    window = tool_results(model.requests[2].body)[0]["content"].splitlines()
    assert window == [
        "big.log: lines 500-501 of 100000",
        "   500\tline 500",
        "   501\tline 501",
        "(more lines follow: read with offset=502 to continue)",
    ]


async def test_missing_api_key_fails_the_run_not_the_server(
    client_without_key: RecordingClient, model: ScriptedModelServer
):
    result = await run(client_without_key, "Anything")

    assert result["stopReason"] == "error"
    assert "ANTHROPIC_API_KEY" in result["error"]
    assert events_of(client_without_key, "error")[0]["message"] == result["error"]
    assert model.requests == []
    # The server is still up and answering.
    assert "sessionId" in await command(client_without_key, "workspaceAgent.newSession")


async def test_settings_change_reaches_the_next_run(
    client: RecordingClient, model: ScriptedModelServer
):
    from lsprotocol import types

    model.load(script_of(*[reply(tool("bash", {"command": "true"})) for _ in range(5)]))
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={
                "workspaceAgent": {
                    "baseUrl": model.url,
                    "maxTurns": 2,
                    "model": "claude-test-model",
                    "approvals": {"bash": "allow"},
                }
            }
        )
    )
    result = await run(client, "Loop forever")

    assert result["stopReason"] == "max_turns"
    assert len(model.requests) == 2
    assert model.requests[0].body["model"] == "claude-test-model"
    (reports,) = client.progress_reports.values()
    assert reports[-1].message == "Stopped: turn limit reached"
    (end,) = events_of(client, "runEnd")
    assert end["turnLimit"] == 2  # the card states the limit it met


async def test_bad_params_and_unknown_sessions_get_clear_errors(client: RecordingClient):
    with pytest.raises(JsonRpcException, match="'prompt' must be a non-empty string") as empty:
        await run(client, "  ")
    assert empty.value.code == -32602
    with pytest.raises(JsonRpcException, match="there is no session 'nope'") as unknown:
        await run(client, "hi", "nope")
    assert unknown.value.code == -32803
    with pytest.raises(JsonRpcException, match=r"workspaceAgent\.cancel needs 'sessionId'"):
        await command(client, "workspaceAgent.cancel", {})


async def test_text_streams_while_the_model_is_still_writing(
    client: RecordingClient, model: ScriptedModelServer
):
    long_text = "".join(f"word{n} " for n in range(40))  # 10 SSE deltas of 24 characters
    model.load(script_of(reply(text(long_text), event_delay=0.1), record_timestamps=True))
    result = await run(client, "Talk slowly")

    deltas = events_of(client, "text")
    assert "".join(d["text"] for d in deltas) == long_text == result["text"]
    assert len(deltas) >= 10
    # The first words reached the client before the model finished writing (both clocks
    # are the machine's CLOCK_MONOTONIC; an order, not a duration).
    stamps = model.player.timestamps or []
    finished = max(stamp[-1] for stamp in stamps)
    assert deltas[0]["_at"] * 1e9 < finished


async def test_settings_are_pulled_when_the_client_pushes_none(
    client: RecordingClient, model: ScriptedModelServer
):
    from lsprotocol import types

    client.set_configuration(
        {"baseUrl": model.url, "model": "claude-pulled-model"}, section="workspaceAgent"
    )
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    model.load(script_of(reply(text("Configured."))))
    result = await run(client, "Which model?")  # waits for the server's settings request

    assert result["text"] == "Configured."
    assert model.requests[0].body["model"] == "claude-pulled-model"
