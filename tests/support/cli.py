"""Running `workspace-agent` as a user runs it in a terminal: the command, and an
environment that points the real SDK at the scripted model."""

from __future__ import annotations

import os

from workspace_agent.testing.scripted_model import ScriptedModelServer

from tests.support import warm_start
from tests.support.server import TEST_KEY

CLI = warm_start.command()
"""`workspace-agent` as a terminal user runs it, forked warm (tests/support/warm_start.py)."""
CLI_COLD = warm_start.cold()
"""The same, exec'd: for tests about the process's own life."""


def cli_env(model: ScriptedModelServer, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update({"ANTHROPIC_BASE_URL": model.url, "ANTHROPIC_API_KEY": TEST_KEY, **extra})
    return env
