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
