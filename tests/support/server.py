"""How the tests start the agent (server, ACP agent, CLI): the command, an environment
without the machine's own API settings, and a user config folder of the test run's own."""

from __future__ import annotations

import os
import signal
import tempfile
from pathlib import Path

from tests.support import warm_start

TEST_KEY = "sk-test-not-a-real-key-0123456789"
SERVER = warm_start.command()
"""The language server, forked warm (tests/support/warm_start.py)."""
SERVER_COLD = warm_start.cold()
"""`python -m workspace_agent` itself: for tests about the server process's own life."""


USER_CONFIG = Path(tempfile.mkdtemp(prefix="wa-user-config-"))
"""The servers' user config folder (user AGENTS.md, mcp.json, trust): never the real
~/.config of the machine running the tests; a test that writes there removes it after.
tests/conftest.py points in-process sessions at it too."""
CLAUDE_CONFIG = Path(tempfile.mkdtemp(prefix="wa-claude-config-"))
"""Claude Code's user folder as the agent sees it (CLAUDE_CONFIG_DIR): empty, so the hooks,
skills and agents of the machine's own ~/.claude never reach a test."""


def server_env(**extra: str) -> dict[str, str]:
    """This process's environment for a child agent: no ANTHROPIC_* or MODEL_ID of the
    machine, short retry backoff, the test run's user config folder, then `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "MODEL_ID"))}
    env["WORKSPACE_AGENT_RETRY_BASE_SECONDS"] = "0.05"  # backoff shape, not minutes of waiting
    env["WORKSPACE_AGENT_CONFIG_DIR"] = str(USER_CONFIG)
    env["CLAUDE_CONFIG_DIR"] = str(CLAUDE_CONFIG)
    env.update(extra)
    return env


SERVER_ENV = server_env(ANTHROPIC_API_KEY=TEST_KEY)


def no_bwrap_path() -> str:
    """A PATH with the server's programs but no bwrap (a machine without bubblewrap)."""
    folders = [f for f in server_env()["PATH"].split(":") if f and not Path(f, "bwrap").exists()]
    return ":".join(folders)


def default_signals() -> None:
    """In a child process (server or CLI) before exec: SIGINT and SIGHUP as a terminal would
    deliver them, even if this test process inherited them ignored (a background job)."""
    for sig in (signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def folder_of(workspace: Path) -> Path:
    """Where the server keeps a workspace's saved sessions."""
    return workspace / ".workspace-agent" / "sessions"
