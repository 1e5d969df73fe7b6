"""`workspace-agent run` and thinking: `--thinking LEVEL` sets what the request asks for,
the thinking shows as its own (dim) lines before the answer, `--no-thinking` hides it."""

from __future__ import annotations

import subprocess
from pathlib import Path

from workspace_agent.testing.scripted_model import (
    ScriptedModelServer,
    reply,
    script_of,
    text,
    thinking,
)

from tests.support.cli import CLI, cli_env

THOUGHT = "The user wants a haiku.\nFive, seven, five."


def run_cli(model: ScriptedModelServer, workspace: Path, *options: str) -> str:
    model.load(script_of(reply(thinking(THOUGHT), text("Old pond, a frog."))))
    done = subprocess.run(
        [*CLI, "run", "Write a haiku", "--workspace", str(workspace), *options],
        env=cli_env(model, MODEL_ID="claude-opus-4-6"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_thinking_is_shown_on_its_own_lines_before_the_answer(
    model: ScriptedModelServer, workspace: Path
):
    out = run_cli(model, workspace, "--thinking", "low")

    assert "  thinking: The user wants a haiku.\n  Five, seven, five.\nOld pond, a frog." in out
    body = model.requests[-1].body
    assert body["thinking"] == {"type": "adaptive"} and body["output_config"] == {"effort": "low"}


def test_no_thinking_hides_it_and_thinking_off_stops_it(
    model: ScriptedModelServer, workspace: Path
):
    out = run_cli(model, workspace, "--no-thinking")
    assert "Old pond, a frog." in out and "haiku" not in out.replace("Write a haiku", "")
    assert model.requests[-1].body["output_config"] == {"effort": "high"}  # the family's default

    run_cli(model, workspace, "--thinking", "off")
    assert "thinking" not in model.requests[-1].body


def test_model_and_thinking_flags_pick_what_the_request_asks_for(
    model: ScriptedModelServer, workspace: Path
):
    run_cli(model, workspace, "--model", "claude-sonnet-4-5", "--thinking", "medium")

    body = model.requests[-1].body
    assert body["model"] == "claude-sonnet-4-5"
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 10_000}
    assert "output_config" not in body


def test_a_level_the_model_does_not_take_is_refused_before_anything_runs(
    model: ScriptedModelServer, workspace: Path
):
    done = subprocess.run(
        [
            *CLI,
            "run",
            "Hi",
            "--workspace",
            str(workspace),
            *("--model", "my-gateway-alias"),
            "--thinking",
            "high",
        ],
        env=cli_env(model),
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert done.returncode == 2
    assert done.stdout.strip() == (
        "workspace-agent: --thinking high: model 'my-gateway-alias' takes no thinking (the "
        "agent's table of model families does not know it): choose thinking off, or set the "
        "thinkingStyle setting to adaptive or budget if the model takes thinking"
    )
    assert model.requests == []
    unknown = subprocess.run(
        [*CLI, "run", "Hi", "--workspace", str(workspace), "--thinking", "extreme"],
        env=cli_env(model),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert unknown.returncode == 2
    assert "--thinking: invalid choice: 'extreme' (choose from" in unknown.stderr
