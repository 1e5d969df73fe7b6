"""safe_path: the one gate every tool path goes through.

A path is taken relative to the workspace root, fully resolved (symlinks included), and
refused unless the result is the root or lies under it. Nothing outside the workspace is
ever read or written.
"""

from __future__ import annotations

import os
from pathlib import Path

from .base import ToolError


def safe_path(root: Path, raw: str) -> Path:
    """Resolve `raw` inside `root` or raise ToolError saying why it is refused."""
    if not isinstance(raw, str) or not raw.strip():
        raise ToolError("path must be a non-empty string")
    if "\x00" in raw:
        raise ToolError("path must not contain NUL characters")
    root = root.resolve()
    candidate = Path(os.path.expanduser(raw)) if raw.startswith("~") else Path(raw)
    if not candidate.is_absolute():
        candidate = root / candidate
    resolved = candidate.resolve()
    if resolved != root and root not in resolved.parents:
        raise ToolError(
            f"path {raw!r} is outside the workspace ({root}); "
            "only files inside the workspace can be read or written"
        )
    return resolved


def display_path(root: Path, path: Path) -> str:
    """The path as the model and the user should see it: relative to the workspace."""
    try:
        relative = path.relative_to(root.resolve())
    except ValueError:
        return str(path)
    return relative.as_posix() or "."
