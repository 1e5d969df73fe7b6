"""Fixtures: a scripted model server per test, and the real language server driven over
LSP by pytest-lsp, working in a fresh workspace folder."""

from __future__ import annotations

import os
import signal
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from hypothesis import settings
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from workspace_agent.testing.scripted_model import ScriptedModelServer

from .editor_double import EditorDouble
from .lsp_helpers import record_notifications

# Property tests check behaviour, not speed: a loaded 2-core CI machine must not fail them.
settings.register_profile("workspace-agent", deadline=None)
settings.load_profile("workspace-agent")

TEST_KEY = "sk-test-not-a-real-key-0123456789"
SERVER = [sys.executable, "-m", "workspace_agent"]


USER_CONFIG = Path(tempfile.mkdtemp(prefix="wa-user-config-"))
"""The servers' user config folder (user AGENTS.md, mcp.json, trust): never the real
~/.config of the machine running the tests; a test that writes there removes it after."""
os.environ["WORKSPACE_AGENT_CONFIG_DIR"] = str(USER_CONFIG)  # in-process sessions too


def _server_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "MODEL_ID"))}
    env["WORKSPACE_AGENT_RETRY_BASE_SECONDS"] = "0.05"  # backoff shape, not minutes of waiting
    env["WORKSPACE_AGENT_CONFIG_DIR"] = str(USER_CONFIG)
    env.update(extra)
    return env


SERVER_ENV = _server_env(ANTHROPIC_API_KEY=TEST_KEY)


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


async def start_session(
    client: LanguageClient,
    workspace: Path,
    model: ScriptedModelServer,
    capabilities: types.ClientCapabilities | None = None,
) -> types.InitializeResult:
    record_notifications(client)
    return await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities or pytest_lsp.client_capabilities("visual-studio-code"),
            root_uri=workspace.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
            initialization_options={
                "workspaceAgent": {
                    "baseUrl": model.url,
                    "bashTimeoutSeconds": 20,
                    "approvals": {"bash": "allow"},
                }
            },
        )
    )


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=SERVER, server_env=_server_env(ANTHROPIC_API_KEY=TEST_KEY)
    )
)
async def client(lsp_client: LanguageClient, workspace: Path, model: ScriptedModelServer):
    await start_session(lsp_client, workspace, model)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=_server_env()))
async def client_without_key(
    lsp_client: LanguageClient, workspace: Path, model: ScriptedModelServer
):
    await start_session(lsp_client, workspace, model)
    yield
    await lsp_client.shutdown_session()


async def _editor_session(
    client: LanguageClient, workspace: Path, model: ScriptedModelServer, **options: Any
) -> None:
    double = EditorDouble(client, **options)
    double.initialized(await start_session(client, workspace, model, double.capabilities()))
    client.double = double  # type: ignore[attr-defined]


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=SERVER, server_env=_server_env(ANTHROPIC_API_KEY=TEST_KEY)
    )
)
async def editor(lsp_client: LanguageClient, workspace: Path, model: ScriptedModelServer):
    """A client that behaves like an editor: open documents, workspace/applyEdit applied to
    its buffers (with version checks), and saving on workspaceAgent/saveDocuments."""
    await _editor_session(lsp_client, workspace, model, saves=True)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=SERVER, server_env=_server_env(ANTHROPIC_API_KEY=TEST_KEY)
    )
)
async def editor_without_save(
    lsp_client: LanguageClient, workspace: Path, model: ScriptedModelServer
):
    """Like `editor`, but without the saveDocuments capability."""
    await _editor_session(lsp_client, workspace, model, saves=False)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=SERVER, server_env=_server_env(ANTHROPIC_API_KEY=TEST_KEY)
    )
)
async def configured_editor(
    lsp_client: LanguageClient,
    workspace: Path,
    model: ScriptedModelServer,
    request: pytest.FixtureRequest,
):
    """Like `editor`, with EditorDouble's options from the test's parameter (indirect
    parametrization): `encodings` offered, `document_changes`, `saves`."""
    await _editor_session(lsp_client, workspace, model, **{"saves": True, **request.param})
    yield
    await lsp_client.shutdown_session()


def default_signals() -> None:
    """In a child process (server or CLI) before exec: SIGINT and SIGHUP as a terminal would
    deliver them, even if this test process inherited them ignored (a background job)."""
    for sig in (signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


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
