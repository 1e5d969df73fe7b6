"""`workspace-agent run` and the model's stop reasons: a refusal shows its text and a
message saying what happened, exit status 5, one request (no retry loop); a stop sequence
is a success (exit 0) shown as such; a context window exceeded compacts once and goes on,
twice is exit 1 with what to do; max_tokens in the thinking names the settings to change."""

from __future__ import annotations

import subprocess
from pathlib import Path

from workspace_agent.agent.loop import REFUSED
from workspace_agent.testing.scripted_model import (
    ScriptedModelServer,
    reply,
    script_of,
    text,
    thinking,
    tool,
)

from tests.support.cli import CLI, cli_env


def test_a_refusal_exits_5_with_a_message(model: ScriptedModelServer, workspace: Path):
    model.load(script_of(reply(text("I can't help with that."), stop_reason="refusal")))
    done = subprocess.run(
        [*CLI, "run", "Do the forbidden thing", "--workspace", str(workspace)],
        env=cli_env(model),
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert done.returncode == 5, done.stderr
    assert "I can't help with that." in done.stdout
    assert f"! {REFUSED}" in done.stdout and "■ refusal" in done.stdout
    assert len([r for r in model.requests if r.path == "/v1/messages"]) == 1


def run_cli(model: ScriptedModelServer, workspace: Path, task: str, **env: str):
    return subprocess.run(
        [*CLI, "run", task, "--workspace", str(workspace)],
        env={**cli_env(model), **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_stop_sequence_is_a_success(model: ScriptedModelServer, workspace: Path):
    model.load(
        script_of(reply(text("Answer: 42"), stop_reason="stop_sequence", stop_sequence="###"))
    )
    done = run_cli(model, workspace, "The answer, then ###")

    assert done.returncode == 0, done.stderr
    assert "Answer: 42" in done.stdout and "■ stop_sequence" in done.stdout


EXCEEDED = "model_context_window_exceeded"


def reads(count: int) -> list[dict]:
    return [
        reply(text(f"Read {n}."), tool("read_file", {"path": "data.txt"})) for n in range(count)
    ]


def test_a_context_window_exceeded_compacts_once_and_goes_on(
    model: ScriptedModelServer, workspace: Path
):
    (workspace / "data.txt").write_text("".join(f"line {n:04d} {'x' * 60}\n" for n in range(60)))
    model.load(
        script_of(*reads(6), reply(text("partial"), stop_reason=EXCEEDED), reply(text("Done.")))
    )
    done = run_cli(model, workspace, "Read data.txt six times")

    assert done.returncode == 0, done.stderr
    assert "! Compacted the conversation to fit the context window" in done.stdout
    assert done.stdout.rstrip().splitlines()[-2].endswith("Done.")
    assert "■ end_turn" in done.stdout


def test_a_context_window_exceeded_twice_exits_1_saying_what_to_do(
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
    done = run_cli(model, workspace, "Read data.txt six times")

    assert done.returncode == 1
    shown = done.stdout + done.stderr
    assert "The conversation no longer fits the model's context window (200,000 tokens" in shown
    assert "Start a new session" in shown
    assert len([r for r in model.requests if r.path == "/v1/messages"]) == 8  # no loop


def test_max_tokens_in_the_thinking_names_the_settings(model: ScriptedModelServer, workspace: Path):
    model.load(script_of(reply(thinking("Let me think at great length"), stop_reason="max_tokens")))
    done = run_cli(model, workspace, "Think hard", WORKSPACE_AGENT_MAX_TOKENS="2048")

    assert done.returncode == 0, done.stderr
    assert "thinking: Let me think at great length" in done.stdout
    assert "! The answer hit the max_tokens limit before the model wrote anything" in done.stdout
    assert "(workspaceAgent.maxTokens 2,048). Raise maxTokens" in done.stdout


def test_the_turn_limit_prints_the_command_that_goes_on_and_it_does(
    model: ScriptedModelServer, workspace: Path
):
    model.load(
        script_of(
            reply(tool("bash", {"command": "echo one"})),
            reply(tool("bash", {"command": "echo two"})),
            reply(text("Both echoed.")),
        )
    )
    first = subprocess.run(
        [*CLI, "run", "Echo twice", "--workspace", str(workspace), "--max-turns", "1", "--yes"],
        env=cli_env(model),
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert first.returncode == 3, first.stderr
    session = first.stdout.splitlines()[0].removeprefix("session ")
    *_, why, command = first.stdout.rstrip().splitlines()
    assert why == (
        "Stopped at the turn limit (1 model turn, --max-turns or maxTurns). "
        "To go on where it stopped (another 1 model turn):"
    )
    assert command.split() == [
        "workspace-agent", "run", "--workspace", str(workspace), "--session", session,
        "--yes", "--max-turns=1", "continue",
    ]  # fmt: skip
    # The command as printed (the program as the tests run it) goes on in the same session.
    again = subprocess.run(
        [*CLI, *command.split()[1:]],
        env=cli_env(model),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert again.returncode == 3, again.stderr  # one more turn: the second echo
    assert "echo two" in again.stdout
    sent = model.requests[1].body["messages"]
    assert sent[0]["content"][-1]["text"] == "Echo twice"
    assert sent[-1]["content"][-1]["text"] == "continue"
