"""The file walker where the workspace is no git repository: `.gitignore` files at every
depth (pathspec's gitignore rules, a deeper file deciding over a shallower one), the
folders a search never wants (VCS folders, `node_modules`), the hidden folders
(candidates.py), and symlinked folders never entered.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from . import globs as glob_rules

SKIPPED_FOLDERS = frozenset({".git", ".hg", ".svn", "CVS", "node_modules", "bower_components"})
"""Left out as VS Code's files.exclude and search.exclude leave them out by default."""


def walk(root: Path, hidden: list[str], globs: list[str] | None) -> Iterator[str]:
    """Relative paths of the files (and symlinks) under `root` a search may list."""
    import pathspec

    hidden_set = set(hidden)
    rules: list[tuple[str, Any]] = []

    def ignored(relative: str, folder: bool) -> bool:
        probe = relative + "/" if folder else relative
        for base, spec in reversed(rules):
            if base and not probe.startswith(base + "/"):
                continue
            verdict = spec.check_file(probe[len(base) + 1 :] if base else probe).include
            if verdict is not None:
                return bool(verdict)
        return False

    def visit(folder: Path, relative: str) -> Iterator[str]:
        pushed = False
        ignore_file = folder / ".gitignore"
        try:
            lines = ignore_file.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            lines = []
        if lines:
            rules.append((relative, pathspec.GitIgnoreSpec.from_lines(lines)))
            pushed = True
        try:
            with os.scandir(folder) as entries:
                listed = sorted(entries, key=lambda e: e.name)
        except OSError:
            listed = []
        for entry in listed:
            name = f"{relative}/{entry.name}" if relative else entry.name
            if name in hidden_set:
                continue
            try:
                is_folder = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_folder:
                if entry.name in SKIPPED_FOLDERS or ignored(name, True):
                    continue
                yield from visit(Path(entry.path), name)
            elif not ignored(name, False) and (globs is None or glob_rules.matches(name, globs)):
                yield name
        if pushed:
            rules.pop()

    yield from visit(root, "")
