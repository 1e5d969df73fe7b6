"""What the tests share, imported as a package (`from tests.support.lsp import run`): how
the server is started (`server`), the LSP side (`lsp`: the recording client, requests),
the editor double (`editor_double`), the ACP side (`acp`), the real MCP servers (`mcp`),
the processes a test starts and checks (`processes`), the headless CLI (`cli`).

Fixtures live in the conftest.py files; nothing imports a conftest."""
