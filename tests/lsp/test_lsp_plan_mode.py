"""Plan mode through the real server: a plan-mode run changes nothing on disk by any
route the model tries (each attempt gets a result saying why), ends with `planReady` and
the plan; workspaceAgent/approvePlan runs the plan as the user left it (verbatim to the
model, the todo ids kept) or has it revised (back in plan mode, with a diff of plans);
and its errors say what to do next. The CI machine runs these as root: the read-only
workspace holds for root too."""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from workspace_agent import protocol as p
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient, session_fixture
from tests.support.git import git
from tests.support.lsp import changes, command, request, run, tool_results, wait_for
from tests.support.mcp import FILESYSTEM, record_states, require_servers
from tests.support.server import TEST_KEY, USER_CONFIG, no_bwrap_path, server_env
from tests.support.wheels import wheel_with_a_script

# Tests that start the real MCP servers share one pytest-xdist worker: some count those
# servers' processes machine-wide.
pytestmark = pytest.mark.xdist_group("mcp-servers")

editor = session_fixture("editor", editor={"saves": True}, settings={})
"""An editor with the default approvals: files are written and sandboxed commands run
without a question, so whatever is refused here is refused by plan mode."""

editor_without_bwrap = session_fixture(
    "editor_without_bwrap",
    env=server_env(ANTHROPIC_API_KEY=TEST_KEY, PATH=no_bwrap_path()),
    editor={"saves": True},
    settings={"approvals": {"bash": "allow"}},
)
"""No sandbox can start, and commands are allowed without a question (in act mode)."""

editor_allowing_mcp = session_fixture(
    "editor_allowing_mcp", editor={"saves": True}, settings={"approvals": {"mcp": "allow"}}
)
"""An editor whose MCP tools are allowed without a question (in act mode)."""

PLAN = {
    "items": [
        {"id": "1", "text": "Read the greeting module", "status": "pending"},
        {"id": "2", "text": "Change the greeting to hello", "status": "pending"},
        {"id": "3", "text": "Add a test for the greeting", "status": "pending"},
    ]
}


def disk_state(root: Path) -> dict[str, str]:
    """Every path under `root` (the .git folder too) with its content's hash, but for the
    agent's own folder (its sessions and checkpoint store)."""
    state = {}
    for path in sorted(root.rglob("*")):
        key = path.relative_to(root).as_posix()
        if key.split("/")[0] == ".workspace-agent":
            continue
        state[key] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
    return state


def last_user_text(body: dict[str, Any]) -> str:
    last = body["messages"][-1]
    assert last["role"] == "user"
    return "\n".join(b["text"] for b in last["content"] if b["type"] == "text")


def system_text(body: dict[str, Any]) -> str:
    system = body["system"]
    return system if isinstance(system, str) else "".join(b["text"] for b in system)


async def approve(client: RecordingClient, **params: Any) -> dict[str, Any]:
    return await request(client, p.APPROVE_PLAN_REQUEST, params)


