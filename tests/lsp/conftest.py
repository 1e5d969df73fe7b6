"""The real language server driven over LSP by pytest-lsp, working in a fresh workspace
folder: a plain client, one without an API key, and editor-like clients (EditorDouble)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from workspace_agent.testing.scripted_model import ScriptedModelServer

from tests.support.editor_double import EditorDouble
from tests.support.lsp import start_session
from tests.support.server import SERVER, TEST_KEY, server_env


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=SERVER, server_env=server_env(ANTHROPIC_API_KEY=TEST_KEY)
    )
)
async def client(lsp_client: LanguageClient, workspace: Path, model: ScriptedModelServer):
    await start_session(lsp_client, workspace, model)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=server_env()))
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
        server_command=SERVER, server_env=server_env(ANTHROPIC_API_KEY=TEST_KEY)
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
        server_command=SERVER, server_env=server_env(ANTHROPIC_API_KEY=TEST_KEY)
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
        server_command=SERVER, server_env=server_env(ANTHROPIC_API_KEY=TEST_KEY)
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
