"""Nested git repositories (a folder with its own `.git`: submodules, vendored or cloned
projects, a folder of several repositories opened as one workspace).

Git does not look into a nested repository from the outside, and renaming its `.git`
(what some tools do) can break it. Instead each nested repository is scanned as a work
tree of its own, with its own private index in the store (same objects, same excludes),
so what commands change inside it is recorded like everything else.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from .gitcmd import Git
from .objects import Entry
from .seed import seed_index, user_repository

LIST_ALL_ABOVE = 500
"""More paths than this are looked up in one listing of the whole index."""


class NestedRepo:
    def __init__(self, store: Git, root: Path, prefix: str, seed: bool = True) -> None:
        self.prefix = prefix
        """The folder relative to the workspace root, with a trailing "/"."""
        name = hashlib.sha1(prefix.encode("utf-8", "surrogateescape")).hexdigest()[:16]
        self.ref = f"refs/workspace-agent/nested/{name}"
        folder = store.git_dir / "nested"
        folder.mkdir(exist_ok=True)
        self.git = Git(store.git_dir, root / prefix.rstrip("/"), folder / f"{name}.index")
        self.git.alternates = store.alternates  # the same list: seeding here adds to it
        if seed and not self.git.index.exists():
            user = user_repository(self.git.work_tree)
            seeded = seed_index(self.git, user, self.git.work_tree) if user else None
            if seeded is not None:
                seeded.drop_ignored()
                if user and user.objects not in store.alternates:
                    store.alternates.append(user.objects)

    def changes(self) -> tuple[dict[str, Entry | None], list[str]]:
        """Paths (relative to the workspace) that differ from this index, with their index
        entries (None: untracked), and the repositories nested in this one."""
        out = self.git.run("ls-files", "-z", "-t", "-m", "-d", "-o", "--exclude-standard")
        tracked: set[str] = set()
        untracked: list[str] = []
        deeper: list[str] = []
        for item in out.split(b"\0"):
            if len(item) < 3:
                continue
            tag, path = item[:1], os.fsdecode(item[2:])
            if tag in (b"C", b"R"):
                tracked.add(path)
            elif tag == b"?":
                (deeper if path.endswith("/") else untracked).append(path)
        entries = self._entries(tracked)
        found = {self.prefix + p: entries.get(p) for p in tracked}
        found.update({self.prefix + p: None for p in untracked})
        return found, [self.prefix + d for d in deeper]

    def flush(self, pending: dict[str, Entry | None]) -> None:
        """Write entries (paths relative to the workspace) into this index."""
        lines = [f"0 {'0' * 40}\t{p[len(self.prefix) :]}" for p, e in pending.items() if e is None]
        lines += [
            f"{e.mode} {e.sha}\t{p[len(self.prefix) :]}"
            for p, e in pending.items()
            if e is not None
        ]
        payload = "\0".join(lines) + "\0"
        self.git.run(
            "update-index", "-z", "--index-info", stdin=payload.encode("utf-8", "surrogateescape")
        )

    def tree(self) -> str:
        """This index as a tree (a ref to it keeps its objects through packing)."""
        self.git.run("update-index", "-q", "--refresh", "--ignore-missing")
        missing_ok = ("--missing-ok",) if self.git.alternates else ()
        return self.git.run("write-tree", *missing_ok).decode().strip()

    def _entries(self, paths: set[str]) -> dict[str, Entry]:
        if not paths:
            return {}
        args = [] if len(paths) > LIST_ALL_ABOVE else ["--", *(f":(literal){p}" for p in paths)]
        out = self.git.run("ls-files", "-z", "-s", *args)
        entries = {}
        for item in out.split(b"\0"):
            meta, _, name = item.partition(b"\t")
            if meta:
                mode, sha, _stage = meta.decode().split()
                entries[os.fsdecode(name)] = Entry(mode, sha)
        return {p: e for p, e in entries.items() if p in paths}
