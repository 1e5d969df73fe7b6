"""Where a path argument of a destructive command really points: `/usr/..` is `/`, `*`
after `cd /` is everything in `/`, `"$BUILD"/` is `/` when BUILD is empty.

Paths are normalised the way the shell would see them at that point of the command
(after `cd`, with `~` and `$HOME` expanded), so the guard can ask before a command
deletes or rewrites `/`, the user's home folder or a top-level system folder, however the
path is spelled.
"""

from __future__ import annotations

import posixpath

from .shell_syntax import GLOB, OPAQUE, UNSET, Scope, Word, expand_braces


def sweeping_target(target: Word, scope: Scope) -> str | None:
    """What `target` would hit that is too wide to touch without asking (a phrase such as
    "/ (`/usr/..`)"), or None."""
    for value in expand_braces(target.value):
        if UNSET in value:
            hit = _classify(value.replace(UNSET, ""), scope, wide=False)
            if hit:
                return f"{hit} when a variable in `{target.source}` is empty or unset"
            continue
        hit = _classify(value, scope, wide=True)
        if hit:
            spelled = "" if target.source in ("/", "~") else f" (`{target.source}`)"
            return hit + spelled
    return None


def folder_of(target: Word, scope: Scope) -> str | None:
    """The normalised folder a `cd` to `target` leads to, or None when it cannot be known."""
    if not target.known:
        return None
    path = _absolute(target.value, scope)
    return posixpath.normpath(path) if path else None


def _classify(value: str, scope: Scope, wide: bool) -> str | None:
    if not value or value.startswith(OPAQUE):
        return None  # empty argument, or one whose start is computed: cannot be placed
    path = _absolute(value, scope)
    if path is None:  # relative to a folder a `cd` made unknowable
        first = value.split("/")[0]
        if posixpath.normpath(value) == "." or GLOB.search(first):
            return "everything in a folder this command changed to, which cannot be known"
        return None
    parts = posixpath.normpath(path).lstrip("/").split("/")
    for index, part in enumerate(parts):
        if OPAQUE in part:
            return None
        if GLOB.search(part):
            folder = _describe("/" + "/".join(parts[:index]), scope.home, wide)
            return f"everything in {folder}" if folder else None
    return _describe("/" + "/".join(parts), scope.home, wide)


def _absolute(value: str, scope: Scope) -> str | None:
    if value.startswith("/"):
        return value
    return None if scope.cwd is None else posixpath.join(scope.cwd, value)


def _describe(path: str, home: str, wide: bool) -> str | None:
    path = posixpath.normpath(path)
    if path in ("/", "//"):
        return "/"
    if path == home:
        return f"your home folder {home}"
    if not wide:
        return None
    if home.startswith(path + "/"):
        return f"{path}, which holds your home folder"
    if path.count("/") == 1:
        return f"the top-level folder {path}"
    return None
