"""Resilience end to end through the real server: model API faults and retries, unusable
tool input, prompt cancel, output floods, long sessions (compaction, budgets) and resuming
saved sessions after the server process is killed."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import time
from pathlib import Path

from lsprotocol import types

from workspace_agent import protocol as p
from workspace_agent.lsp.wire import to_plain
from workspace_agent.testing.scripted_model import (
    ScriptedModelServer,
    estimate_tokens,
    reply,
    script_of,
    text,
    tool,
)

from tests.support.client import RecordingClient, start_server, start_session
from tests.support.lsp import assert_valid_history, command, events_of, run, tool_results, wait_for


def configure(client: RecordingClient, model_url: str, **settings) -> None:
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={
                "workspaceAgent": {"baseUrl": model_url, "approvals": {"bash": "allow"}, **settings}
            }
        )
    )


def error(status: int, message: str = "scripted failure", **headers: str) -> dict:
    return {"error": {"status": status, "message": message, "headers": headers}}


async def test_faults_that_may_pass_are_retried_and_reported(
    client: RecordingClient, model: ScriptedModelServer
):
    configure(client, model.url, maxRetries=5)
    model.load(
        script_of(
            error(429, "slow down", **{"retry-after": "0.3"}),
            error(529, "overloaded"),
            reply(text("This answer is cut off and will be sent again"), cut_after_events=3),
            reply(text("An overloaded stream"), error_after_events=2),
            error(500),
            reply(text("Finally, an answer.")),
        )
    )
    started = time.monotonic()
    result = await run(client, "Hello")

    assert result["stopReason"] == "end_turn" and result["text"] == "Finally, an answer."
    retries = events_of(client, "retry")
    assert [(r["attempt"], r["maxAttempts"], r["reason"]) for r in retries] == [
        (1, 6, "rate limited, 429"),
        (2, 6, "overloaded, 529"),
        (3, 6, "the connection dropped mid-answer"),
        (4, 6, "overloaded (an error event in the stream)"),
        (5, 6, "server error, 500"),
    ]
    assert (
        retries[0]["delaySeconds"] == 0.3
        and retries[0]["message"] == "retrying in 0.3s (rate limited, 429)"
    )
    assert len(model.requests) == 6
    assert time.monotonic() - started >= 0.3  # retry-after was honoured


async def test_when_retries_run_out_the_session_survives_without_the_failed_prompt(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    configure(client, model.url, maxRetries=2)
    model.load(
        script_of(
            error(503, "unavailable"),
            error(503, "unavailable"),
            error(503, "still unavailable"),
            reply(text("Back again.")),
            error(503, "down again"),
            error(503, "down again"),
            error(503, "down again"),
        )
    )
    failed = await run(client, "Hello")

    assert failed["stopReason"] == "error"
    assert failed["error"] == (
        f"The model API ({model.url}) answered 503: still unavailable (gave up after 3 attempts)"
    )
    assert [r["message"].split(" (")[1] for r in events_of(client, "retry")] == [
        "server error, 503)"
    ] * 2
    # The model never answered it: the session keeps nothing of it, so it is not listed
    # (nothing to resume) and a retry or the next task is sent once, alone.
    listed = to_plain(await client.protocol.send_request_async(p.SESSIONS_REQUEST, {}))
    assert failed["sessionId"] not in [s["sessionId"] for s in listed["sessions"]]
    later = await run(client, "Are you back?", failed["sessionId"])
    assert later["stopReason"] == "end_turn"
    assert [b["text"] for b in model.requests[-1].body["messages"][0]["content"]] == [
        "Are you back?"
    ]
    # A failure after an answer takes back only its own prompt.
    again = await run(client, "And now?", failed["sessionId"])
    assert again["stopReason"] == "error"
    saved = (
        workspace / ".workspace-agent" / "sessions" / f"{failed['sessionId']}.jsonl"
    ).read_text()
    assert "Are you back?" in saved and "Back again." in saved
    listed = to_plain(await client.protocol.send_request_async(p.SESSIONS_REQUEST, {}))
    (summary,) = [s for s in listed["sessions"] if s["sessionId"] == failed["sessionId"]]
    assert summary["title"] == "Are you back?" and summary["messages"] == 2


async def test_connection_refused_is_retried_then_reported(
    client: RecordingClient, model: ScriptedModelServer
):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    configure(client, f"http://127.0.0.1:{closed_port}", maxRetries=1)
    result = await run(client, "Hello")

    assert result["stopReason"] == "error"
    assert result["error"] == (
        f"Could not connect to the model API (http://127.0.0.1:{closed_port}). (gave up after 2 attempts)"
    )
    assert [r["reason"] for r in events_of(client, "retry")] == ["could not connect"]


async def test_client_errors_are_not_retried(client: RecordingClient, model: ScriptedModelServer):
    model.load(
        script_of(error(401, "invalid x-api-key"), error(400, "messages: roles must alternate"))
    )
    unauthorized = await run(client, "Hello")
    bad_request = await run(client, "Hello again")

    assert unauthorized["error"] == (
        f"The model API ({model.url}) rejected the API key (401). "
        "Check ANTHROPIC_API_KEY (or the key set in the editor)."
    )
    assert (
        bad_request["error"]
        == f"The model API ({model.url}) refused the request as invalid (400). If it names a "
        "setting (model, maxTokens, thinking), change that setting; else Retry. The API said "
        '"messages: roles must alternate".'
    )
    assert len(model.requests) == 2 and events_of(client, "retry") == []


async def test_unusable_tool_input_is_reported_to_the_model(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    model.load(
        script_of(
            {
                "content": [
                    {
                        "type": "tool_use",
                        "name": "write_file",
                        "input": {},
                        "partial_json": '{"path": "big.txt", "content": "aaaa',
                    }
                ],
                "stop_reason": "max_tokens",
            },
            {
                "content": [
                    {
                        "type": "tool_use",
                        "name": "bash",
                        "input": {},
                        "partial_json": '{"command": "ls" "x"}',
                    },
                    {"type": "tool_use", "name": "bash", "input": {}, "partial_json": '["ls"]'},
                ]
            },
            reply(),  # an empty answer
        )
    )
    result = await run(client, "Write a big file")

    cut_off = tool_results(model.requests[1].body)[0]
    assert cut_off["is_error"] and cut_off["content"] == (
        "the answer hit the max_tokens limit (8192) while this tool call was being written, so its "
        "input is incomplete; nothing was run. Make the call again with a complete JSON object."
    )
    not_json, not_object = tool_results(model.requests[2].body)
    assert not_json["content"].startswith(
        "the tool input was not valid JSON (Expecting ',' delimiter"
    )
    assert not_object["content"].startswith("the tool input must be a JSON object, not list")
    # The history sent back stays valid for the API: every tool_use input is an object.
    inputs = [
        b["input"]
        for m in model.requests[2].body["messages"]
        for b in m["content"]
        if b["type"] == "tool_use"
    ]
    assert inputs == [{}, {}, {}]
    assert not (workspace / "big.txt").exists()
    assert result["stopReason"] == "end_turn"
    assert events_of(client, "notice")[-1]["message"] == "The model returned an empty answer."


async def test_cancel_aborts_a_slow_model_call_quickly(
    client: RecordingClient, model: ScriptedModelServer
):
    model.load(script_of(reply(text("too late"), delay=30), reply(text("Next answer."))))
    session_id = (await command(client, p.NEW_SESSION_COMMAND))["sessionId"]
    pending = asyncio.ensure_future(run(client, "Think hard", session_id))
    while not model.requests:  # noqa: ASYNC110 (the scripted server runs in a thread)
        await asyncio.sleep(0.01)
    started = time.monotonic()
    await command(client, p.CANCEL_COMMAND, {"sessionId": session_id})
    result = await pending
    elapsed = time.monotonic() - started

    assert result["stopReason"] == "cancelled"
    # The reply would come after 30 s: a cancel that waited for it would take that long.
    # The bound is generous for a loaded CI machine; the tight figure is the cancel
    # benchmark's (bench/cancel.py).
    assert elapsed < 10.0, f"cancel took {elapsed:.2f}s"
    # The unanswered prompt is merged with the next one, so roles still alternate.
    model.load(script_of(reply(text("Next answer."))))
    follow_up = await run(client, "Never mind", session_id)
    assert follow_up["text"] == "Next answer."
    (message,) = model.requests[-1].body["messages"]
    assert [b["text"] for b in message["content"]] == ["Think hard", "Never mind"]


async def test_an_output_flood_does_not_grow_the_server(
    cold_client: RecordingClient, model: ScriptedModelServer
):
    client = cold_client  # its memory is the server process's own
    model.load(
        script_of(
            reply(text("warm up")),
            reply(
                tool(
                    "bash",
                    {"command": "head -c 200000000 /dev/zero | tr '\\0' x; echo; echo done"},
                )
            ),
            reply(text("That was a lot.")),
        )
    )
    await run(client, "Warm up")  # imports and first-request allocations happen here
    # The kernel keeps the peak (VmHWM); reset it now, so it measures the flood only.
    pid = client._server.pid
    _reset_peak(pid)
    baseline = _status_kib(pid, "VmRSS")
    await run(client, "Flood")
    peak = _status_kib(pid, "VmHWM")

    (result,) = tool_results(model.requests[2].body)
    assert result["content"].endswith("done\n[exit status 0]")
    assert "199,950,00" in result["content"]  # about 200 MB cut, said in the note
    growth = (peak - baseline) / 1024  # a server that kept the output would grow ~200 MiB
    assert growth < 20, f"server RSS grew by {growth:.1f} MiB for 200 MB of output"


def _reset_peak(pid: int) -> None:
    """Start the process's VmHWM (peak resident memory) over from its current size."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")


