"""Programs the agent starts on the host, looked up where no sandboxed command can have put
them.

A sandboxed command may write the workspace (and its temp dir, and the real package caches
when the user allows them). If the agent then looked up `git`, `bwrap` or an MCP server's
`npx` on a `PATH` that holds a folder in there (an activated `.venv/bin`, direnv's
`PATH_add bin`, `node_modules/.bin`), a planted `bin/git` would run on the host, outside
the sandbox, with no one deciding to run it. So every host-side program is resolved on
`host_path()`: the `PATH` the agent started with, minus every folder inside a place
sandboxed commands may write (`protect`), and then started by its absolute path. The
programs those programs start in turn get the same `PATH` (`host_env`).

The places are registered as the agent learns them: a workspace root when a session, a
checkpoint store or an MCP configuration opens it; the sandbox's own folder (each
session's /tmp and TMPDIR inside) when it is made; a folder the user let one command
write, and the real package caches when the user allows them, when a command gets them.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path

_lock = threading.Lock()
_writable: set[Path] = set()
_path: tuple[str, str] | None = None
"""(our PATH, it without the writable places), computed once per PATH value."""
_found: dict[str, str | None] = {}


class ProgramNotFound(LookupError):
    """No such program outside the places sandboxed commands may write."""


def _real(path: str | os.PathLike[str]) -> Path:
    return Path(os.path.realpath(os.path.expanduser(os.fspath(path))))


def _within(root: Path, path: Path) -> bool:
    return path == root or root in path.parents


def protect(*folders: str | os.PathLike[str]) -> None:
    """Folders sandboxed commands may write: no host program is looked up inside them."""
    global _path
    added = {_real(folder) for folder in folders if folder}
    with _lock:
        if added <= _writable:
            return
        _writable.update(added)
        _path = None
        _found.clear()


def writable_places() -> tuple[Path, ...]:
    """What `protect` was told."""
    with _lock:
        return tuple(sorted(_writable))


def inside_writable(path: str | os.PathLike[str]) -> bool:
    """Is `path` in a place a sandboxed command may write?"""
    real = _real(path)
    return any(_within(place, real) for place in writable_places())


def _our_path() -> str:
    return os.environ.get("PATH", os.defpath)


def host_path() -> str:
    """Our PATH without the folders sandboxed commands may write."""
    global _path
    ours = _our_path()
    with _lock:
        if _path is not None and _path[0] == ours:
            return _path[1]
        _found.clear()
    places = writable_places()
    kept: list[str] = []
    for entry in ours.split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            continue  # "" and "." are the current folder: the workspace, often
        real = _real(entry)
        if any(_within(place, real) for place in places) or entry in kept:
            continue
        kept.append(entry)
    with _lock:
        _path = (ours, os.pathsep.join(kept))
        return _path[1]


def find(name: str) -> str | None:
    """The absolute path of program `name` on `host_path()`, or None. A name with a slash
    is a path the user wrote: taken as given (its own place is for the caller to judge)."""
    if os.sep in name:
        return name if os.path.isabs(name) else None
    path = host_path()
    with _lock:
        if name in _found:
            return _found[name]
    found = shutil.which(name, path=path)
    with _lock:
        _found[name] = found
    return found


def program(name: str) -> str:
    """Like `find`, but a missing program is a `ProgramNotFound` naming where it looked."""
    found = find(name)
    if found is None:
        raise ProgramNotFound(
            f"{name} was not found on PATH outside the folders sandboxed commands may write "
            f"(looked in: {host_path() or 'nothing'})"
        )
    return found


def planted(name: str) -> str | None:
    """Where a plain PATH lookup would find `name` inside a writable place, when
    `host_path()` has no such program: an executable that exists only in the workspace."""
    if os.sep in name or find(name) is not None:
        return None
    found = shutil.which(name, path=_our_path())
    return found if found is not None and inside_writable(found) else None


def host_env(env: Mapping[str, str] | None = None, **extra: str) -> dict[str, str]:
    """`env` (default: ours) with PATH set to `host_path()`, for a host program's children."""
    base = dict(os.environ if env is None else env)
    base["PATH"] = host_path()
    base.update(extra)
    return base


def forget(folders: Iterable[str | os.PathLike[str]] = ()) -> None:
    """Tests: drop registered folders (all when none named) and what was found."""
    global _path
    drop = {_real(folder) for folder in folders}
    with _lock:
        if drop:
            _writable.difference_update(drop)
        else:
            _writable.clear()
        _path = None
        _found.clear()
