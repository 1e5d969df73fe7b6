"""workspaceAgent/history and workspaceAgent/toolOutput through the real server: what a
conversation view shows comes back page by page, after a restart too; a session saved
before histories existed gets one from its messages; bad input is refused clearly."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from workspace_agent import protocol as p
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.cli import CLI, cli_env
from tests.support.client import RecordingClient, another_server
from tests.support.lsp import events_of, request, run
from tests.support.server import folder_of

LONG = "python3 -c \"print('\\n'.join('line %d' % i for i in range(1000)))\""


async def history(client: RecordingClient, session_id: str, **params: Any) -> dict[str, Any]:
    result: dict[str, Any] = await request(
        client, p.HISTORY_REQUEST, {"sessionId": session_id, **params}
    )
    return result


def without_position(entry: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if k not in ("seq", "run")}


async def test_the_history_holds_what_the_live_events_showed(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    model.load(
        script_of(
            reply(text("Let me "), text("look."), tool("bash", {"command": LONG})),
            reply(tool("bash", {"command": "exit 3"})),
            reply(text("# Done\nAll good.")),
            reply(text("Again.")),
        )
    )
    first = await run(client, "Count the lines")
    await run(client, "Once more", first["sessionId"])
    session_id = first["sessionId"]

    page = await history(client, session_id)
    entries = page["entries"]
    assert [e["kind"] for e in entries] == [
        "runStart",
        "text",
        "toolCall",
        "toolResult",
        "toolCall",
        "toolResult",
        "text",
        "runEnd",
        "runStart",
        "text",
        "runEnd",
    ]
    assert [e["seq"] for e in entries] == list(range(11))
    assert [e["run"] for e in entries] == [1] * 8 + [2] * 3
    assert page["total"] == 11 and page["before"] is None
    assert entries[1]["text"] == "Let me look."  # one entry per message, not per delta
    assert entries[6]["text"] == "# Done\nAll good."

    long_result, failed = entries[3], entries[5]
    whole = "".join(f"line {i}\n" for i in range(1000)) + "[exit status 0]"
    assert long_result["exitCode"] == 0 and long_result["outputChars"] == len(whole)
    assert long_result["output"] == (
        f"{whole[:1000]}\n… {len(whole) - 2000:,} more characters …\n{whole[-1000:]}"
    )
    assert failed["exitCode"] == 3 and failed["ok"] is True and failed["changes"] == []
    assert entries[2]["toolKind"] == "execute" and entries[2]["summary"] == LONG
    assert "input" not in entries[2] and "fullOutput" not in long_result

    # What the view renders from is what it was shown live (text aside: live, it streams).
    live = [
        {k: v for k, v in e.items() if k not in ("sessionId", "_at")}
        for e in client.events
        if e["kind"] not in ("text", "reminder")
    ]
    assert live == [without_position(e) for e in entries if e["kind"] != "text"]

    output = await request(
        client,
        p.TOOL_OUTPUT_REQUEST,
        {"sessionId": session_id, "toolUseId": long_result["toolUseId"]},
    )
    assert output == {"text": whole}  # what the model got
    sent = model.requests[1].body["messages"][-1]["content"][0]["content"]
    assert sent == whole
    short = await request(
        client, p.TOOL_OUTPUT_REQUEST, {"sessionId": session_id, "toolUseId": failed["toolUseId"]}
    )
    assert short == {"text": "(no output)\n[exit status 3]"}


async def test_pages_go_back_and_forth_through_cursors_and_survive_a_restart(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    model.load(
        script_of(
            *[reply(tool("bash", {"command": f"echo {n}"})) for n in range(6)], reply(text("ok"))
        )
    )
    session_id = (await run(client, "Count"))["sessionId"]
    everything = (await history(client, session_id, limit=1000))["entries"]
    assert len(everything) == 1 + 12 + 1 + 1  # runStart, 6 calls and results, text, runEnd

    pages, cursors, cursor = [], [None], None
    while True:
        page = await history(client, session_id, limit=4, **({"before": cursor} if cursor else {}))
        assert page["total"] == 15
        pages.append(page["entries"])
        cursor = page["before"]
        if cursor is None:
            break
        cursors.append(cursor)
    assert [len(page) for page in pages] == [4, 4, 4, 3]
    assert [e for page in reversed(pages) for e in page] == everything  # nothing lost or doubled
    for cursor, page in reversed(list(zip(cursors, pages, strict=True))):  # and forwards again
        again = await history(client, session_id, limit=4, **({"before": cursor} if cursor else {}))
        assert again["entries"] == page

    async with another_server(workspace) as fresh:  # one that knows only the files
        assert (await history(fresh, session_id, limit=1000))["entries"] == everything
        assert (await history(fresh, session_id, limit=4, before=cursors[1]))["entries"] == pages[1]


def write_big_old_session(folder: Path, session_id: str, messages: int) -> None:
    """A session saved before histories existed: prompts, text, tool calls and results."""
    lines = [
        {"type": "session", "id": session_id, "created": 1_700_000_000.0, "format": 1},
        {"type": "title", "text": "A long one"},
    ]
    batch: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": "Go"}]}]
    for n in range((messages - 1) // 2):
        batch.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": f"Step {n}: reading."},
                    {
                        "type": "tool_use",
                        "id": f"t{n}",
                        "name": "read_file",
                        "input": {"path": "a.py"},
                    },
                ],
            }
        )
        batch.append(
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": f"t{n}", "content": "x = 1\n" * 20}
                ],
            }
        )
    lines.append({"type": "messages", "messages": batch})
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{session_id}.jsonl").write_text("\n".join(json.dumps(r) for r in lines) + "\n")


async def test_a_session_of_ten_thousand_messages_from_before_histories(
    client: RecordingClient, workspace: Path
):
    write_big_old_session(folder_of(workspace), "big-old", 10_001)

    first = await history(client, "big-old")  # derived from the messages once, and kept
    assert first["total"] == 1 + 5000 * 3
    assert first["entries"][-1] == {
        "kind": "toolResult",
        "toolUseId": "t4999",
        "name": "read_file",
        "ok": True,
        "output": "x = 1\n" * 20,
        "todoId": None,
        "exitCode": None,
        "outputChars": 120,
        "changes": [],
        "seq": 15000,
        "run": 1,
    }
    assert first["entries"][0]["kind"] == "toolCall" and len(first["entries"]) == 200
    assert (folder_of(workspace) / "big-old.history.jsonl").is_file()

    again = await history(client, "big-old")  # its time: bench/history.py
    assert again == first

    cursor, seen = first["before"], len(first["entries"])
    while cursor:
        page = await history(client, "big-old", limit=1000, before=cursor)
        seen += len(page["entries"])
        cursor = page["before"]
    assert seen == 15001
    assert page["entries"][0] == {"kind": "runStart", "prompt": "Go", "seq": 0, "run": 1}


BAD_PARAMS = [
    ({"sessionId": None}, "needs 'sessionId'"),
    ({"sessionId": 7}, "needs 'sessionId'"),
    ({"before": "h999"}, "not a cursor of this session's history"),
    ({"before": "h0"}, "not a cursor of this session's history"),
    ({"before": "nonsense"}, "not a cursor of this session's history"),
    ({"before": 3}, "'before' must be a cursor"),
    ({"limit": 0}, "'limit' must be a whole number from 1 to 1000"),
    ({"limit": 1001}, "'limit' must be a whole number from 1 to 1000"),
    ({"limit": "5"}, "'limit' must be a whole number from 1 to 1000"),
]


async def test_bad_params_are_refused(client: RecordingClient, model: ScriptedModelServer):
    model.load(script_of(reply(text("hi"))))
    session_id = (await run(client, "Hi"))["sessionId"]
    for params, message in BAD_PARAMS:
        with pytest.raises(JsonRpcException) as caught:
            await request(client, p.HISTORY_REQUEST, {"sessionId": session_id, **params})
        assert caught.value.code == -32602, params
        assert message in caught.value.message, params
    assert len((await history(client, session_id))["entries"]) == 3  # nothing lost


async def test_unknown_sessions_and_tool_calls_are_request_failures(
    client: RecordingClient, model: ScriptedModelServer
):
    for session_id in ("nope", "../../etc/passwd"):
        with pytest.raises(JsonRpcException) as caught:
            await history(client, session_id)
        assert caught.value.code == -32803
        assert caught.value.message == f"there is no session {session_id!r}"
    model.load(script_of(reply(text("hi"))))
    session_id = (await run(client, "Hi"))["sessionId"]
    with pytest.raises(JsonRpcException) as caught:
        await request(client, p.TOOL_OUTPUT_REQUEST, {"sessionId": session_id, "toolUseId": "x"})
    assert caught.value.code == -32803
    assert caught.value.message == f"there is no tool call 'x' in session {session_id}"
    assert events_of(client, "runEnd")


async def test_a_session_run_from_the_terminal_has_its_history_in_the_editor(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    model.load(script_of(reply(tool("bash", {"command": "echo hi"})), reply(text("Said hi."))))
    ran = await asyncio.to_thread(
        subprocess.run,
        [*CLI, "run", "Say hi", "--yes", "--workspace", str(workspace)],
        env=cli_env(model),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 0, ran.stderr
    session_id = re.search(r"session (\w+)", ran.stdout).group(1)  # type: ignore[union-attr]

    page = await history(client, session_id)
    assert [e["kind"] for e in page["entries"]] == [
        "runStart",
        "toolCall",
        "toolResult",
        "text",
        "runEnd",  # recorded as it ran, not derived afterwards
    ]
    assert page["entries"][2]["output"] == "hi\n[exit status 0]"
    assert page["entries"][2]["exitCode"] == 0
