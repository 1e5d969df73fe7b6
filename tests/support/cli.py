"""Running `workspace-agent` as a user runs it in a terminal: the command, and an
environment that points the real SDK at the scripted model."""

from __future__ import annotations

import os
import sys

from workspace_agent.testing.scripted_model import ScriptedModelServer

from tests.support.server import TEST_KEY

CLI = [sys.executable, "-m", "workspace_agent"]


def cli_env(model: ScriptedModelServer, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update({"ANTHROPIC_BASE_URL": model.url, "ANTHROPIC_API_KEY": TEST_KEY, **extra})
    return env
