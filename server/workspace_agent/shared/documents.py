"""Files as the editor sees them: open buffers (unsaved changes included) and edits that
go through the editor, so the user sees them at once and can undo them.

The core only knows this interface. Headless runs use `DiskOnly` (no editor, every read
and write is on disk); the language server plugs in an implementation backed by the
documents the client synced and `workspace/applyEdit`, the ACP agent one that asks the
client (`fs/read_text_file`, `fs/write_text_file`). Reads may have to ask the editor, so
they are awaited.
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


@dataclass(frozen=True)
class UserEdit:
    """The user's latest edit of a file in the editor: its text then, and whether it was
    a save (the text went to disk) or only a change of the buffer."""

    text: str
    saved: bool


class Documents(Protocol):
    async def buffer(self, path: Path) -> Buffer | None:
        """The editor's text for `path`, or None when the editor does not have it (the
        caller reads the disk)."""

    def takes_edits(self) -> bool:
        """Whether `replace` can change open documents in the editor. Known before the
        user is asked, so the question says where a change will land."""

    def is_open(self, path: Path) -> bool:
        """Whether the editor holds `path` with text that may differ from the disk until
        it is saved (no round trip to ask). Checkpoints read those files through `buffer`,
        every other file from the disk."""

    async def replace(
        self, path: Path, buffer: Buffer, start: int, end: int, new_text: str
    ) -> bool:
        """Replace buffer.text[start:end] in the editor. True when the editor applied it;
        False when this editor cannot take edits (see `takes_edits`).
        Raises ToolError when the editor refused the edit."""

    async def create(self, path: Path, text: str) -> bool:
        """Create the new file `path` with `text` through the editor. True when the editor
        did; False when this editor does not create files (the caller writes the disk)."""

    async def flush(self) -> None:
        """Make sure every file edited through the editor is on disk (before commands run)."""

    def user_mark(self) -> int:
        """Where the user's own edits in the editor stand now (see `user_edits_since`)."""

    def user_edits_since(self, mark: int) -> dict[Path, UserEdit]:
        """The files the user edited or saved in the editor after `mark` (not the agent's
        edits and saves), with the latest: a change a command's scan finds there can be
        the user's, not the command's."""


class DiskOnly:
    """No editor: nothing is open, everything is read from and written to disk."""

    async def buffer(self, path: Path) -> Buffer | None:
        return None

    async def create(self, path: Path, text: str) -> bool:
        return False

    def takes_edits(self) -> bool:
        return False

    def is_open(self, path: Path) -> bool:
        return False

    async def replace(
        self, path: Path, buffer: Buffer, start: int, end: int, new_text: str
    ) -> bool:
        return False

    async def flush(self) -> None:
        return None

    def user_mark(self) -> int:
        return 0

    def user_edits_since(self, mark: int) -> dict[Path, UserEdit]:
        return {}
