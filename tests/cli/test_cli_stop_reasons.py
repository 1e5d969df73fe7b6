"""`workspace-agent run` when the model refuses: the refusal's text and a message saying
what happened, exit status 5, one request (no retry loop)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from workspace_agent.agent.loop import REFUSED
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text

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
