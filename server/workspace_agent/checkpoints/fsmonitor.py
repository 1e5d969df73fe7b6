"""git's `core.fsmonitor` for the store's private index, answered from a change feed.

git asks the hook (protocol version 2) "what changed since TOKEN?" and gets back a new
token and the changed paths; only those are `lstat`-ed, and the untracked cache re-reads
only their folders. A hook is a process git starts, so the answers are prepared before
each scan: one small file per token this process handed out, named by the token, with
the paths changed since it. A token the hook has no file for (another process's, or one
from before an overflow) gets "/": git then looks at everything, as without a monitor.

An answer file stays true after it is written (a token stands for a point in time), so a
git command that reads the index between two scans may use it; the next scan's answer
starts from the token that command left.
"""

from __future__ import annotations

import os
import shlex
import shutil
import time
import uuid
from pathlib import Path

from .changefeed import ChangeFeed

HOOK = """#!/bin/sh
# git's fsmonitor hook (version 2) of a Workspace Agent checkpoint store: $1 = 2, $2 = the
# token in the index. The answer was written by the process running git (fsmonitor.py).
d="$WA_FSMONITOR_ANSWERS"
case "$2" in
  *[!A-Za-z0-9-]*) ;;
  wa-*) [ -n "$d" ] && cat "$d/$2" 2>/dev/null && exit 0 ;;
esac
if [ -n "$d" ] && cat "$d/full" 2>/dev/null; then exit 0; fi
printf 'none\\0/\\0'
"""
STALE_SECONDS = 86_400
KEEP = 8
"""Tokens answered at once: the index holds the newest or one a little older."""


class Monitor:
    """The hook, the answers of this process, and the feed behind them."""

    def __init__(self, git_dir: Path, feed: ChangeFeed) -> None:
        self.feed = feed
        self.hook = git_dir / "wa-fsmonitor"
        if not self.hook.is_file() or self.hook.read_text() != HOOK:
            tmp = self.hook.with_suffix(f".{os.getpid()}")
            tmp.write_text(HOOK)
            tmp.chmod(0o755)
            os.replace(tmp, self.hook)
        self._instance = uuid.uuid4().hex[:12]
        _drop_stale(git_dir / "fsmonitor")
        self.answers = git_dir / "fsmonitor" / self._instance
        self.answers.mkdir(parents=True, exist_ok=True)
        self._tokens: dict[str, int] = {}
        """Tokens handed out (in order) and the feed position each stands for."""
        self.full_scans = 0

    def env(self) -> dict[str, str]:
        """What the store's git commands run with while the feed is usable."""
        return {
            "GIT_CONFIG_COUNT": "2",
            "GIT_CONFIG_KEY_0": "core.fsmonitor",
            # git runs the hook through the shell when the path needs quoting (a space)
            "GIT_CONFIG_VALUE_0": shlex.quote(str(self.hook)),
            "GIT_CONFIG_KEY_1": "core.fsmonitorHookVersion",
            "GIT_CONFIG_VALUE_1": "2",
            "WA_FSMONITOR_ANSWERS": str(self.answers),
        }

    def prepare(self, full: bool = False) -> int:
        """Write the answers for the next git commands; returns the feed position they
        stand for. `full`: every answer is "everything" (a verification scan)."""
        position = self.feed.position()
        token = f"wa-{self._instance}-{position}"
        self.answers.mkdir(parents=True, exist_ok=True)  # another process's cleanup
        header = token.encode() + b"\0"
        for old, since in self._tokens.items():
            changed = None if full else self.feed.since(since)
            body = b"/\0" if changed is None else _paths(changed)
            _write(self.answers / old, header + body)
        _write(self.answers / "full", header + b"/\0")
        _write(self.answers / token, header)  # true when written; the next prepare adds
        self._tokens[token] = position
        for old in list(self._tokens)[:-KEEP]:
            del self._tokens[old]
            (self.answers / old).unlink(missing_ok=True)
        oldest = next(iter(self._tokens.values()))
        self.feed.forget_before(oldest)
        return position

    def close(self) -> None:
        shutil.rmtree(self.answers, ignore_errors=True)


def _paths(paths: list[str]) -> bytes:
    """The answer's body: NUL-separated paths; git marks each and, for "dir/", everything
    under it (the feeds give a folder's own event that way)."""
    out = bytearray()
    for path in paths:
        out += os.fsencode(path) + b"\0"
    return bytes(out)


def _drop_stale(folder: Path) -> None:
    """Answers left by processes that ended without closing (a crash), a day on."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.stat().st_mtime < time.time() - STALE_SECONDS:
                shutil.rmtree(entry.path, ignore_errors=True)
        except OSError:
            continue


def _write(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
