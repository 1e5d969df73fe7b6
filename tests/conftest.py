"""Fixtures every level uses: a scripted model server per test, a fresh workspace folder,
and the sandbox check. The LSP clients are in tests/lsp/conftest.py; helpers are in
tests/support/."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from workspace_agent.testing.scripted_model import ScriptedModelServer

from tests.support import warm_start
from tests.support.server import CLAUDE_CONFIG, USER_CONFIG

pytest_plugins = ["tests.support.hang_report"]

# Property tests check behaviour, not speed: a loaded 2-core CI machine must not fail them.
settings.register_profile("workspace-agent", deadline=None)
settings.load_profile("workspace-agent")

os.environ["WORKSPACE_AGENT_CONFIG_DIR"] = str(USER_CONFIG)  # in-process sessions too
os.environ["CLAUDE_CONFIG_DIR"] = str(CLAUDE_CONFIG)  # nothing of the machine's ~/.claude


@pytest.fixture(scope="session", autouse=True)
def warm_starter(request: pytest.FixtureRequest) -> Iterator[None]:
    """The agent processes of this test process are forked from one that imported the agent
    and the SDK once (tests/support/warm_start.py); unit tests start none."""
    if all(item.nodeid.startswith("tests/unit/") for item in request.session.items):
        yield
        return
    warm_start.start()
    yield
    warm_start.stop()


@pytest.fixture
def model() -> Iterator[ScriptedModelServer]:
    """The scripted Messages API, empty until a test loads a script."""
    with ScriptedModelServer({"conversations": []}) as server:
        yield server


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "workspace"
    root.mkdir()
    return root


@pytest.fixture
def sandbox_works() -> None:
    """Skip (never pass) a test that needs the bash sandbox where it cannot start, saying
    why (the availability probe's reason and fix)."""
    import asyncio

    from workspace_agent.sandbox import probe

    probe.forget()
    state = asyncio.run(probe.availability(None))
    if not state.ok:
        pytest.skip(f"the sandbox cannot start here: {state.describe()}")
