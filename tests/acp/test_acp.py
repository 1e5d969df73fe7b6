"""`workspace-agent acp` end to end: the real agent process on stdio, driven by the ACP
package's own client side, the model replies scripted (the real SDK over HTTP).

Asserts what an ACP client sees (the session/update payloads, permission requests, file
requests, stop reasons), what lands on disk, and what went back to the model.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from acp import (
    RequestError,
    embedded_text_resource,
    resource_block,
    resource_link_block,
    text_block,
)
from acp.schema import AudioContentBlock, ImageContentBlock

from workspace_agent.agent.loop import CANCELLED_RESULT, DECLINED_BY_CANCEL
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.acp import EditorClient, acp_agent, agent_env, prompt, real
from tests.support.lsp import assert_valid_history, tool_results, wait_for
from tests.support.processes import SLEEPER, gone, sleeping_pid


def plan(*statuses: str) -> dict:
    texts = ["Write the module", "Check it"]
    return {
        "items": [
            {"id": str(n + 1), "text": t, "status": s}
            for n, (t, s) in enumerate(zip(texts, statuses, strict=True))
        ]
    }


async def test_initialize_advertises_what_the_agent_supports(
    model: ScriptedModelServer, workspace: Path
):
    client = EditorClient()
    async with acp_agent(client, workspace, agent_env(model)) as (conn, _):
        answer = await conn.initialize(
            protocol_version=1, client_capabilities=client.capabilities()
        )
    wire = answer.model_dump(by_alias=True, exclude_none=True)
    assert wire["protocolVersion"] == 1
    assert wire["agentCapabilities"]["loadSession"] is True
    assert wire["agentCapabilities"]["promptCapabilities"] == {
        "image": True,
        "audio": False,
        "embeddedContext": True,
    }
    assert wire["agentCapabilities"]["sessionCapabilities"]["list"] == {}
    assert wire["authMethods"] == []
    assert wire["agentInfo"]["name"] == "workspace-agent"


async def test_plan_updates_mirror_the_todo_tool(model: ScriptedModelServer, workspace: Path):
    model.load(
        script_of(
            reply(text("Planning first."), tool("todo", plan("in_progress", "pending"))),
            reply(
                tool("todo", plan("completed", "in_progress")),
                tool("todo", {"items": [{"id": "1", "text": "", "status": "pending"}]}),
            ),
            reply(tool("todo", plan("completed", "completed"))),
            reply(text("All done.")),
        )
    )
    client = EditorClient()
    async with acp_agent(client, workspace, agent_env(model)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        stop = await prompt(conn, session.session_id, "Plan a module")

    assert stop == "end_turn"
    assert client.text() == "Planning first.All done."
    plans = client.of_kind("plan")
    assert [[(e["content"], e["status"], e["priority"]) for e in p["entries"]] for p in plans] == [
        [("Write the module", "in_progress", "medium"), ("Check it", "pending", "medium")],
        [("Write the module", "completed", "medium"), ("Check it", "in_progress", "medium")],
        [("Write the module", "completed", "medium"), ("Check it", "completed", "medium")],
    ]
    # Each plan change shows once: as the plan, not also as a todo tool call. The rejected
    # list (an empty text) leaves the plan as it was and shows as one failed call.
    kinds = [u["sessionUpdate"] for _, u in client.updates]
    assert kinds.pop(0) == "available_commands_update"  # after session/new (test_acp_commands.py)
    assert kinds == [
        "agent_message_chunk",
        "plan",
        "plan",
        "tool_call",
        "plan",
        "agent_message_chunk",
        "usage_update",
    ]
    (failed,) = client.of_kind("tool_call")
    assert failed["kind"] == "think" and failed["status"] == "failed"
    assert failed["title"] == "Update the plan (1 items, 0 completed)"
    assert failed["content"][0]["content"]["text"] == (
        "invalid input for todo: items.0.text: must not be empty"
    )
    assert client.of_kind("tool_call_update") == []
    assert {sid for sid, _ in client.updates} == {session.session_id}


async def test_edits_and_writes_arrive_as_diffs(model: ScriptedModelServer, workspace: Path):
    (workspace / "greet.py").write_text("def greet():\n    return 'hi'\n")
    (workspace / "notes.txt").write_text("old notes\r\nline two\r\n")
    model.load(
        script_of(
            reply(
                tool("edit_file", {"path": "greet.py", "old_text": "'hi'", "new_text": "'hello'"}),
                tool("write_file", {"path": "pkg/new.py", "content": "X = 1\n"}),
                tool("write_file", {"path": "notes.txt", "content": "new notes\n"}),
                tool("read_file", {"path": "greet.py", "offset": 2}),
            ),
            reply(text("Edited.")),
        )
    )
    client = EditorClient()
    async with acp_agent(client, workspace, agent_env(model)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        assert await prompt(conn, session.session_id, "Edit things") == "end_turn"

    root = real(workspace)
    assert (workspace / "greet.py").read_text() == "def greet():\n    return 'hello'\n"
    assert (workspace / "pkg" / "new.py").read_text() == "X = 1\n"
    assert (workspace / "notes.txt").read_bytes() == b"new notes\r\n"  # line endings kept
    starts = {c["toolCallId"]: c for c in client.of_kind("tool_call")}
    ends = {u["toolCallId"]: u for u in client.of_kind("tool_call_update")}
    edit, new, overwrite, read = starts
    assert starts[edit]["kind"] == "edit" and starts[edit]["title"] == "Edit greet.py"
    assert starts[edit]["locations"] == [{"path": str(root / "greet.py")}]
    assert starts[edit]["rawInput"] == {
        "path": "greet.py",
        "old_text": "'hi'",
        "new_text": "'hello'",
    }
    assert ends[edit]["status"] == "completed"
    assert ends[edit]["content"] == [  # the whole file, so clients number its lines right
        {
            "type": "diff",
            "path": str(root / "greet.py"),
            "oldText": "def greet():\n    return 'hi'\n",
            "newText": "def greet():\n    return 'hello'\n",
        }
    ]
    assert ends[edit]["locations"] == [{"path": str(root / "greet.py"), "line": 2}]
    assert ends[new]["content"] == [
        {"type": "diff", "path": str(root / "pkg" / "new.py"), "newText": "X = 1\n"}
    ]
    assert ends[overwrite]["content"] == [
        {
            "type": "diff",
            "path": str(root / "notes.txt"),
            "oldText": "old notes\nline two\n",
            "newText": "new notes\n",
        }
    ]
    assert starts[read]["kind"] == "read"
    assert starts[read]["locations"] == [{"path": str(root / "greet.py"), "line": 2}]
    shown = ends[read]["content"][0]["content"]["text"]
    assert shown.startswith("```\ngreet.py: lines 2-2 of 2") and shown.endswith("\n```")
    results = tool_results(model.requests[1].body)
    assert results[0]["content"].startswith("Edited greet.py: replaced 1 occurrence")


async def test_permission_asked_and_declined(model: ScriptedModelServer, workspace: Path):
    model.load(
        script_of(
            reply(tool("bash", {"command": "touch ran.txt"})),
            reply(tool("bash", {"command": "touch ran-again.txt"})),
            reply(text("I was not allowed.")),
        )
    )
    client = EditorClient(False, "reject_once", None)  # the second question is dismissed
    # unsandboxed, every command is asked about (in the sandbox a plain one is not)
    env = agent_env(model, WORKSPACE_AGENT_SANDBOX="off")
    async with acp_agent(client, workspace, env) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        assert await prompt(conn, session.session_id, "Run it") == "end_turn"

    assert not (workspace / "ran.txt").exists()
    first, second = client.permission_requests[:1] + client.permission_requests[1:]
    call_ids = [c["toolCallId"] for c in client.of_kind("tool_call")]
    assert first["sessionId"] == session.session_id
    assert first["toolCall"]["toolCallId"] == call_ids[0]
    assert first["toolCall"]["status"] == "pending"
    assert first["toolCall"]["kind"] == "execute"
    assert first["toolCall"]["title"] == "`touch ran.txt`"
    assert [(o["optionId"], o["kind"]) for o in first["options"]] == [
        ("allow_once", "allow_once"),
        ("allow_always", "allow_always"),
        ("reject_once", "reject_once"),
    ]
    assert second["toolCall"]["toolCallId"] == call_ids[1]
    ends = client.of_kind("tool_call_update")
    assert [u["status"] for u in ends] == ["failed", "failed"]
    (declined,) = tool_results(model.requests[1].body)
    assert declined["is_error"] is True
    assert declined["content"] == "the user declined to let the agent run `touch ran.txt`"


async def test_allow_for_this_session_stops_the_asking(model: ScriptedModelServer, workspace: Path):
    model.load(
        script_of(
            reply(tool("bash", {"command": "echo one > one.txt"})),
            reply(tool("bash", {"command": "echo two > two.txt"})),
            reply(text("Both ran.")),
        )
    )
    client = EditorClient(False, "allow_always")
    # unsandboxed, every command is asked about (in the sandbox a plain one is not)
    env = agent_env(model, WORKSPACE_AGENT_SANDBOX="off")
    async with acp_agent(client, workspace, env) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        assert await prompt(conn, session.session_id, "Run both") == "end_turn"

    assert len(client.permission_requests) == 1
    assert (workspace / "one.txt").read_text() == "one\n"
    assert (workspace / "two.txt").read_text() == "two\n"
    statuses = [u["status"] for u in client.of_kind("tool_call_update")]
    assert statuses == ["in_progress", "completed", "completed"]  # in_progress once allowed
    output = client.of_kind("tool_call_update")[1]["content"][0]["content"]["text"]
    assert output == "```\n(no output)\n[exit status 0]\n```"


async def test_cancel_mid_command_kills_it_and_keeps_the_session(
    model: ScriptedModelServer, workspace: Path
):
    model.load(
        script_of(
            reply(
                tool("bash", {"command": SLEEPER}),
                tool("write_file", {"path": "never.txt", "content": "x"}),
            ),
            reply(text("Picking up again.")),
        )
    )
    client = EditorClient()
    async with acp_agent(client, workspace, agent_env(model), "--yes") as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        running = asyncio.ensure_future(prompt(conn, session.session_id, "Wait"))
        pid = await sleeping_pid(workspace)
        with pytest.raises(RequestError, match=f"session {session.session_id} is busy") as busy:
            await prompt(conn, session.session_id, "Another prompt meanwhile")
        assert busy.value.code == -32602
        started = time.monotonic()
        await conn.cancel(session_id=session.session_id)
        stop = await running
        elapsed = time.monotonic() - started

        assert stop == "cancelled"
        assert elapsed < 1.0, f"cancel took {elapsed:.2f}s"
        await wait_for(lambda: gone(pid), 2, "the sleep to be killed")
        assert not (workspace / "never.txt").exists()
        ends = client.of_kind("tool_call_update")
        assert [u["status"] for u in ends] == ["failed"]
        assert ends[0]["content"][0]["content"]["text"] == CANCELLED_RESULT

        assert await prompt(conn, session.session_id, "Go on") == "end_turn"
    assert client.text().endswith("Picking up again.")
    assert_valid_history(model.requests[-1].body["messages"])
    assert model.requests[-1].body["messages"][-1]["content"][-1]["text"] == "Go on"


async def test_load_after_a_restart_replays_the_conversation(
    model: ScriptedModelServer, workspace: Path
):
    model.load(
        script_of(
            reply(text("Planning."), tool("todo", plan("in_progress", "pending"))),
            reply(tool("write_file", {"path": "mod.py", "content": "A = 1\n"})),
            reply(text("Half way."), tool("todo", plan("completed", "in_progress"))),
            reply(text("Stopping here.")),
            reply(text("Continuing after the restart.")),
        )
    )
    first = EditorClient()
    async with acp_agent(first, workspace, agent_env(model), "--yes") as (conn, _):
        session_id = (await conn.new_session(cwd=str(workspace))).session_id
        assert await prompt(conn, session_id, "Write the module") == "end_turn"

    second = EditorClient()
    async with acp_agent(second, workspace, agent_env(model), "--yes") as (conn, _):
        listed = await conn.list_sessions(cwd=str(workspace))
        assert [(s.session_id, s.title) for s in listed.sessions] == [
            (session_id, "Write the module")
        ]
        await conn.load_session(cwd=str(workspace), session_id=session_id)
        replayed = [u for _, u in second.updates]
        assert await prompt(conn, session_id, "Continue") == "end_turn"

    kinds = [u["sessionUpdate"] for u in replayed]
    assert kinds.pop() == "available_commands_update"  # after the replay (test_acp_commands.py)
    assert kinds == [
        "user_message_chunk",
        "agent_message_chunk",
        "tool_call",
        "tool_call_update",
        "agent_message_chunk",
        "agent_message_chunk",
        "plan",
    ]  # no usage_update: how full the context is is known again after the next model call
    # (the todo calls are not replayed as calls: the plan shows what they did, as live)
    assert replayed[0]["content"]["text"] == "Write the module"
    assert replayed[1]["content"]["text"] == "Planning."
    write_call = replayed[2]
    assert write_call["title"] == "Edit mod.py" and write_call["kind"] == "edit"
    assert write_call["locations"] == [{"path": str(real(workspace) / "mod.py")}]
    assert replayed[3]["status"] == "completed"
    assert replayed[3]["content"] == [
        {"type": "diff", "path": str(real(workspace) / "mod.py"), "newText": "A = 1\n"}
    ]
    assert replayed[4]["content"]["text"] == "Half way."
    assert replayed[5]["content"]["text"] == "Stopping here."
    assert [e["status"] for e in replayed[6]["entries"]] == ["completed", "in_progress"]
    (before,) = first.of_kind("usage_update")
    (after,) = second.of_kind("usage_update")
    assert before["size"] == after["size"] == 200_000  # the default context window
    assert 0 < before["used"] < after["used"]  # the conversation grew by a turn
    # The follow-up went to the model with the whole saved conversation.
    messages = model.requests[-1].body["messages"]
    assert_valid_history(messages)
    assert messages[0]["content"][0]["text"] == "Write the module"
    assert messages[-1]["content"][-1]["text"] == "Continue"
    # The plan replayed on load is not sent again when the next run starts.
    assert second.of_kind("plan") == [replayed[6]]
    assert second.text().endswith("Continuing after the restart.")


async def test_a_client_with_fs_serves_unsaved_buffers(model: ScriptedModelServer, workspace: Path):
    (workspace / "app.py").write_text("VALUE = 'on disk'\n")
    model.load(
        script_of(
            reply(tool("read_file", {"path": "app.py"})),
            reply(
                tool("edit_file", {"path": "app.py", "old_text": "unsaved", "new_text": "edited"}),
                tool("write_file", {"path": "docs/new.md", "content": "# New\n"}),
            ),
            reply(text("Done.")),
        )
    )
    client = EditorClient(fs=True)
    app = str(real(workspace) / "app.py")
    client.buffers[app] = "VALUE = 'unsaved'\nEXTRA = 2\n"  # typed, not saved
    async with acp_agent(client, workspace, agent_env(model), "--yes") as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        assert await prompt(conn, session.session_id, "Change the value") == "end_turn"

    (read,) = tool_results(model.requests[1].body)
    assert read["content"] == (
        "app.py: lines 1-2 of 2 (open in the editor)\n     1\tVALUE = 'unsaved'\n     2\tEXTRA = 2"
    )
    new_md = str(real(workspace) / "docs" / "new.md")
    assert client.writes == [
        (app, "VALUE = 'edited'\nEXTRA = 2\n"),
        (new_md, "# New\n"),
    ]
    assert (workspace / "app.py").read_text() == "VALUE = 'edited'\nEXTRA = 2\n"
    assert (workspace / "docs" / "new.md").read_text() == "# New\n"
    edit, create = tool_results(model.requests[2].body)
    assert edit["content"].startswith("Edited app.py in the editor")
    assert create["content"] == "Created docs/new.md in the editor (1 lines)"


async def test_a_client_without_fs_is_never_asked_for_files(
    model: ScriptedModelServer, workspace: Path
):
    (workspace / "app.py").write_text("VALUE = 1\n")
    model.load(
        script_of(
            reply(
                tool("read_file", {"path": "app.py"}),
                tool("edit_file", {"path": "app.py", "old_text": "1", "new_text": "2"}),
            ),
            reply(text("Done.")),
        )
    )
    client = EditorClient(fs=False)
    async with acp_agent(client, workspace, agent_env(model), "--yes") as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        assert await prompt(conn, session.session_id, "Bump it") == "end_turn"
    assert client.reads == [] and client.writes == []
    assert (workspace / "app.py").read_text() == "VALUE = 2\n"


async def test_an_edit_is_refused_when_the_buffer_changed_meanwhile(
    model: ScriptedModelServer, workspace: Path
):
    (workspace / "app.py").write_text("A = 1\n")
    model.load(
        script_of(
            reply(tool("edit_file", {"path": "app.py", "old_text": "A = 1", "new_text": "A = 2"})),
            reply(text("Retry later.")),
        )
    )
    client = EditorClient(fs=True)
    app = str(real(workspace) / "app.py")
    original = client.read_text_file

    async def typing_meanwhile(session_id: str, path: str, **kw):
        answer = await original(session_id, path, **kw)
        client.buffers[app] = "A = 1\nB = 'typed by the user'\n"  # after the agent's read
        return answer

    client.read_text_file = typing_meanwhile  # type: ignore[method-assign]
    async with acp_agent(client, workspace, agent_env(model), "--yes") as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        assert await prompt(conn, session.session_id, "Edit") == "end_turn"
    assert client.writes == []
    assert client.buffers[app] == "A = 1\nB = 'typed by the user'\n"
    (refused,) = tool_results(model.requests[1].body)
    assert refused["is_error"] is True
    assert "app.py changed in the editor while the agent was editing it" in refused["content"]


async def test_prompt_errors_are_json_rpc_errors(model: ScriptedModelServer, workspace: Path):
    client = EditorClient()
    env = agent_env(model)
    del env["ANTHROPIC_API_KEY"]
    async with acp_agent(client, workspace, env) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        with pytest.raises(RequestError, match="ANTHROPIC_API_KEY is not set") as missing:
            await prompt(conn, session.session_id, "Anything")
        assert missing.value.code == -32603
        image = ImageContentBlock(type="image", data="AAAA", mime_type="image/png")
        with pytest.raises(RequestError, match="image 1 is not a PNG, JPEG") as refused:
            await conn.prompt(session_id=session.session_id, prompt=[image])
        assert refused.value.code == -32602
        audio = AudioContentBlock(type="audio", data="AAAA", mime_type="audio/wav")
        with pytest.raises(RequestError, match="audio content is not supported") as refused:
            await conn.prompt(session_id=session.session_id, prompt=[audio])
        assert refused.value.code == -32602
        with pytest.raises(RequestError, match="there is no session 'nope'") as unknown:
            await conn.prompt(session_id="nope", prompt=[text_block("hi")])
        assert unknown.value.code == -32002
        with pytest.raises(RequestError, match="there is no session 'missing'"):
            await conn.load_session(cwd=str(workspace), session_id="missing")
        with pytest.raises(RequestError, match="cwd must be an absolute path"):
            await conn.new_session(cwd="relative/dir")
    assert model.requests == []


async def test_cancel_while_a_permission_question_is_open(
    model: ScriptedModelServer, workspace: Path
):
    model.load(
        script_of(
            reply(tool("bash", {"command": "touch ran.txt"})),
            reply(text("Understood, not running it.")),
        )
    )
    client = EditorClient(False, "wait")
    # unsandboxed, every command is asked about (in the sandbox a plain one is not)
    env = agent_env(model, WORKSPACE_AGENT_SANDBOX="off")
    async with acp_agent(client, workspace, env) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        running = asyncio.ensure_future(prompt(conn, session.session_id, "Run it"))
        await wait_for(lambda: client.permission_requests, 20, "the permission request")
        await conn.cancel(session_id=session.session_id)
        client.cancelled.set()
        assert await running == "cancelled"
        assert await prompt(conn, session.session_id, "Never mind") == "end_turn"

    assert not (workspace / "ran.txt").exists()
    (declined,) = tool_results(model.requests[-1].body)
    assert declined["content"] == DECLINED_BY_CANCEL.format("run `touch ran.txt`")
    assert [u["status"] for u in client.of_kind("tool_call_update")] == ["failed"]


async def test_prompt_content_stop_reasons_and_notices(model: ScriptedModelServer, workspace: Path):
    (workspace / "app.py").write_text("A = 1\n")
    model.load(
        {
            "conversations": [
                {"match": "Look at", "replies": [reply(text("Seen."))]},
                {
                    "match": "Keep going",
                    "replies": [
                        {"error": {"status": 529, "message": "Overloaded"}},
                        reply(tool("bash", {"command": "echo one"})),
                        reply(tool("bash", {"command": "echo two"})),
                    ],
                },
            ]
        }
    )
    client = EditorClient()
    env = agent_env(model, WORKSPACE_AGENT_MAX_TURNS="2")
    async with acp_agent(client, workspace, env, "--yes") as (conn, _):
        first = await conn.new_session(cwd=str(workspace))
        app = (real(workspace) / "app.py").as_uri()
        answer = await conn.prompt(
            session_id=first.session_id,
            prompt=[
                text_block("Look at "),
                resource_link_block("app.py", app),
                text_block(" and at this:"),
                resource_block(embedded_text_resource(app, "A = 1\n", mime_type="text/x-python")),
            ],
        )
        assert answer.stop_reason == "end_turn"
        second = await conn.new_session(cwd=str(workspace))
        assert await prompt(conn, second.session_id, "Keep going") == "max_turn_requests"

    context, sent = model.requests[0].body["messages"][0]["content"]
    assert sent["text"] == "Look at `app.py` and at this:"
    assert context["text"].startswith("<editor-context>\nWhat the user mentions with @")
    assert "Mentioned file app.py:\n```\nA = 1\n\n```" in context["text"]
    assert "Attached file app.py:\n```\nA = 1\n\n```" in context["text"]
    notes = [
        u["content"]["text"]
        for sid, u in client.updates
        if sid == second.session_id and u["sessionUpdate"] == "agent_message_chunk"
    ]
    assert len(notes) == 3
    assert notes[0].startswith("> sandbox: on (bubblewrap") and "--yes: network only to" in notes[0]
    assert notes[1].startswith("\n\n> retrying in ") and "(overloaded, 529)" in notes[1]
    assert notes[2].startswith("\n\n> Stopped at the turn limit (2 model turns")  # and the way on


async def test_a_command_the_guard_cannot_read_is_asked_about_even_with_yes(
    model: ScriptedModelServer, workspace: Path
):
    command = "eval \"$(printf 'echo guarded')\""
    model.load(script_of(reply(tool("bash", {"command": command})), reply(text("Ran it."))))
    client = EditorClient(False, "allow_once")
    async with acp_agent(client, workspace, agent_env(model), "--yes") as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        assert await prompt(conn, session.session_id, "Run the computed command") == "end_turn"

    (question,) = client.permission_requests
    assert [o["optionId"] for o in question["options"]] == ["allow_once", "reject_once"]
    asked = question["toolCall"]["content"][0]["content"]["text"]
    assert asked.startswith(f"The agent wants to run `{command}`. It is asked about because eval")
    (result,) = tool_results(model.requests[1].body)
    assert result["content"] == "guarded\n[exit status 0]"
