"""The built-in commands that answer without the model, on a real SessionManager in this
process: /compact shortens a long conversation, /cost adds up the session's tokens, and a
built-in given arguments says it takes none."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from workspace_agent.agent.errors import SessionError
from workspace_agent.agent.sessions import SessionManager
from workspace_agent.config import AgentSettings
from workspace_agent.protocol import RunRequest, Usage


class Events:
    def __init__(self) -> None:
        self.seen: list[tuple[str, dict[str, Any]]] = []
        self.meters: list[dict[str, Any]] = []

    def on_event(self, session_id: str, kind: str, fields: dict[str, Any]) -> None:
        self.seen.append((kind, fields))

    def on_todos(self, session_id: str, items: Any) -> None:
        pass

    def on_changes(self, session_id: str, changes: Any) -> None:
        pass

    def on_context(self, session_id: str, meter: Any) -> None:
        self.meters.append(meter)


def manager(root: Path, events: Events) -> SessionManager:
    return SessionManager(events, root=lambda: root, settings=lambda _root: AgentSettings())


def long_conversation() -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": "go"}]}]
    for n in range(12):
        messages.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": f"step {n}"},
                    {
                        "type": "tool_use",
                        "id": f"t{n}",
                        "name": "read_file",
                        "input": {"path": "a"},
                    },
                ],
            }
        )
        messages.append(
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": f"t{n}", "content": "x" * 20_000}
                ],
            }
        )
    messages.append({"role": "assistant", "content": [{"type": "text", "text": "done"}]})
    return messages


async def test_compact_shortens_a_long_conversation_now(tmp_path: Path):
    events = Events()
    agent = manager(tmp_path, events)
    session = agent.new_session()
    session.messages = long_conversation()
    size = len(str(session.messages))

    result = await agent.run(RunRequest("/compact", session.id))

    assert result.text.startswith("Compacted the conversation as asked: about 200,000 → ")
    assert len(str(session.messages)) < size / 2
    assert [kind for kind, _ in events.seen] == ["runStart", "notice", "runEnd"]
    assert events.seen[1][1] == {"message": result.text}
    (meter,) = events.meters  # the meter falls with the conversation: its estimated size now
    assert meter["sessionId"] == session.id
    assert meter["used"] == session.last_input_tokens and 0 < meter["used"] < 100_000
    assert meter["window"] == 200_000 and meter["near"] is False


async def test_cost_adds_up_the_session_and_arguments_are_refused(tmp_path: Path):
    agent = manager(tmp_path, Events())
    session = agent.new_session()
    session.usage = Usage(input_tokens=1000, output_tokens=500, cache_read_tokens=3000)

    result = await agent.run(RunRequest("/cost", session.id))
    with pytest.raises(SessionError, match=r"^/cost takes no arguments \(got 'now'\)$"):
        await agent.run(RunRequest("/cost now", session.id))
    with pytest.raises(SessionError, match=r"^/plan needs a task: /plan WHAT TO DO$"):
        await agent.run(RunRequest("/plan", session.id))

    assert result.text.startswith(
        f"Session {session.id}: 4,000 input tokens (3,000 read from the prompt cache, 0 written "
        "to it) and 500 output tokens; about $"
    )
