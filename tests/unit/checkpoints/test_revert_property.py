"""A step and its revert over random small trees, through the real store (real git, in this
process): names with spaces, newlines, bytes that are not UTF-8, both forms of a
normalisation pair and leading dashes; files of many modes, folders, links (dangling, a
loop), a FIFO, in a git work tree or not; and a step of shell-like operations (edit, delete, create, chmod, a file
turned into a folder and back, a rename). After the revert the tree is as before the
step, entry for entry and mode for mode (a folder counts through the files it holds, as
for git); the undo brings the step's tree back; the user's
`.git` is untouched; nothing is skipped and nothing fails."""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workspace_agent.checkpoints.revert import Workspace, revert_to, undo
from workspace_agent.checkpoints.store import FOLDER, CheckpointStore
from workspace_agent.checkpoints.timeline import Record
from workspace_agent.shared.documents import DiskOnly

from tests.support.git import git

MAX = 1_000_000
NAMES = [
    b"plain.txt",
    b"with space",
    b"new\nline",
    b"caf\xe9.txt",  # Latin-1
    b"\xff\xfe",
    "é".encode(),  # NFC
    "é".encode(),  # NFD: another name
    b"-n",
    b"--rf",
    b"back\\slash",
]
MODES = [0o644, 0o444, 0o600, 0o640, 0o755, 0o700]
CONTENTS = [b"", b"one\n", b"two\nlines\n", b"\x00binary\xff"]

name = st.sampled_from(NAMES).map(os.fsdecode)
content = st.sampled_from(CONTENTS)
mode = st.sampled_from(MODES)


@dataclass(frozen=True)
class Op:
    kind: str
    path: int
    """An index into the tree's entries (modulo their number)."""
    name: str
    data: bytes
    mode: int


ops = st.lists(
    st.builds(
        Op,
        st.sampled_from(["edit", "delete", "create", "chmod", "to_folder", "to_file", "rename"]),
        st.integers(0, 50),
        name,
        content,
        mode,
    ),
    min_size=1,
    max_size=4,
)


@st.composite
def trees(draw: Any) -> dict[str, tuple[str, Any, int]]:
    """{relative path: (kind, content or link target, mode)}: every folder holds a file."""
    tree: dict[str, tuple[str, Any, int]] = {}
    for top in draw(st.lists(name, min_size=1, max_size=5, unique=True)):
        kind = draw(st.sampled_from(["file", "file", "folder", "link"]))
        if kind == "folder":
            for child in draw(st.lists(name, min_size=1, max_size=3, unique=True)):
                tree[f"{top}/{child}"] = ("file", draw(content), draw(mode))
        elif kind == "link":
            target = draw(st.sampled_from(["nowhere", top, "../outside"]))
            tree[top] = ("link", target, 0)
        else:
            tree[top] = ("file", draw(content), draw(mode))
    return tree


def build(root: Path, tree: dict[str, tuple[str, Any, int]]) -> None:
    for path, (kind, value, bits) in tree.items():
        full = root / path
        full.parent.mkdir(parents=True, exist_ok=True)
        if kind == "link":
            os.symlink(value, full)
        else:
            full.write_bytes(value)
            os.chmod(full, bits)
    os.mkfifo(root / "fifo")  # never read: a scan must not hang on it


def step(root: Path, todo: list[Op]) -> None:
    """What a bash command of these operations would do."""
    for op in todo:
        entries = sorted(p for p in _files(root))
        target = root / entries[op.path % len(entries)] if entries else None
        if op.kind == "create" or target is None:
            new = root / op.name
            if not os.path.lexists(new):
                new.write_bytes(op.data)
                os.chmod(new, op.mode)
        elif op.kind == "edit" and not target.is_symlink():
            os.chmod(target, 0o644)
            target.write_bytes(op.data + b"edited\n")
            os.chmod(target, op.mode)
        elif op.kind == "delete":
            target.unlink()
        elif op.kind == "chmod" and not target.is_symlink():
            os.chmod(target, op.mode)
        elif op.kind == "to_folder":  # rm f && mkdir f && echo > f/NAME
            target.unlink()
            target.mkdir()
            (target / op.name).write_bytes(op.data)
        elif op.kind == "to_file" and target.parent != root:  # rm -r d && echo > d
            folder = target.parent
            shutil.rmtree(folder)
            folder.write_bytes(op.data)
        elif op.kind == "rename":
            new = target.parent / op.name
            if not os.path.lexists(new):
                os.rename(target, new)


