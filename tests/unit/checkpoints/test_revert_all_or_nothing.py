"""A revert that fails half-way (what no check before it foresees: a full disk) takes back
what it had done and says so; nothing is left half-reverted, and nothing is recorded as
changed."""

from __future__ import annotations

import asyncio
import errno
from pathlib import Path
from typing import Any

import pytest

from workspace_agent.checkpoints import applying
from workspace_agent.checkpoints.revert import Workspace, revert_to
from workspace_agent.checkpoints.store import CheckpointStore
from workspace_agent.checkpoints.timeline import Record
from workspace_agent.shared.documents import DiskOnly
from workspace_agent.shared.errors import CheckpointError

MAX = 1_000_000


async def blocking(func: Any, *args: Any) -> Any:
    return func(*args)


def test_a_revert_that_fails_half_way_puts_back_what_it_did(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "pkg").write_text("a module\n")
    store = CheckpointStore(tmp_path)
    timeline = store.timeline("s")
    timeline.append(Record("run", tree=store.write_tree(), changes=store.scan(MAX).changes))
    anchor = timeline.append(Record("item", todo_id="1"))
    (tmp_path / "a.txt").write_text("A\n")
    (tmp_path / "new.txt").write_text("new\n")
    (tmp_path / "pkg").unlink()  # the module becomes a package
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("x = 1\n")
    timeline.append(Record("tool", todo_id="1", tool="bash", changes=store.scan(MAX).changes))
    stepped = _tree(tmp_path)

    write = applying._write_disk

    def full_disk(ws: Workspace, path: str, *args: Any) -> list[Path]:
        if path == "pkg":  # the module's content coming back
            raise OSError(errno.ENOSPC, "No space left on device")
        return write(ws, path, *args)

    monkeypatch.setattr(applying, "_write_disk", full_disk)
    workspace = Workspace(store, DiskOnly(), MAX, blocking)
    with pytest.raises(CheckpointError) as refused:
        asyncio.run(revert_to(workspace, timeline, anchor, "before 1", False))
    assert str(refused.value) == (
        "nothing was reverted: pkg could not be written (No space left on device); "
        "the 4 changes made before it were put back"
    )
    assert _tree(tmp_path) == stepped  # the deletions and the first write taken back
    assert [r.kind for r in timeline.records][-1] == "backup"  # no revert recorded

    monkeypatch.setattr(applying, "_write_disk", write)  # the disk has room again
    done = asyncio.run(revert_to(workspace, timeline, anchor, "before 1", False))
    assert (done.restored, done.deleted) == (["a.txt", "pkg"], ["new.txt", "pkg/__init__.py"])
    assert (tmp_path / "pkg").read_text() == "a module\n"
    store.close()


def _tree(root: Path) -> dict[str, str | None]:
    found: dict[str, str | None] = {}
    for path in sorted(root.rglob("*")):
        if ".workspace-agent" in path.parts:
            continue
        found[path.relative_to(root).as_posix()] = None if path.is_dir() else path.read_text()
    return found