async def test_in_plan_mode_nothing_on_disk_changes_by_any_route(
    editor: RecordingClient,
    workspace: Path,
    model: ScriptedModelServer,
    sandbox_works: None,
):
    (workspace / "app.py").write_text("GREETING = 'hi'\n")
    git(workspace, "init", "-q")
    git(workspace, "add", "app.py")
    git(workspace, "commit", "-qm", "start")
    head = git(workspace, "rev-parse", "HEAD")
    wheels = workspace / "dist"  # in the workspace: the jail's /tmp is not the host's
    wheels.mkdir()
    wheel = wheel_with_a_script(wheels).relative_to(workspace)
    before = disk_state(workspace)
    attempts = [
        tool("write_file", {"path": "new.py", "content": "x = 1\n"}),
        tool("edit_file", {"path": "app.py", "old_text": "hi", "new_text": "hello"}),
        tool("bash", {"command": "echo x > out.txt"}),
        tool("bash", {"command": "sed -i s/hi/hello/ app.py"}),
        tool("bash", {"command": "git -c user.name=A -c user.email=a@b commit -qam sneaky"}),
        tool(
            "bash",
            {"command": f"{sys.executable} -m pip install -q --no-index --target vendor {wheel}"},
        ),
        tool("bash", {"command": "echo y > out.txt", "unsandboxed_reason": "to write"}),
        tool("bash", {"command": "echo scratch > /tmp/note && cat /tmp/note"}),
    ]
    model.load(
        script_of(
            reply(*attempts),
            reply(tool("todo", PLAN)),
            reply(text("Approach: change the constant, then test it.")),
        )
    )

    result = await run(editor, "/plan Say hello instead of hi")

    assert result["stopReason"] == "planReady"
    assert result["todos"] == PLAN["items"]
    assert result["text"] == "Approach: change the constant, then test it."
    assert disk_state(workspace) == before
    assert git(workspace, "rev-parse", "HEAD") == head
    assert editor.double.questions == []  # refused (or confined) without asking
    recorded = await changes(editor, result["sessionId"])
    assert [item["files"] for item in recorded["items"]] == [[]]  # the commands, no change
    assert recorded["lastRun"] is None  # no run that changed files

    first = model.requests[0].body
    assert last_user_text(first) == "Say hello instead of hi"  # the prefix is taken off
    assert "Plan mode: the user wants to see and shape your plan" in system_text(first)
    assert [t["name"] for t in first["tools"]][:5] == [
        "bash",
        "read_file",
        "write_file",
        "edit_file",
        "todo",
    ]  # the same tools as an act run: only their calls are refused
    write, edit, redirect, sed, commit, pip, leave, scratch = [
        (r["content"], r.get("is_error", False)) for r in tool_results(model.requests[1].body)
    ]
    refused = (
        "not done: you are in plan mode, so no file is changed yet. Put this change in the "
        "plan (the todo tool) instead; it is made once the user approves the plan."
    )
    assert write == (refused, True) and edit == (refused, True)
    for output, _ in (redirect, sed):
        assert "Read-only file system" in output
        assert "plan mode: the whole workspace is read-only" in output
        assert "put this change in the plan (the todo tool)" in output
        assert "unsandboxed_reason" not in output  # no way out is offered while planning
    assert "[exit status 0]" not in commit[0] and "Read-only file system" in commit[0]
    assert "[exit status 0]" not in pip[0] and "Read-only file system" in pip[0]
    assert "plan mode: the whole workspace is read-only" in pip[0]
    assert leave[0].startswith("not run: you are in plan mode, where commands run in the sandbox")
    assert leave[1] is True
    assert scratch[0].startswith("scratch\n") and "[exit status 0]" in scratch[0]

    (start,) = editor.events_of(p.EVENT_RUN_START)
    assert start["mode"] == "plan" and start["prompt"] == "Say hello instead of hi"


async def test_without_a_sandbox_each_plan_command_is_asked_about(
    editor_without_bwrap: RecordingClient, workspace: Path, model: ScriptedModelServer
):
    double = editor_without_bwrap.double
    double.answers = ["Deny"]
    model.load(
        script_of(
            reply(tool("bash", {"command": "echo x > out.txt"})),
            reply(tool("todo", PLAN)),
            reply(text("Plan ready.")),
        )
    )

    result = await run(editor_without_bwrap, "/plan Tidy up")

    assert result["stopReason"] == "planReady"
    (question,) = double.questions  # asked although bash is allowed: plan mode asks
    assert question.startswith("Workspace Agent wants to run `echo x > out.txt`")
    assert "plan mode would have kept the workspace read-only in the sandbox" in question
    assert not (workspace / "out.txt").exists()
    (declined,) = tool_results(model.requests[1].body)
    assert declined["content"].startswith("the user declined")


async def plan_first(client: RecordingClient, model: ScriptedModelServer, *later: Any) -> str:
    """A plan-mode run that ends with PLAN, the script going on with `later`; its session."""
    model.load(script_of(reply(tool("todo", PLAN)), reply(text("The approach.")), *later))
    result = await run(client, "Plan the greeting", mode="plan")
    assert result["stopReason"] == "planReady"
    return str(result["sessionId"])


