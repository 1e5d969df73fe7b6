"""Stop reasons over ACP: a refusal answers session/prompt with stopReason `refusal`
(ACP's own), the message shown in the agent's text; a paused turn goes on; a stop
sequence is ACP's `end_turn`; a context window exceeded compacts once and goes on, twice
is an error saying what to do; max_tokens in the thinking says which settings to change;
a `/plan ` prompt plans in plan mode and ends its turn; the turn limit says that a
follow-up prompt goes on, and one does, in the same session with turns of its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp import RequestError

from workspace_agent.testing.scripted_model import (
    ScriptedModelServer,
    reply,
    script_of,
    text,
    thinking,
    tool,
)

from tests.support.acp import EditorClient, acp_agent, agent_env, prompt
from tests.support.lsp import tool_results


async def test_a_refusal_is_acps_refusal(model: ScriptedModelServer, workspace: Path):
    model.load(script_of(reply(text("I can't help with that."), stop_reason="refusal")))
    client = EditorClient()
    async with acp_agent(client, workspace, agent_env(model)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        stop = await prompt(conn, session.session_id, "Do the forbidden thing")

    assert stop == "refusal"
    assert "I can't help with that." in client.text()
    assert "declined to go on with this request" in client.text()


async def test_a_paused_turn_goes_on(model: ScriptedModelServer, workspace: Path):
    model.load(
        script_of(
            reply(text("Looking it up."), stop_reason="pause_turn"), reply(text(" Found it."))
        )
    )
    client = EditorClient()
    async with acp_agent(client, workspace, agent_env(model)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        stop = await prompt(conn, session.session_id, "Look it up")

    assert stop == "end_turn"
    assert client.text() == "Looking it up. Found it."
    assert [r.rejected for r in model.requests] == [None, None]


async def test_a_stop_sequence_is_acps_end_turn(model: ScriptedModelServer, workspace: Path):
    model.load(
        script_of(reply(text("Answer: 42"), stop_reason="stop_sequence", stop_sequence="###"))
    )
    client = EditorClient()
    async with acp_agent(client, workspace, agent_env(model)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        stop = await prompt(conn, session.session_id, "The answer, then ###")

    assert stop == "end_turn"
    assert client.text() == "Answer: 42"


EXCEEDED = "model_context_window_exceeded"


def reads(count: int) -> list[dict]:
    return [
        reply(text(f"Read {n}. "), tool("read_file", {"path": "data.txt"})) for n in range(count)
    ]


async def test_a_context_window_exceeded_compacts_once_and_goes_on(
    model: ScriptedModelServer, workspace: Path
):
    (workspace / "data.txt").write_text("".join(f"line {n:04d} {'x' * 60}\n" for n in range(60)))
    model.load(
        script_of(*reads(6), reply(text("partial"), stop_reason=EXCEEDED), reply(text("Done.")))
    )
    client = EditorClient()
    async with acp_agent(client, workspace, agent_env(model)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        stop = await prompt(conn, session.session_id, "Read data.txt six times")

    assert stop == "end_turn"
    # the cut answer was streamed as it came, then the compaction is said, then the answer
    shown = client.text()
    assert (
        shown.index("partial") < shown.index("> Compacted the conversation") < shown.index("Done.")
    )
    assert shown.endswith("Done.")
    assert "partial" not in str(model.requests[-1].body["messages"])  # not kept
    assert all(r.rejected is None for r in model.requests)


async def test_a_context_window_exceeded_twice_is_an_error_saying_what_to_do(
    model: ScriptedModelServer, workspace: Path
):
    (workspace / "data.txt").write_text("".join(f"line {n:04d} {'x' * 60}\n" for n in range(60)))
    model.load(
        script_of(
            *reads(6),
            reply(text("partial"), stop_reason=EXCEEDED),
            reply(text("partial again"), stop_reason=EXCEEDED),
        )
    )
    client = EditorClient()
    async with acp_agent(client, workspace, agent_env(model)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        with pytest.raises(RequestError) as error:
            await prompt(conn, session.session_id, "Read data.txt six times")

    assert "no longer fits the model's context window" in str(error.value.data or error.value)
    assert "Start a new session" in str(error.value.data or error.value)
    assert len([r for r in model.requests if r.path == "/v1/messages"]) == 8  # no loop


async def test_max_tokens_in_the_thinking_names_the_settings(
    model: ScriptedModelServer, workspace: Path
):
    model.load(script_of(reply(thinking("Let me think at great length"), stop_reason="max_tokens")))
    client = EditorClient()
    env = agent_env(model, WORKSPACE_AGENT_MAX_TOKENS="2048")
    async with acp_agent(client, workspace, env) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        stop = await prompt(conn, session.session_id, "Think hard")

    assert stop == "end_turn"
    assert "hit the max_tokens limit before the model wrote anything" in client.text()
    assert "maxTokens 2,048" in client.text() and "Raise maxTokens" in client.text()


async def test_a_plan_prompt_plans_without_touching_and_ends_its_turn(
    model: ScriptedModelServer, workspace: Path
):
    plan = {"items": [{"id": "1", "text": "Write notes.txt", "status": "pending"}]}
    model.load(
        script_of(
            reply(
                tool("write_file", {"path": "notes.txt", "content": "x"}),
                tool("todo", plan),
            ),
            reply(text("The plan: one file.")),
        )
    )
    client = EditorClient()
    async with acp_agent(client, workspace, agent_env(model)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        stop = await prompt(conn, session.session_id, "/plan Write the notes")

    # planReady asks about the plan; an answer it did not offer (allow_once) is a reject:
    # the turn ends with the plan kept.
    (question,) = client.permission_requests
    assert question["toolCall"]["kind"] == "switch_mode"
    assert stop == "end_turn"
    assert not (workspace / "notes.txt").exists()
    first = model.requests[0].body
    assert first["messages"][-1]["content"][-1]["text"] == "Write the notes"
    (write, _) = tool_results(model.requests[1].body)
    assert write["content"].startswith("not done: you are in plan mode")


async def test_the_turn_limit_says_how_to_go_on_and_a_follow_up_does(
    model: ScriptedModelServer, workspace: Path
):
    model.load(
        script_of(
            reply(tool("bash", {"command": "echo one"})),
            reply(tool("bash", {"command": "echo two"})),
            reply(tool("bash", {"command": "echo three"})),
            reply(text("All three done.")),
        )
    )
    client = EditorClient()
    env = agent_env(model, WORKSPACE_AGENT_MAX_TURNS="2")
    async with acp_agent(client, workspace, env, "--yes") as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        assert await prompt(conn, session.session_id, "Echo three things") == "max_turn_requests"
        stopped = client.text()
        assert stopped.endswith(
            "> Stopped at the turn limit (2 model turns, the `maxTurns` setting). Send another "
            'prompt, such as "continue", to go on where it stopped: it gets another 2 model '
            "turns.\n\n"
        )
        assert await prompt(conn, session.session_id, "continue") == "end_turn"

    assert client.text().endswith("All three done.")
    assert len(model.requests) == 4
    # The follow-up went on from where the run stopped: its result and the prompt, together.
    last_user = model.requests[2].body["messages"][-1]["content"]
    assert [b["type"] for b in last_user] == ["tool_result", "text"]
    assert last_user[-1]["text"] == "continue"
