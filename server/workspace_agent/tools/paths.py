"""safe_path: the one gate every tool path goes through.

A path is taken relative to the workspace root, fully resolved (symlinks included), and
refused unless the result is the root or lies under it. Nothing outside the workspace is
ever read or written.

A file whose name is not UTF-8 is shown to the model in its readable form (`caf\\xe9.txt`,
names.py), and that form names it back: the model can read and edit it like any other.
"""

from __future__ import annotations

import os
from pathlib import Path

from .. import names
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
    named = names.from_readable(raw)
    if named is not None and not os.path.lexists(candidate):  # the readable form of a name
        candidate = Path(os.path.expanduser(named)) if named.startswith("~") else Path(named)
        candidate = candidate if candidate.is_absolute() else root / candidate
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


def relative_path(root: Path, path: Path) -> str:
    """The path relative to the workspace, with "/" (its name as Python holds it)."""
    try:
        relative = path.relative_to(root.resolve())
    except ValueError:
        return str(path)
    return relative.as_posix() or "."


def display_path(root: Path, path: Path) -> str:
    """The path as the model and the user should see it: relative to the workspace, a
    name that is not UTF-8 in its readable form."""
    return names.readable(relative_path(root, path))