async def test_an_approved_plan_reaches_the_model_verbatim_and_keeps_its_ids(
    editor: RecordingClient, workspace: Path, model: ScriptedModelServer
):
    (workspace / "app.py").write_text("GREETING = 'hi'\n")
    working = {
        "items": [
            {"id": "2", "text": "Change the greeting to 'hello there'", "status": "in_progress"},
            {"id": "1", "text": "Read the greeting module", "status": "pending"},
            {"id": "user-1", "text": "Update the README", "status": "pending"},
        ]
    }
    session_id = await plan_first(
        editor,
        model,
        reply(tool("todo", working), tool("write_file", {"path": "done.txt", "content": "ok"})),
        reply(text("Done.")),
    )
    items = [
        {"id": "2", "text": "Change the greeting to 'hello there'", "edited": True},
        {"id": "1", "text": "Read the greeting module"},
        {"id": "user-1", "text": "Update the README", "edited": True},
    ]
    comments = [{"todoId": "1", "text": "only app.py matters"}]
    todos_before = len(editor.todos)

    result = await approve(
        editor, sessionId=session_id, items=items, comments=comments, action="run"
    )

    assert result["stopReason"] == "end_turn" and result["sessionId"] == session_id
    first = model.requests[2].body  # the act run's first request
    assert last_user_text(first) == (
        "The user approved this plan, as shown below. Your todo list is already set to it (the "
        "same ids, every item pending): carry it out in this order, marking each item "
        "in_progress and then completed with the todo tool as you go. Items marked as edited "
        "by the user are in their words; follow the user's comments.\n"
        "\n"
        "The plan:\n"
        "- [#2] Change the greeting to 'hello there' (edited by the user)\n"
        "- [#1] Read the greeting module\n"
        "  > user comment: only app.py matters\n"
        "- [#user-1] Update the README (edited by the user)\n"
        "\n"
        "Left out by the user (do not do them):\n"
        "- [#3] Add a test for the greeting"
    )
    assert "Plan mode" not in system_text(first)  # an act run: files change
    assert (workspace / "done.txt").read_text() == "ok"
    # The todo list was the approved plan before the model's first turn, ids kept.
    approved = editor.todos[todos_before]
    assert [(i["id"], i["text"], i["status"]) for i in approved["items"]] == [
        (i["id"], i["text"], "pending") for i in items
    ]
    assert [i["id"] for i in result["todos"]] == ["2", "1", "user-1"]
    assert "planDiff" not in result
    # the user's card says what the user did; the model got the instruction (above)
    start = editor.events_of(p.EVENT_RUN_START)[-1]
    assert start["said"] == "Ran the plan (3 items, 2 edited, 1 comment)"
    assert start["prompt"] == last_user_text(first)


async def test_keep_planning_sends_the_comments_back_in_plan_mode_and_diffs_the_plans(
    editor: RecordingClient, workspace: Path, model: ScriptedModelServer
):
    revised = {
        "items": [
            {"id": "2", "text": "Change the greeting to hello in app.py", "status": "pending"},
            {"id": "3", "text": "Add a test for the greeting", "status": "pending"},
            {"id": "4", "text": "Run the tests", "status": "pending"},
        ]
    }
    session_id = await plan_first(
        editor,
        model,
        reply(tool("write_file", {"path": "new.py", "content": "x"}), tool("todo", revised)),
        reply(text("Revised: the change is now in app.py, and the tests run.")),
    )
    items = [
        {"id": "1", "text": "Read the greeting module"},
        {"id": "2", "text": "Change the greeting to hello"},
        {"id": "3", "text": "Add a test for the greeting"},
    ]
    comments = [{"todoId": "2", "text": "which file?"}]

    result = await approve(
        editor, sessionId=session_id, items=items, comments=comments, action="revise"
    )

    assert result["stopReason"] == "planReady"
    assert result["todos"] == revised["items"]
    assert result["planDiff"] == {
        "items": [
            {"id": "2", "change": "reworded", "previousText": "Change the greeting to hello"},
            {"id": "3", "change": "unchanged"},
            {"id": "4", "change": "new"},
        ],
        "removed": [{"id": "1", "text": "Read the greeting module"}],
    }
    asked = model.requests[2].body
    message = last_user_text(asked)
    assert message.startswith("The user wants a revised plan")
    assert "- [#2] Change the greeting to hello\n  > user comment: which file?" in message
    assert "Plan mode: the user wants to see and shape your plan" in system_text(asked)
    (write,) = [r for r in tool_results(model.requests[3].body) if r.get("is_error")]
    assert write["content"].startswith("not done: you are in plan mode")
    assert not (workspace / "new.py").exists()
    starts = editor.events_of(p.EVENT_RUN_START)
    assert [s.get("mode") for s in starts] == ["plan", "plan"]
    assert "said" not in starts[0]  # the user's own words
    assert starts[1]["said"] == "Asked for a revised plan (3 items, 1 comment)"
    assert starts[1]["prompt"] == message


