"""What the tests share, imported as a package (`from tests.support.lsp import run`): how
the agent is started (`server`), the recording LSP client and the one session setup
(`client`), LSP requests and waiting (`lsp`), the editor double (`editor_double`), the
ACP side (`acp`), the headless CLI (`cli`), the real MCP servers (`mcp`), and the
processes a test starts and checks (`processes`).

Fixtures live in the conftest.py files; nothing imports a conftest."""
