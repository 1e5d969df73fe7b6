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