async def test_approve_plan_refuses_saying_what_to_do_next(
    editor: RecordingClient, workspace: Path, model: ScriptedModelServer
):
    item = [{"id": "1", "text": "Read the greeting module"}]
    with pytest.raises(JsonRpcException, match="there is no session 'nope': start a plan") as e:
        await approve(editor, sessionId="nope", items=item, action="run")
    assert e.value.code == p.REQUEST_FAILED

    session_id = await plan_first(editor, model, reply(text("slow"), delay=30))
    with pytest.raises(JsonRpcException, match="the plan has no items: add an item") as e:
        await approve(editor, sessionId=session_id, items=[], action="run")
    assert e.value.code == p.REQUEST_FAILED
    with pytest.raises(JsonRpcException, match=r"'comments\[0\]'.todoId must be the id") as e:
        await approve(
            editor,
            sessionId=session_id,
            items=item,
            comments=[{"todoId": "3", "text": "gone"}],
            action="run",
        )
    assert e.value.code == p.INVALID_PARAMS
    with pytest.raises(JsonRpcException, match=r"'items\[0\]'.text must not be empty") as e:
        await approve(editor, sessionId=session_id, items=[{"id": "1", "text": " "}], action="run")
    assert e.value.code == p.INVALID_PARAMS

    running = asyncio.ensure_future(run(editor, "go on", session_id))
    await asyncio.sleep(0.5)  # the scripted answer takes 30 s
    with pytest.raises(JsonRpcException, match=f"session {session_id} has a run in progress") as e:
        await approve(editor, sessionId=session_id, items=item, action="run")
    assert e.value.code == p.REQUEST_FAILED
    assert "wait for it to end or cancel it, then approve the plan again" in str(e.value)
    await command(editor, p.CANCEL_COMMAND, {"sessionId": session_id})
    assert (await running)["stopReason"] == "cancelled"


@pytest.fixture
def filesystem_server(workspace: Path) -> Iterator[None]:
    """The npm filesystem MCP server on the workspace, in the user's config (removed after)."""
    require_servers()
    servers = {"fs": {"command": str(FILESYSTEM), "args": [str(workspace)]}}
    (USER_CONFIG / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    yield
    (USER_CONFIG / "mcp.json").unlink(missing_ok=True)


async def test_in_plan_mode_only_mcp_tools_marked_read_only_run(
    filesystem_server: None,
    editor_allowing_mcp: RecordingClient,
    workspace: Path,
    model: ScriptedModelServer,
):
    client = editor_allowing_mcp
    states = record_states(client)
    (workspace / "app.py").write_text("GREETING = 'hi'\n")
    model.load({"conversations": [{"replies": [reply(text("ok"))]}], "on_exhausted": "repeat"})
    await run(client, "warm up")  # the first run finds the config written after the start
    await wait_for(
        lambda: any(s["state"] == "ready" for batch in states for s in batch),
        timeout=30,
        what="the filesystem server ready",
    )
    before = disk_state(workspace)
    model.load(
        script_of(
            reply(
                tool("mcp__fs__write_file", {"path": str(workspace / "x.txt"), "content": "x"}),
                tool("mcp__fs__read_text_file", {"path": str(workspace / "app.py")}),
                tool("todo", PLAN),
            ),
            reply(text("The approach.")),
        )
    )

    result = await run(client, "/plan Change the greeting")

    assert result["stopReason"] == "planReady"
    assert disk_state(workspace) == before
    write, read, _ = tool_results(model.requests[-1].body)
    assert write["is_error"] is True
    assert write["content"].startswith(
        "not called: you are in plan mode, and mcp__fs__write_file is not marked read-only"
    )
    assert "GREETING = 'hi'" in read["content"] and not read.get("is_error")
    assert client.double.questions == []
