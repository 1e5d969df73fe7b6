"""safe_path: the one gate every tool path goes through.

A path is taken relative to the workspace root, fully resolved (symlinks included), and
refused unless the result is the root or lies under it. Nothing outside the workspace is
ever read or written.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..shared.errors import ToolError


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
    try:
        resolved = candidate.resolve()
    except (OSError, RuntimeError) as exc:
        raise ToolError(f"path {raw!r} cannot be resolved: {exc}") from None
    if resolved != root and root not in resolved.parents:
        raise ToolError(
            f"path {raw!r} is outside the workspace ({root}); "
            "only files inside the workspace can be read or written"
        )
    if _unresolved_link(root, resolved):
        # resolve() gives up at a symlink loop and leaves the rest of the path as written,
        # so a link after the loop could still point anywhere.
        raise ToolError(f"path {raw!r} goes through a symlink loop and cannot be resolved")
    return resolved


def readable_path(root: Path, raw: str, read_roots: tuple[Path, ...] = ()) -> Path:
    """`safe_path`, or for reading only, a path inside one of `read_roots` (the folders of
    the user's skills, outside the workspace): resolved, links included, and refused
    unless the result stays inside that folder."""
    try:
        return safe_path(root, raw)
    except ToolError:
        if not read_roots or not isinstance(raw, str) or "\x00" in raw:
            raise
        candidate = Path(os.path.expanduser(raw))
        if not candidate.is_absolute():
            raise
        try:
            resolved = candidate.resolve()
        except (OSError, RuntimeError):
            raise ToolError(f"path {raw!r} cannot be resolved") from None
        for folder in read_roots:
            real = folder.resolve()
            if resolved == real or real in resolved.parents:
                return resolved
        raise


def _unresolved_link(root: Path, resolved: Path) -> bool:
    """True when a component under `root` is still a symlink (resolution stopped early)."""
    current = root
    for part in resolved.relative_to(root).parts:
        current = current / part
        if current.is_symlink():
            return True
        if not current.exists():
            return False
    return False


def display_path(root: Path, path: Path) -> str:
    """The path as the model and the user should see it: relative to the workspace."""
    try:
        relative = path.relative_to(root.resolve())
    except ValueError:
        return str(path)
    return relative.as_posix() or "."
