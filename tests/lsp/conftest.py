"""The real language server driven over LSP by pytest-lsp, working in a fresh workspace
folder: one setup (tests/support/client.py's `session_fixture`), five clients."""

from __future__ import annotations

from tests.support.client import session_fixture
from tests.support.server import server_env

client = session_fixture("client")
"""A plain client (VS Code's capabilities), bash allowed."""

client_without_key = session_fixture("client_without_key", env=server_env())
"""Like `client`, for a server without ANTHROPIC_API_KEY."""

editor = session_fixture("editor", editor={"saves": True})
"""A client that behaves like an editor: open documents, workspace/applyEdit applied to
its buffers (with version checks), and saving on workspaceAgent/saveDocuments."""

editor_without_save = session_fixture("editor_without_save", editor={"saves": False})
"""Like `editor`, but without the saveDocuments capability."""

cold_client = session_fixture("cold_client", cold=True)
"""Like `client`, with the server exec'd rather than forked warm: a test about the process
itself (its memory, its pid)."""

configured_editor = session_fixture(
    "configured_editor", editor={"saves": True}, editor_from_param=True
)
"""Like `editor`, with EditorDouble's options from the test's parameter (indirect
parametrization): `encodings` offered, `document_changes`, `saves`."""
