"""Saved sessions end to end through the real server: listing reads only each session's
summary (never the conversation), off the event loop, so a run's notifications keep
flowing while a client lists; old files without a summary still list; idle sessions
leave memory and come back from disk unchanged, while running ones stay."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from workspace_agent import protocol as p
from workspace_agent.agent.session_cache import IDLE_SESSIONS_KEPT
from workspace_agent.agent.store import SessionStore, StoreError
from workspace_agent.lsp.wire import to_plain
from workspace_agent.testing.scripted_model import (
    ScriptedModelServer,
    reply,
    script_of,
    text,
    tool,
)

from tests.support.client import RecordingClient, another_server
from tests.support.lsp import command, push_settings, run, wait_for
from tests.support.server import folder_of

OTHERS = IDLE_SESSIONS_KEPT + 2
"""Enough other sessions to push an idle one out of the server's memory."""

PLAN = {
    "items": [
        {"id": "1", "text": "Read the code", "status": "completed"},
        {"id": "2", "text": "Change it", "status": "in_progress"},
        {"id": "3", "text": "Test it", "status": "pending"},
    ]
}


async def list_sessions(client: RecordingClient) -> dict[str, Any]:
    listed: dict[str, Any] = to_plain(
        await client.protocol.send_request_async(p.SESSIONS_REQUEST, {})
    )
    return listed


def entry(listed: dict[str, Any], session_id: str) -> dict[str, Any]:
    (found,) = [s for s in listed["sessions"] if s["sessionId"] == session_id]
    return found


def corrupt_middle(path: Path) -> None:
    """Break the file's longest line in two, keeping the file's size and modification
    time: only a reader of the conversation itself can notice."""
    data = path.read_bytes()
    before = path.stat()
    lines = data.split(b"\n")
    longest = max(range(len(lines)), key=lambda n: len(lines[n]))
    start = sum(len(line) + 1 for line in lines[:longest]) + len(lines[longest]) // 2
    path.write_bytes(data[:start] + b"\n" + data[start + 1 :])
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size


def old_session_lines(session_id: str, title: str, turns: int, result_bytes: int) -> list[str]:
    """A session file as the server wrote them before summaries existed."""
    records: list[dict[str, Any]] = [
        {"type": "session", "id": session_id, "created": 1_700_000_000.0, "format": 1},
        {"type": "title", "text": title},
    ]
    for turn in range(turns):
        records.append(
            {
                "type": "messages",
                "messages": [
                    {
                        "role": "assistant",
                        "content": [
                            {"type": "tool_use", "id": f"t{turn}", "name": "read_file", "input": {}}
                        ],
                    },
                    {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": f"t{turn}",
                                "content": "x = 1\n" * (result_bytes // 6),
                            }
                        ],
                    },
                ],
            }
        )
    records.append({"type": "todos", "items": PLAN["items"]})
    records.append({"type": "usage", "inputTokens": 10, "outputTokens": 5})
    return [json.dumps(r) for r in records]


def write_old_session(
    folder: Path, session_id: str, title: str, turns: int = 3, result_bytes: int = 600
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session_id}.jsonl"
    path.write_text("\n".join(old_session_lines(session_id, title, turns, result_bytes)) + "\n")
    return path


def configure(client: RecordingClient, model: ScriptedModelServer, **approvals: str) -> None:
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={
                "workspaceAgent": {
                    "baseUrl": model.url,
                    "approvals": {"bash": "allow", **approvals},
                }
            }
        )
    )


