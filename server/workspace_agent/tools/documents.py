"""Files as the editor sees them: open buffers (unsaved changes included) and edits that
go through the editor, so the user sees them at once and can undo them.

The core only knows this interface. Headless runs use `DiskOnly` (no editor, every read
and write is on disk); the language server plugs in an implementation backed by the
documents the client synced and `workspace/applyEdit`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


@dataclass(frozen=True)
class Buffer:
    """A file's text as the editor holds it right now."""

    text: str
    version: int | None
    """The editor's version of the document; an edit made against it is refused by the
    editor if the user changed the document in between."""


class Documents(Protocol):
    def buffer(self, path: Path) -> Buffer | None:
        """The open document for `path`, or None when the editor does not have it open."""

    def takes_edits(self) -> bool:
        """Whether `replace` can change open documents in the editor. Known before the
        user is asked, so the question says where a change will land."""

    async def replace(
        self, path: Path, buffer: Buffer, start: int, end: int, new_text: str
    ) -> bool:
        """Replace buffer.text[start:end] in the editor. True when the editor applied it;
        False when this editor cannot take edits (see `takes_edits`).
        Raises ToolError when the editor refused the edit."""

    async def flush(self) -> None:
        """Make sure every file edited through the editor is on disk (before commands run)."""


class DiskOnly:
    """No editor: nothing is open, everything is read from and written to disk."""

    def buffer(self, path: Path) -> Buffer | None:
        return None

    def takes_edits(self) -> bool:
        return False

    async def replace(
        self, path: Path, buffer: Buffer, start: int, end: int, new_text: str
    ) -> bool:
        return False

    async def flush(self) -> None:
        return None
