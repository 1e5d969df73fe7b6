"""The context meter through the real server: after each model request a
workspaceAgent/contextMeter notification says how full the window is, from that
request's usage (every input token, cached or not), with the label every front end shows
and `near` before compaction starts; it is no event, so the history never holds it."""

from __future__ import annotations

from workspace_agent import protocol as p
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text

from tests.support.client import RecordingClient
from tests.support.lsp import events_of, push_settings, request, run


def prompt_tokens(usage: dict[str, int]) -> int:
    return usage["inputTokens"] + usage["cacheReadTokens"] + usage["cacheWriteTokens"]


async def test_the_meter_is_the_last_requests_input_and_warns_near_compaction(
    client: RecordingClient, model: ScriptedModelServer
):
    model.load(script_of(reply(text("Hello.")), reply(text("Hello again."))))
    result = await run(client, "Say hello")

    (first,) = client.meters
    assert first["sessionId"] == result["sessionId"]
    (end,) = events_of(client, p.EVENT_RUN_END)
    used = prompt_tokens(end["usage"])  # one request: the run's input is that request's
    assert used > 0
    assert first["used"] == used
    assert (first["window"], first["compactAt"], first["near"]) == (200_000, 160_000, False)
    assert first["label"] == f"{round(used / 1000)} k / 200 k"  # the prompt is > 1,000 tokens
    assert first["detail"].startswith(f"Context: {used:,} of 200,000 tokens")
    assert "/compact does it now" in first["detail"]
    assert client.arrivals.index("contextMeter") < client.arrivals.index("runEnd")

    window = int(used / 0.75)  # the first request at 75%: no compaction yet, but near
    await push_settings(client, model, {"contextWindow": window})
    await run(client, "And again", result["sessionId"])

    latest = client.meters[-1]
    again = prompt_tokens(events_of(client, p.EVENT_RUN_END)[-1]["usage"])
    assert (latest["used"], latest["window"]) == (again, window)
    assert latest["near"] is True and latest["compactAt"] == int(window * 0.8)
    assert not [e for e in events_of(client, p.EVENT_NOTICE) if "Compacted" in e["message"]]

    page = await request(client, p.HISTORY_REQUEST, {"sessionId": result["sessionId"]})
    kinds = [entry["kind"] for entry in page["entries"]]
    assert kinds == ["runStart", "text", "runEnd"] * 2  # the meter is not in the history
