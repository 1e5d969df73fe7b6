"""The code-action row's baseline: the same actions, computed the obvious way.

A pygls server whose `textDocument/codeAction` handler does per request what a first
version would: take the params as pygls's typed objects, read the document from disk and
index its lines, resolve the settings (environment and the workspace's `.env` included)
and the paths on disk, then build the same actions with the same builder as the real
server and answer them through pygls's usual encoding. Run: `python -m
bench.naive_code_actions` (LSP on stdio).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from workspace_agent.config import editor_section, resolve_settings
from workspace_agent.lsp.code_actions import KINDS, ActionRequest, ActionScope, code_actions
from workspace_agent.lsp.open_documents import OpenDocument


def main() -> None:
    server = LanguageServer("naive-code-actions", "0")
    editor: dict[str, Any] = {}

    @server.feature(types.INITIALIZE)
    def initialize(ls: LanguageServer, params: types.InitializeParams) -> None:
        editor.update(editor_section(params.initialization_options))

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=list(KINDS))
    )
    def code_action(ls: LanguageServer, params: types.CodeActionParams) -> Any:
        root = Path(ls.workspace.root_path or ".").resolve()
        settings = resolve_settings(root, editor)
        if not settings.code_actions_enabled:
            return None
        path = Path(to_fs_path(params.text_document.uri) or "").resolve()
        if not path.is_relative_to(root) or not path.is_file():
            return None
        text = path.read_text(encoding="utf-8")
        document = OpenDocument(params.text_document.uri, 0, text, "utf-16")
        scope = ActionScope(
            document, path.relative_to(root).as_posix(), None, settings.context_max_chars
        )
        request = ActionRequest.from_wire(server.protocol._converter.unstructure(params))
        return code_actions(request, scope) or None

    server.start_io()


if __name__ == "__main__":
    main()