def _files(root: Path) -> list[str]:
    found = []
    for top, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in (".git", ".workspace-agent")]
        for entry in files:
            full = Path(top) / entry
            if not stat.S_ISFIFO(os.lstat(full).st_mode):
                found.append(full.relative_to(root).as_posix())
        found += [
            (Path(top) / d).relative_to(root).as_posix() + "/"
            for d in dirs
            if os.path.islink(Path(top) / d)
        ]
    return [f.rstrip("/") for f in found]


def entries(root: Path) -> dict[str, tuple[str, Any, int]]:
    """Every entry under root but the user's .git and the store: kind, content, mode."""
    found: dict[str, tuple[str, Any, int]] = {}
    for top, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in (".git", ".workspace-agent")]
        for entry in dirs + files:
            full = Path(top) / entry
            st_ = os.lstat(full)
            rel = full.relative_to(root).as_posix()
            if stat.S_ISLNK(st_.st_mode):
                found[rel] = ("link", os.readlink(full), 0)
            elif stat.S_ISDIR(st_.st_mode):
                if any(files for _top, _dirs, files in os.walk(full)):  # as for git: through
                    found[rel] = ("folder", None, 0)  # the files it holds
            elif stat.S_ISREG(st_.st_mode):
                found[rel] = ("file", full.read_bytes(), stat.S_IMODE(st_.st_mode))
            else:
                found[rel] = ("other", None, stat.S_IMODE(st_.st_mode))
    return found


def digest(folder: Path) -> str:
    h = hashlib.sha256()
    for top, dirs, files in sorted(os.walk(folder)):
        dirs.sort()
        for entry in sorted(files):
            full = Path(top) / entry
            h.update(full.relative_to(folder).as_posix().encode() + full.read_bytes())
    return h.hexdigest()


async def blocking(func: Any, *args: Any) -> Any:
    return func(*args)


SCRATCH = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
"""Where the trees are made: in memory where there is such a folder (a slow disk takes
longer to delete a tree than the store takes to revert it)."""


@settings(
    max_examples=int(os.environ.get("WORKSPACE_AGENT_PROPERTY_EXAMPLES", "150")),
    suppress_health_check=[HealthCheck.too_slow],
)
@given(tree=trees(), todo=ops, in_git=st.booleans())
def test_a_revert_puts_back_everything_the_step_touched(
    tree: dict[str, tuple[str, Any, int]], todo: list[Op], in_git: bool
) -> None:
    root = Path(tempfile.mkdtemp(prefix="wa-revert-", dir=SCRATCH))
    try:
        _step_and_revert(root, tree, todo, in_git)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _step_and_revert(
    root: Path, tree: dict[str, tuple[str, Any, int]], todo: list[Op], in_git: bool
) -> None:
    """`in_git`: the tree is a git work tree whose index the store starts from (seed.py)."""
    build(root, tree)
    if in_git:
        git(root, "init", "-q", "--template=")
        git(root, "add", "-A")
    user_git = digest(root / ".git") if in_git else None
    store = CheckpointStore(root)
    try:
        timeline = store.timeline("s")
        scan = store.scan(MAX)
        timeline.append(Record("run", tree=store.write_tree(), changes=scan.changes))
        anchor = timeline.append(Record("item", todo_id="1", changes=store.scan(MAX).changes))
        before = entries(root)
        step(root, todo)
        after = entries(root)
        scan = store.scan(MAX)
        timeline.append(Record("tool", todo_id="1", tool="bash", changes=scan.changes))
        assert not scan.skipped
        workspace = Workspace(store, DiskOnly(), MAX, blocking)
        if not scan.changes:
            assert before == after
            return
        reverted = asyncio.run(revert_to(workspace, timeline, anchor, "before 1", False))
        assert reverted.skipped == []
        assert entries(root) == before
        assert reverted.undo_id is not None
        undone = asyncio.run(undo(workspace, timeline, reverted.undo_id, False))
        assert undone.skipped == []
        assert entries(root) == after
    finally:
        store.close()
    if user_git is not None:
        assert digest(root / ".git") == user_git
    assert not (root / FOLDER / "repo" / "index.lock").exists()
