"""The stop reasons a real model answers with, through the agent core in this process (the
real SDK over real HTTP to the scripted model): `refusal` ends the run with a clear message
and no retry; `pause_turn` goes on with the same assistant turn;
`model_context_window_exceeded` compacts once and asks again, else a clear error;
`max_tokens` inside the thinking says which settings to raise; `stop_sequence` ends the run
as a success. Every request is one the strict scripted model accepts. (Each front end's
mapping of these is tested with it: tests/acp/test_acp_stop_reasons.py,
tests/cli/test_cli_stop_reasons.py.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workspace_agent.agent.loop import REFUSED
from workspace_agent.agent.sessions import SessionManager
from workspace_agent.config import resolve_settings
from workspace_agent.protocol import RunRequest
from workspace_agent.testing.scripted_model import (
    ScriptedModelServer,
    reply,
    script_of,
    text,
    thinking,
    tool,
)

from tests.support.lsp import assert_valid_history

EXCEEDED = "model_context_window_exceeded"


class Events:
    """What the user would see: every event, by kind."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def on_event(self, session_id: str, kind: str, fields: dict[str, Any]) -> None:
        self.events.append((kind, fields))

    def on_todos(self, session_id: str, items: list[Any]) -> None: ...

    def on_context(self, session_id: str, meter: dict[str, Any]) -> None: ...

    def on_changes(self, session_id: str, changes: Any) -> None: ...

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [fields for k, fields in self.events if k == kind]

    def notices(self) -> list[str]:
        return [fields["message"] for fields in self.of("notice")]


def agent(
    workspace: Path, model: ScriptedModelServer, events: Events, **settings: Any
) -> SessionManager:
    editor = {"baseUrl": model.url, "approvals": {"bash": "allow"}, **settings}
    return SessionManager(
        events,
        root=lambda: workspace,
        settings=lambda root: resolve_settings(root, editor, {"ANTHROPIC_API_KEY": "sk-test"}),
    )


def messages(model: ScriptedModelServer) -> list[list[dict]]:
    return [r.body["messages"] for r in model.requests if r.path == "/v1/messages"]


async def test_a_refusal_ends_the_run_with_a_message_and_no_retry(
    workspace: Path, model: ScriptedModelServer
):
    model.load(
        script_of(
            reply(text("I can't help with that."), stop_reason="refusal"),
            reply(text("Sure, here is a haiku.")),
        )
    )
    events = Events()
    core = agent(workspace, model, events)
    result = await core.run(RunRequest("Do the forbidden thing"))

    assert result.stop_reason == "refusal"
    assert result.text == "I can't help with that."
    assert REFUSED in events.notices()
    assert len(messages(model)) == 1  # not asked again
    # the refused answer is not kept: the next prompt joins the user's turn, still valid
    second = await core.run(RunRequest("Write a haiku instead", result.session_id))
    assert second.stop_reason == "end_turn"
    (_, history) = messages(model)
    assert [m["role"] for m in history] == ["user"]
    assert all(r.rejected is None for r in model.requests)


async def test_pause_turn_sends_the_answer_back_and_the_turn_goes_on(
    workspace: Path, model: ScriptedModelServer
):
    model.load(
        script_of(
            reply(text("Searching the docs first."), stop_reason="pause_turn"),
            reply(text(" Found it: use --force.")),
        )
    )
    result = await agent(workspace, model, Events()).run(RunRequest("How do I force it?"))

    assert result.stop_reason == "end_turn"
    assert result.text == "Searching the docs first. Found it: use --force."
    _, second = messages(model)
    assert second[-1]["role"] == "assistant"  # the paused turn, sent back as the last message
    assert second[-1]["content"][0]["text"] == "Searching the docs first."
    assert all(r.rejected is None for r in model.requests)


def reads(count: int) -> list[dict]:
    return [
        reply(text(f"Read {n}."), tool("read_file", {"path": "data.txt"})) for n in range(count)
    ]


def data_file(workspace: Path) -> None:
    (workspace / "data.txt").write_text("".join(f"line {n:04d} {'x' * 60}\n" for n in range(60)))


async def test_context_window_exceeded_compacts_once_and_asks_again(
    workspace: Path, model: ScriptedModelServer
):
    data_file(workspace)
    model.load(
        script_of(*reads(6), reply(text("partial"), stop_reason=EXCEEDED), reply(text("Done.")))
    )
    events = Events()
    core = agent(workspace, model, events, contextWindow=200_000)
    result = await core.run(RunRequest("Read data.txt six times"))

    assert result.stop_reason == "end_turn" and result.text == "Done."
    assert any(n.startswith("Compacted the conversation") for n in events.notices())
    *_, exceeded, retried = messages(model)
    assert len(str(retried)) < len(str(exceeded))  # the same turn, asked again smaller
    assert "removed to save context" in str(retried) or "summarised to fit" in str(retried)
    assert "partial" not in str(retried)  # the cut-off answer was not kept
    assert_valid_history(retried)
    assert all(r.rejected is None for r in model.requests)


async def test_context_window_exceeded_again_is_a_clear_error(
    workspace: Path, model: ScriptedModelServer
):
    data_file(workspace)
    model.load(
        script_of(
            *reads(6),
            reply(text("partial"), stop_reason=EXCEEDED),
            reply(text("partial again"), stop_reason=EXCEEDED),
            reply(text("never asked")),
        )
    )
    core = agent(workspace, model, Events(), contextWindow=200_000)
    result = await core.run(RunRequest("Read data.txt six times"))

    assert result.stop_reason == "error"
    assert result.error is not None
    assert result.error.startswith("The conversation no longer fits the model's context window")
    assert "200,000 tokens" in result.error
    assert len(messages(model)) == 8  # six reads, the first try, one retry: no loop


async def test_max_tokens_in_the_middle_of_thinking_says_so(
    workspace: Path, model: ScriptedModelServer
):
    model.load(
        script_of(
            reply(thinking("Let me think about this at great length"), stop_reason="max_tokens")
        )
    )
    events = Events()
    result = await agent(workspace, model, events, maxTokens=2048).run(RunRequest("Think hard"))

    assert result.stop_reason == "end_turn" and result.text == ""
    assert any(
        n.startswith("The answer hit the max_tokens limit before the model wrote anything")
        and "maxTokens 2,048" in n
        for n in events.notices()
    ), events.notices()


async def test_a_stop_sequence_ends_the_run_and_is_reported(
    workspace: Path, model: ScriptedModelServer
):
    model.load(
        script_of(
            reply(text("Answer: 42"), stop_reason="stop_sequence", stop_sequence="###"),
            reply(text("Again: 42")),
        )
    )
    events = Events()
    core = agent(workspace, model, events)
    result = await core.run(RunRequest("The answer, then ###"))

    assert result.stop_reason == "stop_sequence"
    assert result.text == "Answer: 42"
    assert [e["stopReason"] for e in events.of("runEnd")] == ["stop_sequence"]
    # the answer is kept as any other: the next prompt follows it
    second = await core.run(RunRequest("Once more", result.session_id))
    assert second.stop_reason == "end_turn"
    (_, history) = messages(model)
    assert [m["role"] for m in history] == ["user", "assistant", "user"]
    assert history[1]["content"] == [{"type": "text", "text": "Answer: 42"}]
    assert all(r.rejected is None for r in model.requests)
