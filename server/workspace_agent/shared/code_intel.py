"""Code intelligence as the core sees it: someone who answers the Language Server
Protocol's questions about the workspace's code (where a symbol is defined, who refers to
it, its type, a rename's edit).

Two implement it: the editor (lsp/editor_code_intel.py, a client that announced the
`codeIntel` capability answers with its own language extensions) and the language servers
the user configured (code_intel/servers.py, started by the agent in the sandbox). Both
answer in the protocol's JSON shapes (Location, LocationLink, Hover, DocumentSymbol,
SymbolInformation, CallHierarchyIncomingCall/OutgoingCall, WorkspaceEdit), with positions
in the protocol's units (0-based lines, UTF-16 code units), so the tools that read the
answers (code_intel/) do not know who gave them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, Protocol, get_args

Operation = Literal[
    "definition",
    "references",
    "implementations",
    "hover",
    "document_symbols",
    "workspace_symbols",
    "incoming_calls",
    "outgoing_calls",
]
OPERATIONS: tuple[Operation, ...] = get_args(Operation)


class CodeIntel(Protocol):
    """Answers code questions in LSP JSON. Raises ToolError with what to do when it cannot
    (no server for the file's kind, the server crashed twice, the editor refused)."""

    name: str
    """Who answers, for results and errors ("the editor", "language server pyright")."""

    async def ask(
        self,
        operation: Operation,
        path: Path,
        position: dict[str, int] | None,
        query: str | None,
        text: str,
    ) -> Any:
        """The answer to `operation` about `path` (at `position`, LSP units; `query` for
        workspace_symbols). `text`: the file's text as the agent sees it now (the editor's
        buffer or the disk), for a server that must be told it. For incoming_calls and
        outgoing_calls: the calls of every item prepareCallHierarchy found there."""

    async def rename(
        self, path: Path, position: dict[str, int], new_name: str, text: str
    ) -> dict[str, Any] | None:
        """The WorkspaceEdit that renames the symbol at `position` (None: nothing to rename)."""

    def handles(self, path: Path) -> bool:
        """Whether a file of this kind can be asked about (a configured server's
        extensions; the editor: any)."""