async def test_listing_reads_the_summaries_not_the_conversations(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    model.load(script_of(reply(text("Planning."), tool("todo", PLAN)), reply(text("x" * 400_000))))
    saved = await run(client, "Plan a big change")
    path = folder_of(workspace) / f"{saved['sessionId']}.jsonl"
    before = await list_sessions(client)
    assert entry(before, saved["sessionId"]) == {
        "sessionId": saved["sessionId"],
        "title": "Plan a big change",
        "updatedAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(path.stat().st_mtime)),
        "messages": 4,
        "todos": {"completed": 1, "total": 3},
        "running": False,
    }

    corrupt_middle(path)
    after = await list_sessions(client)
    async with another_server(workspace) as fresh:  # one that knows only the files
        restarted = await list_sessions(fresh)

    assert after == before  # the corrupt conversation was not read
    assert restarted == before
    with pytest.raises(StoreError, match=r"is corrupt at line \d+"):  # though it is corrupt
        SessionStore(workspace).load(saved["sessionId"], repair=False)


async def test_old_session_files_list_and_get_a_summary(client: RecordingClient, workspace: Path):
    folder = folder_of(workspace)
    old = write_old_session(folder, "0ld5e55i0n01", "An old session")
    with old.open("a") as f:
        f.write('{"type": "todos", "items": [{"id": "1", "te')  # torn by a crash
    stale = write_old_session(folder, "0ld5e55i0n02", "Listed, then changed")
    (folder / "0ld5e55i0n02.summary.json").write_text("{not a summary")
    os.utime(old, (1_700_000_000, 1_700_000_000))

    first = await list_sessions(client)

    assert first["problems"] == []
    assert [s["sessionId"] for s in first["sessions"]] == ["0ld5e55i0n02", "0ld5e55i0n01"]
    assert entry(first, "0ld5e55i0n01") == {
        "sessionId": "0ld5e55i0n01",
        "title": "An old session",
        "updatedAt": "2023-11-14T22:13:20Z",
        "messages": 6,
        "todos": {"completed": 1, "total": 3},
        "running": False,
    }
    assert old.read_text().endswith('"te')  # listing only reads: the torn line is still there

    corrupt_middle(old)  # from now on the summary written by the first listing is used
    with stale.open("a") as f:  # and a file that changed after its summary is read again
        f.write(json.dumps({"type": "todos", "items": [PLAN["items"][0]]}) + "\n")
    second = await list_sessions(client)
    async with another_server(workspace) as fresh:  # one that knows only the files
        restarted = await list_sessions(fresh)

    for listed in (second, restarted):
        assert listed["problems"] == []
        assert entry(listed, "0ld5e55i0n01") == entry(first, "0ld5e55i0n01")
        assert entry(listed, "0ld5e55i0n02")["todos"] == {"completed": 1, "total": 1}


async def test_sessions_listed_while_a_run_goes_show_it_running_and_the_rest_as_saved(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    """Old session files (no summaries yet) listed twice while a run goes: the running one
    is marked running, the others as they were saved. (That a listing never stalls the
    run's notifications is the sessions benchmark's to measure: bench/sessions.py.)"""
    folder = folder_of(workspace)
    folder.mkdir(parents=True)
    template = old_session_lines("TEMPLATE", "TITLE", turns=200, result_bytes=200)
    body = "\n".join(template[2:]) + "\n"
    for n in range(8):
        session_id = f"b1g5e55i0n{n:02d}"
        header = [json.dumps({"type": "session", "id": session_id, "format": 1})]
        header.append(json.dumps({"type": "title", "text": f"Big session {n}"}))
        (folder / f"{session_id}.jsonl").write_text("\n".join(header) + "\n" + body)
    steps = [
        {"items": [{"id": "1", "text": f"step {n}", "status": "in_progress"}]} for n in range(400)
    ]
    model.load(
        script_of(*[reply(tool("todo", plan), delay=0.02) for plan in steps], reply(text("Done.")))
    )

    running = asyncio.ensure_future(run(client, "Work at a steady pace"))
    await wait_for(lambda: len(client.todos) >= 5, what="the run to start")
    session_id = client.todos[-1]["sessionId"]
    listed = await list_sessions(client)
    again = await list_sessions(client)
    await command(client, p.CANCEL_COMMAND, {"sessionId": session_id})
    assert (await running)["stopReason"] == "cancelled"

    for result in (listed, again):
        assert result["problems"] == []
        assert len(result["sessions"]) == 9
        assert entry(result, session_id)["running"] is True
        big = entry(result, "b1g5e55i0n07")
        assert big["title"] == "Big session 7" and big["running"] is False
        assert big["messages"] == 400 and big["todos"] == {"completed": 1, "total": 3}
    # How long a listing takes, and that it delays no plan notification, is measured by
    # the sessions benchmark (bench/sessions.py), not asserted on a loaded machine here.


async def test_idle_sessions_are_reloaded_from_disk_unchanged(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    model.load(
        script_of(
            reply(text("Planning."), tool("todo", PLAN)),
            reply(text("Planned.")),
            *[reply(text(f"Answer {n}.")) for n in range(OTHERS)],
            reply(text("Back on the plan.")),
        )
    )
    first = await run(client, "Make a plan")
    conversation = model.requests[-1].body["messages"]
    for n in range(OTHERS):
        await run(client, f"Another task {n}")
    # Another window on the same folder moved the plan on: the server shows it only if it
    # reads the session from disk again (an idle session no longer in memory).
    moved = [{**item, "status": "completed"} for item in PLAN["items"][:2]] + PLAN["items"][2:]
    path = folder_of(workspace) / f"{first['sessionId']}.jsonl"
    with path.open("a") as f:
        f.write(json.dumps({"type": "todos", "items": moved}) + "\n")

    todos = await command(client, p.GET_TODOS_COMMAND, {"sessionId": first["sessionId"]})
    assert todos["items"] == moved
    resumed = await run(client, "Go on", first["sessionId"])

    assert resumed["text"] == "Back on the plan."
    sent = model.requests[-1].body["messages"]
    assert _plain(sent[: len(conversation)]) == _plain(conversation)
    assert sent[len(conversation)]["content"][0]["text"] == "Planned."
    assert sent[-1]["content"][-1]["text"] == "Go on"
    assert len(sent) == len(conversation) + 2


async def test_running_and_current_sessions_stay_in_memory(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    model.load(
        script_of(
            reply(tool("todo", PLAN)),
            reply(tool("bash", {"command": "sleep 300 & echo $! > sleep.pid; wait"})),
            *[reply(text(f"Answer {n}.")) for n in range(OTHERS)],
            reply(text("The new session works.")),
        )
    )
    # The long job's command runs until the test cancels it: no timeout ends it first
    # while six other tasks run on a loaded machine.
    await push_settings(client, model, {"bashTimeoutSeconds": 600})
    blank = (await command(client, p.NEW_SESSION_COMMAND))["sessionId"]
    long_run = asyncio.ensure_future(run(client, "A long job"))
    await wait_for(lambda: (workspace / "sleep.pid").exists(), what="the long job's command")
    busy = client.todos[-1]["sessionId"]
    others = [(await run(client, f"Another task {n}"))["sessionId"] for n in range(OTHERS)]

    listed = await list_sessions(client)
    assert entry(listed, busy)["running"] is True
    assert [entry(listed, s)["running"] for s in others] == [False] * OTHERS
    assert await command(client, p.CANCEL_COMMAND, {"sessionId": busy}) == {"cancelled": True}
    assert (await long_run)["stopReason"] == "cancelled"
    assert entry(await list_sessions(client), busy)["running"] is False
    # A session the client made but never ran holds nothing on disk; it still works.
    fresh = await run(client, "First prompt of the new session", blank)
    assert fresh["sessionId"] == blank and fresh["text"] == "The new session works."


async def test_allowed_for_the_session_survives_leaving_memory(
    editor: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    configure(editor, model, bash="ask")
    editor.double.answers = ["Allow for this session"]
    model.load(
        script_of(
            reply(tool("bash", {"command": "echo one"})),
            reply(text("Ran it.")),
            *[reply(text(f"Answer {n}.")) for n in range(OTHERS)],
            reply(tool("bash", {"command": "echo two"})),
            reply(text("Ran it again.")),
        )
    )
    first = await run(editor, "Run a command")
    for n in range(OTHERS):
        await run(editor, f"Another task {n}")
    path = folder_of(workspace) / f"{first['sessionId']}.jsonl"
    with path.open("a") as f:  # a mark that shows whether the session is read again
        f.write(json.dumps({"type": "todos", "items": PLAN["items"]}) + "\n")
    todos = await command(editor, p.GET_TODOS_COMMAND, {"sessionId": first["sessionId"]})
    assert todos["items"] == PLAN["items"]

    again = await run(editor, "Run another", first["sessionId"])

    assert again["text"] == "Ran it again."
    assert editor.double.questions == ["Workspace Agent wants to run `echo one`."]


def _plain(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages without the prompt-cache breakpoints, which move with the tail."""
    text_of = json.dumps(messages)
    value: list[dict[str, Any]] = json.loads(
        text_of.replace(', "cache_control": {"type": "ephemeral"}', "")
    )
    return value
