"""A file's text as the agent sees it now: the editor's buffer when it has one (unsaved
changes included), else the disk. Only files inside the workspace are read; a result in
a file outside it (a library's definition) is shown without its line."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ..shared.documents import Documents
from ..shared.errors import ToolError
from ..tools.paths import display_path, safe_path
from ..tools.textfile import NotText, decode
from .positions import lines_of

MAX_READ_BYTES = 20 * 1024 * 1024
"""A file larger than this is not read for its lines (its places are still listed)."""


async def current_text(root: Path, documents: Documents, path: Path, limit: int) -> str:
    """The text of a workspace file the model named; ToolError saying why it cannot be read."""
    shown = display_path(root, path)
    buffer = await documents.buffer(path)
    if buffer is not None:
        return buffer.text
    return await asyncio.to_thread(_disk_text, path, shown, limit)


def _disk_text(path: Path, shown: str, limit: int) -> str:
    if not path.is_file():
        raise ToolError(
            f"{shown} does not exist" if not path.exists() else f"{shown} is not a file"
        )
    size = path.stat().st_size
    if size > limit:
        raise ToolError(f"{shown} is too large to read ({size} bytes; the limit is {limit})")
    try:
        return decode(path.read_bytes())[0]
    except NotText:
        raise ToolError(f"{shown} is a binary file; code_intel reads source files") from None


class LineTexts:
    """The lines of the files a result names, read once each."""

    def __init__(self, root: Path, documents: Documents) -> None:
        self._root = root
        self._documents = documents
        self._lines: dict[Path, list[str] | None] = {}
        self._inside: dict[Path, Path | None] = {}

    def know(self, path: Path, lines: list[str]) -> None:
        """A file's lines read already (the one asked about): not read again."""
        self._lines[path] = lines

    def inside(self, path: Path) -> Path | None:
        """The path checked to be inside the workspace (None: outside, or not usable);
        checked once per file, not per place."""
        if path not in self._inside:
            try:
                self._inside[path] = safe_path(self._root, str(path))
            except ToolError:
                self._inside[path] = None
        return self._inside[path]

    async def line(self, path: Path, line: int) -> str | None:
        """Line `line` (0-based) of a workspace file; None outside it or past its end."""
        inside = self.inside(path)
        if inside is None:
            return None
        if inside not in self._lines:
            try:
                text = await current_text(self._root, self._documents, inside, MAX_READ_BYTES)
                self._lines[inside] = lines_of(text)
            except (ToolError, OSError):
                self._lines[inside] = None
        lines = self._lines[inside]
        return lines[line] if lines is not None and 0 <= line < len(lines) else None