def _status_kib(pid: int, field: str) -> int:
    """A memory figure of /proc/PID/status, in KiB."""
    status = Path(f"/proc/{pid}/status").read_text()
    line = next(line for line in status.splitlines() if line.startswith(field + ":"))
    return int(line.split()[1])


async def test_compaction_keeps_a_long_run_inside_the_context_window(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    window = 12_000
    configure(client, model.url, contextWindow=window, maxTurns=100)
    (workspace / "data.txt").write_text(
        "".join(f"record {n:05d} " + "x" * 60 + "\n" for n in range(40))
    )
    replies = [
        reply(
            tool(
                "todo",
                {
                    "items": [
                        {"id": "1", "text": "Read the data many times", "status": "in_progress"}
                    ]
                },
            )
        )
    ]
    replies += [
        reply(text(f"Pass {n}."), tool("read_file", {"path": "data.txt"})) for n in range(60)
    ]
    replies += [reply(text("All 60 passes done."))]
    model.load(script_of(*replies))
    result = await run(client, "Read data.txt sixty times")

    assert result["stopReason"] == "end_turn" and result["text"] == "All 60 passes done."
    sizes = [
        estimate_tokens({k: r.body.get(k) for k in ("system", "tools", "messages")})
        for r in model.requests
    ]
    assert max(sizes) < window, sizes
    compactions = [
        e["message"] for e in events_of(client, "notice") if e["message"].startswith("Compacted")
    ]
    assert compactions and "older messages summarised" in " ".join(compactions)
    last = model.requests[-1].body["messages"]
    summary = last[0]["content"][0]["text"]
    assert summary.startswith(
        "[Earlier part of this session, summarised to fit the context window]"
    )
    assert (
        "- Read data.txt sixty times" in summary and "[>] #1: Read the data many times" in summary
    )
    assert any(
        "output of" in json.dumps(m) and "characters removed to save context" in json.dumps(m)
        for m in last
    )
    assert_valid_history(last)


async def test_token_budget_stops_a_run(client: RecordingClient, model: ScriptedModelServer):
    configure(client, model.url, maxRunTokens=3000)
    model.load(script_of(*[reply(tool("bash", {"command": "echo step"})) for _ in range(20)]))
    result = await run(client, "Go on and on")

    assert result["stopReason"] == "budget"
    assert sum(result["usage"].values()) >= 3000  # input, output, cache reads and writes
    assert len(model.requests) < 20
    assert "(setting workspaceAgent.maxRunTokens)" in events_of(client, "notice")[-1]["message"]
    (reports,) = client.progress_reports.values()
    assert reports[-1].kind == "end" and reports[-1].message == "Stopped: token budget reached"


def test_every_stop_reason_has_a_progress_end_message():
    from workspace_agent.lsp.progress import END_MESSAGES

    assert set(END_MESSAGES) == set(p.STOP_REASONS)


async def server_process(workspace: Path, model: ScriptedModelServer) -> RecordingClient:
    """A language server process of the test's own (the fixture's cannot be killed), exec'd:
    the test kills that very process."""
    client = await start_server(cold=True)
    await start_session(client, workspace, model)
    configure(client, model.url)
    return client


async def test_sessions_resume_after_the_server_is_killed(
    model: ScriptedModelServer, workspace: Path
):
    model.load(
        script_of(
            reply(
                tool(
                    "todo",
                    {
                        "items": [
                            {"id": "1", "text": "Remember this", "status": "in_progress"},
                            {"id": "2", "text": "Then this", "status": "pending"},
                        ]
                    },
                )
            ),
            reply(text("Planned.")),
            reply(text("Welcome back; the plan is still here.")),
        )
    )
    first_server = await server_process(workspace, model)
    first = await run(first_server, "Make a plan")
    session_id = first["sessionId"]
    first_server._server.send_signal(signal.SIGKILL)
    await first_server._server.wait()
    await first_server.stop()
    saved = workspace / ".workspace-agent" / "sessions" / f"{session_id}.jsonl"
    torn_line = len(saved.read_text().splitlines()) + 1
    with saved.open("a") as f:
        f.write('{"type": "usage", "inputTok')  # as if the kill hit mid-write

    second = await server_process(workspace, model)
    try:
        listed = to_plain(await second.protocol.send_request_async(p.SESSIONS_REQUEST, {}))
        assert listed["problems"] == []
        (entry,) = listed["sessions"]
        assert entry["sessionId"] == session_id and entry["title"] == "Make a plan"
        assert entry["todos"] == {"completed": 0, "total": 2} and entry["running"] is False
        todos = await command(second, p.GET_TODOS_COMMAND, {"sessionId": session_id})
        assert [i["text"] for i in todos["items"]] == ["Remember this", "Then this"]

        resumed = await run(second, "Are you still there?", session_id)
        assert resumed["text"] == "Welcome back; the plan is still here."
        notices = [e["message"] for e in events_of(second, "notice")]
        assert (
            f"{session_id}.jsonl: dropped a half-written last record (line {torn_line})" in notices
        )
        # The torn line was cut off, so the file reads cleanly with the new turn appended.
        assert all(json.loads(line) for line in saved.read_text().splitlines())
        messages = model.requests[-1].body["messages"]
        assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant", "user"]
        assert second.todos[0]["items"] == todos["items"]  # the run re-published the plan
    finally:
        await second.shutdown_session()


async def test_a_run_killed_in_its_first_turn_keeps_its_prompt(
    model: ScriptedModelServer, workspace: Path
):
    model.load(
        script_of(
            reply(text("(never sent: the server is killed first)"), delay=30),
            reply(text("Here is the summary you asked for.")),
        )
    )
    first_server = await server_process(workspace, model)
    running = asyncio.ensure_future(run(first_server, "Summarise the build scripts"))
    await wait_for(lambda: len(model.requests) == 1, 15, "the first model request")
    (started,) = events_of(first_server, "runStart")
    session_id = started["sessionId"]
    first_server._server.send_signal(signal.SIGKILL)
    await first_server._server.wait()
    running.cancel()
    await first_server.stop()

    second = await server_process(workspace, model)
    try:
        listed = to_plain(await second.protocol.send_request_async(p.SESSIONS_REQUEST, {}))
        (entry,) = listed["sessions"]
        assert entry["sessionId"] == session_id
        assert entry["title"] == "Summarise the build scripts"
        resumed = await run(second, "Go on, please", session_id)
        assert resumed["text"] == "Here is the summary you asked for."
        (message,) = model.requests[-1].body["messages"]  # one user turn: roles alternate
        assert message["role"] == "user"
        assert [b["text"] for b in message["content"]] == [
            "Summarise the build scripts",
            "Go on, please",
        ]
    finally:
        await second.shutdown_session()


async def test_corrupt_session_files_are_reported_and_skipped(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    folder = workspace / ".workspace-agent" / "sessions"
    model.load(script_of(reply(text("Saved.")), reply(text("Resumed despite the torn line."))))
    good = await run(client, "Keep me")
    with (folder / f"{good['sessionId']}.jsonl").open("a") as f:
        f.write('{"type": "messages", "messages": [{"role": "us')  # a crash mid-write
    (folder / "broken.jsonl").write_text('{"type": "session", "id": "broken"}\nnot json\n{}\n')

    listed = to_plain(await client.protocol.send_request_async(p.SESSIONS_REQUEST, {}))
    assert [s["sessionId"] for s in listed["sessions"]] == [good["sessionId"]]
    assert listed["problems"] == [
        "session file broken.jsonl is corrupt at line 2: Expecting value: line 1 column 1 (char 0)"
    ]
    assert (workspace / ".workspace-agent" / ".gitignore").read_text().endswith("*\n")
