"""The stop reasons a real model answers with, over LSP: `refusal` ends the run with a
clear message and no retry; `pause_turn` goes on with the same assistant turn;
`model_context_window_exceeded` compacts once and asks again, else a clear error;
`stop_sequence` ends the run as a success and says so. Every request is one the strict
scripted model accepts."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from workspace_agent.agent.loop import REFUSED
from workspace_agent.testing.scripted_model import (
    ScriptedModelServer,
    reply,
    script_of,
    text,
    thinking,
    tool,
)

from tests.support.client import RecordingClient
from tests.support.lsp import assert_valid_history, events_of, run

EXCEEDED = "model_context_window_exceeded"


def configure(client: RecordingClient, model: ScriptedModelServer, **settings: object) -> None:
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"workspaceAgent": {"baseUrl": model.url, **settings}}
        )
    )


def messages(model: ScriptedModelServer) -> list[list[dict]]:
    return [r.body["messages"] for r in model.requests if r.path == "/v1/messages"]


async def test_a_refusal_ends_the_run_with_a_message_and_no_retry(
    client: RecordingClient, model: ScriptedModelServer
):
    model.load(
        script_of(
            reply(text("I can't help with that."), stop_reason="refusal"),
            reply(text("Sure, here is a haiku.")),
        )
    )
    result = await run(client, "Do the forbidden thing")

    assert result["stopReason"] == "refusal"
    assert result["text"] == "I can't help with that."
    assert REFUSED in [event["message"] for event in events_of(client, "notice")]
    assert len(messages(model)) == 1  # not asked again
    # the refused answer is not kept: the next prompt joins the user's turn, still valid
    second = await run(client, "Write a haiku instead", result["sessionId"])
    assert second["stopReason"] == "end_turn"
    (_, history) = messages(model)
    assert [m["role"] for m in history] == ["user"]
    assert all(r.rejected is None for r in model.requests)


async def test_pause_turn_sends_the_answer_back_and_the_turn_goes_on(
    client: RecordingClient, model: ScriptedModelServer
):
    model.load(
        script_of(
            reply(text("Searching the docs first."), stop_reason="pause_turn"),
            reply(text(" Found it: use --force.")),
        )
    )
    result = await run(client, "How do I force it?")

    assert result["stopReason"] == "end_turn"
    assert result["text"] == "Searching the docs first. Found it: use --force."
    _, second = messages(model)
    assert second[-1]["role"] == "assistant"  # the paused turn, sent back as the last message
    assert second[-1]["content"][0]["text"] == "Searching the docs first."
    assert all(r.rejected is None for r in model.requests)


def reads(count: int) -> list[dict]:
    return [
        reply(text(f"Read {n}."), tool("read_file", {"path": "data.txt"})) for n in range(count)
    ]


async def test_context_window_exceeded_compacts_once_and_asks_again(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    configure(client, model, contextWindow=200_000)
    (workspace / "data.txt").write_text("".join(f"line {n:04d} {'x' * 60}\n" for n in range(60)))
    model.load(
        script_of(*reads(6), reply(text("partial"), stop_reason=EXCEEDED), reply(text("Done.")))
    )
    result = await run(client, "Read data.txt six times")

    assert result["stopReason"] == "end_turn" and result["text"] == "Done."
    notices = [e["message"] for e in events_of(client, "notice")]
    assert any(n.startswith("Compacted the conversation") for n in notices), notices
    *_, exceeded, retried = messages(model)
    assert len(str(retried)) < len(str(exceeded))  # the same turn, asked again smaller
    assert "removed to save context" in str(retried) or "summarised to fit" in str(retried)
    assert "partial" not in str(retried)  # the cut-off answer was not kept
    assert_valid_history(retried)
    assert all(r.rejected is None for r in model.requests)


async def test_context_window_exceeded_again_is_a_clear_error(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    configure(client, model, contextWindow=200_000)
    (workspace / "data.txt").write_text("".join(f"line {n:04d} {'x' * 60}\n" for n in range(60)))
    model.load(
        script_of(
            *reads(6),
            reply(text("partial"), stop_reason=EXCEEDED),
            reply(text("partial again"), stop_reason=EXCEEDED),
            reply(text("never asked")),
        )
    )
    result = await run(client, "Read data.txt six times")

    assert result["stopReason"] == "error"
    assert result["error"].startswith("The conversation no longer fits the model's context window")
    assert "200,000 tokens" in result["error"]
    assert len(messages(model)) == 8  # six reads, the first try, one retry: no loop


async def test_max_tokens_in_the_middle_of_thinking_says_so(
    client: RecordingClient, model: ScriptedModelServer
):
    configure(client, model, maxTokens=2048)
    model.load(
        script_of(
            reply(thinking("Let me think about this at great length"), stop_reason="max_tokens")
        )
    )
    result = await run(client, "Think hard")

    assert result["stopReason"] == "end_turn" and result["text"] == ""
    notices = [e["message"] for e in events_of(client, "notice")]
    assert any(
        n.startswith("The answer hit the max_tokens limit before the model wrote anything")
        and "maxTokens 2,048" in n
        for n in notices
    ), notices


async def test_a_stop_sequence_ends_the_run_and_is_reported(
    client: RecordingClient, model: ScriptedModelServer
):
    model.load(
        script_of(
            reply(text("Answer: 42"), stop_reason="stop_sequence", stop_sequence="###"),
            reply(text("Again: 42")),
        )
    )
    result = await run(client, "The answer, then ###")

    assert result["stopReason"] == "stop_sequence"
    assert result["text"] == "Answer: 42"
    assert [e["stopReason"] for e in events_of(client, "runEnd")] == ["stop_sequence"]
    # the answer is kept as any other: the next prompt follows it
    second = await run(client, "Once more", result["sessionId"])
    assert second["stopReason"] == "end_turn"
    (_, history) = messages(model)
    assert [m["role"] for m in history] == ["user", "assistant", "user"]
    assert history[1]["content"] == [{"type": "text", "text": "Answer: 42"}]
    assert all(r.rejected is None for r in model.requests)
