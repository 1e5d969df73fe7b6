"""Why a cancelled run stopped, as its end says it (runEnd's `cause`), live and in the
history a view is rebuilt from after a window reload; and the task after a cancelled
plan: its calls are not the cancelled step's (no `#1` tag, no checkpoint under it), also
after the server restarted.

Each test drives the real server: a run whose plan has step 1 in progress runs a long
sleep, and is cut short one way (the user, a client stopping the server for a reload,
`shutdown`, the client's input closing).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from workspace_agent import protocol as p
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient, another_server, start_server, start_session
from tests.support.lsp import changes, command, events_of, request, run
from tests.support.processes import SLEEPER, sleeping_pid

EXIT_DEADLINE = 20.0
"""Seconds a server gets to end (generous: a loaded 2-core CI machine)."""


def step_one_then(*after: dict[str, Any]) -> dict[str, Any]:
    """Step 1 in progress, a long sleep under it; then `after` (the next runs' replies)."""
    return script_of(
        reply(
            tool(
                "todo",
                {"items": [{"id": "1", "text": "Wait a long time", "status": "in_progress"}]},
            ),
            tool("bash", {"command": SLEEPER}),
        ),
        *after,
    )


NEW_TASK = (
    reply(tool("write_file", {"path": "new.txt", "content": "new\n"})),
    reply(text("Wrote it.")),
)


async def history(client: RecordingClient, session_id: str) -> list[dict[str, Any]]:
    page = await request(client, p.HISTORY_REQUEST, {"sessionId": session_id, "limit": 1000})
    return list(page["entries"])


async def cancelled_run(client: RecordingClient, workspace: Path, cause: str | None) -> str:
    """A run cancelled by the workspaceAgent.cancel command (with `cause` when given)."""
    session_id = (await command(client, p.NEW_SESSION_COMMAND))["sessionId"]
    pending = asyncio.ensure_future(run(client, "Wait", session_id))
    await sleeping_pid(workspace)
    args = {"sessionId": session_id, **({"cause": cause} if cause else {})}
    assert await command(client, p.CANCEL_COMMAND, args) == {"cancelled": True}
    assert (await pending)["stopReason"] == "cancelled"
    return str(session_id)


def files_by_step(found: dict[str, Any]) -> dict[str | None, list[str]]:
    return {item["todoId"]: sorted(f["path"] for f in item["files"]) for item in found["items"]}


async def test_a_cancel_says_the_user_did_it_and_the_next_task_is_not_the_cancelled_step(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    model.load(step_one_then(*NEW_TASK))
    session_id = await cancelled_run(client, workspace, cause=None)
    assert events_of(client, "runEnd")[-1]["cause"] == "user"

    await run(client, "Write new.txt", session_id)

    write = next(e for e in events_of(client, "toolCall") if e["name"] == "write_file")
    assert write["todoId"] is None  # not "1": the cancelled plan's step
    result = next(e for e in events_of(client, "toolResult") if e["name"] == "write_file")
    assert result["todoId"] is None
    assert "new.txt" not in files_by_step(await changes(client, session_id)).get("1", [])
    last = (await history(client, session_id))[-1]
    assert (last["kind"], last["stopReason"]) == ("runEnd", "end_turn")
    assert "cause" not in last  # only a cancelled run's end has one


async def test_the_cancelled_plan_stays_set_aside_after_a_server_restart(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    model.load(step_one_then(*NEW_TASK))
    session_id = await cancelled_run(client, workspace, cause=None)

    fresh = await start_server()
    try:
        await start_session(fresh, workspace, model)
        # The plan reads as it was left (step 1 where it stopped) ...
        todos = await command(fresh, p.GET_TODOS_COMMAND, {"sessionId": session_id})
        assert [item["status"] for item in todos["items"]] == ["in_progress"]
        # ... but a new task's calls are not that step's.
        await run(fresh, "Write new.txt", session_id)
        write = next(e for e in events_of(fresh, "toolCall") if e["name"] == "write_file")
        assert write["todoId"] is None
    finally:
        await fresh.shutdown_session()


async def test_the_model_writing_the_plan_again_tags_calls_with_its_step_again(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    model.load(
        step_one_then(
            reply(
                tool("todo", {"items": [{"id": "1", "text": "Write it", "status": "in_progress"}]}),
                tool("write_file", {"path": "new.txt", "content": "new\n"}),
            ),
            reply(text("Wrote it.")),
        )
    )
    session_id = await cancelled_run(client, workspace, cause=None)

    await run(client, "Write new.txt under a plan", session_id)

    write = next(e for e in events_of(client, "toolCall") if e["name"] == "write_file")
    assert write["todoId"] == "1"


async def test_a_client_that_stops_the_server_for_a_reload_says_so_in_the_history(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    model.load(step_one_then())
    session_id = await cancelled_run(client, workspace, cause="reload")

    assert events_of(client, "runEnd")[-1]["cause"] == "reload"
    async with another_server(workspace) as fresh:  # the window after the reload
        entries = await history(fresh, session_id)
    assert entries[-1]["kind"] == "runEnd"
    assert (entries[-1]["stopReason"], entries[-1]["cause"]) == ("cancelled", "reload")


async def test_a_cancel_with_a_cause_the_contract_does_not_name_is_refused(
    client: RecordingClient,
):
    session_id = (await command(client, p.NEW_SESSION_COMMAND))["sessionId"]
    with pytest.raises(JsonRpcException, match="'cause' must be one of") as refused:
        await command(client, p.CANCEL_COMMAND, {"sessionId": session_id, "cause": "bored"})
    assert refused.value.code == -32602


@pytest.fixture
async def own_server(workspace: Path, model: ScriptedModelServer) -> AsyncIterator[RecordingClient]:
    """A server process the test ends itself (killed afterwards if it is still there)."""
    client = await start_server()
    await start_session(client, workspace, model)
    yield client
    process = client._server
    if process is not None and process.returncode is None:
        process.kill()
        await process.wait()
    with contextlib.suppress(Exception):
        await asyncio.wait_for(client.stop(), 10)


@pytest.mark.parametrize("how", ["shutdown", "stdin closed"])
async def test_a_run_the_server_ending_cuts_off_records_that_the_server_stopped(
    own_server: RecordingClient, model: ScriptedModelServer, workspace: Path, how: str
):
    """No cause from the client (another editor, a crash of the window): the history says
    the server stopped, not that the user cancelled."""
    model.load(step_one_then())
    session_id = (await command(own_server, p.NEW_SESSION_COMMAND))["sessionId"]
    asyncio.ensure_future(run(own_server, "Wait", session_id)).add_done_callback(
        lambda f: f.cancelled() or f.exception()  # the server ends before it answers
    )
    await sleeping_pid(workspace)
    process = own_server._server
    assert process is not None and process.stdin is not None

    if how == "shutdown":
        await own_server.shutdown_async(None)
        own_server.exit(None)
    else:
        process.stdin.close()
    await asyncio.wait_for(process.wait(), EXIT_DEADLINE)

    async with another_server(workspace) as fresh:
        entries = await history(fresh, session_id)
    ends = [entry for entry in entries if entry["kind"] == "runEnd"]
    assert [(e["stopReason"], e.get("cause")) for e in ends] == [("cancelled", "serverStopped")]
