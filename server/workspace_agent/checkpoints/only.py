"""Undo only this step: take out one plan item occurrence's changes and keep what came
after it, like `git revert` of one commit.

Each file the step changed is merged three ways (`git merge-file`): base = the file after
the step, ours = the file now (an open document's buffer when it differs), theirs = the
file before the step. Where no later change touched the same lines the merge is clean and
its result is written; a file nobody changed since is simply put back. Where later changes
overlap the step's (or a side is binary, or a later step created or deleted the file
again), the file is a conflict: then nothing at all is written, dry run or not, and the
result lists the conflicts. A real run records the workspace first, like every revert, so
it can be undone.
"""

from __future__ import annotations

import subprocess
import tempfile
import uuid
from pathlib import Path

from ..shared.host_programs import host_env
from .applying import (
    Plan,
    RevertResult,
    Workspace,
    apply_plans,
    check_plans,
    observe_all,
    record_backup,
)
from .gitcmd import git_program
from .history import ItemHistory
from .live_content import Observed, editor_buffer
from .objects import SYMLINK, Entry, blob_id, is_binary
from .timeline import Record, Timeline

OVERLAP = "changed after this step in the same lines"


async def revert_only(
    ws: Workspace, timeline: Timeline, item: ItemHistory, label: str, dry_run: bool
) -> RevertResult:
    files = item.changed_files()
    result = RevertResult(dry_run=dry_run, only=True, label=label)
    buffers = {f.path: await editor_buffer(ws.documents, ws.root / f.path) for f in files}
    observed: dict[str, Observed] = await ws.blocking(observe_all, ws, buffers, not dry_run)
    plans: list[Plan] = []
    merges: dict[str, bytes] = {}
    for file in sorted(files, key=lambda f: f.path):
        seen = observed[file.path]
        if seen.skipped is not None:
            result.conflicts.append((file.path, seen.skipped))
        elif seen.entry == file.before:
            continue  # already as before the step
        elif seen.entry == file.after:  # nothing changed it since: put it back
            plan = Plan(file.path, seen.entry, file.before, buffers.get(file.path), seen.perm)
            plan.target_perm, plan.folder = file.before_perm, seen.folder
            plans.append(plan)
        else:
            merged = await ws.blocking(_merge, ws, file.before, file.after, seen.entry)
            if isinstance(merged, str):
                result.conflicts.append((file.path, merged))
                continue
            assert seen.entry is not None
            merges[file.path] = merged
            target = Entry(seen.entry.mode, blob_id(merged))  # stored once it is written
            plans.append(
                Plan(file.path, seen.entry, target, buffers.get(file.path), seen.perm, seen.perm)
            )
    if result.conflicts:
        return result  # nothing is written when anything conflicts
    plans = await ws.blocking(check_plans, ws.root, plans, result)
    if dry_run:
        for plan in plans:
            (result.deleted if plan.target is None else result.restored).append(plan.path)
        return result
    await ws.blocking(record_backup, ws, timeline)
    for merged in merges.values():  # into the store, as a revert's targets are
        await ws.blocking(ws.store.objects.write_blob, merged)
    record = Record("revert", undo_id=uuid.uuid4().hex[:12], target=label, key=item.key)
    result.undo_id = record.undo_id
    return await apply_plans(ws, plans, result, record, timeline)


def _merge(
    ws: Workspace, before: Entry | None, after: Entry | None, now: Entry | None
) -> bytes | str:
    """The file now without the step's change to it, or why that cannot be done."""
    if before is None:
        return "created by this step and changed after it" if now else "deleted after this step"
    if after is None:
        return "deleted by this step and created again after it"
    if now is None:
        return "deleted after this step"
    if SYMLINK in (before.mode, after.mode, now.mode):
        return "a symbolic link changed after this step"
    read = ws.store.objects.read_blob
    sides = read(now.sha), read(after.sha), read(before.sha)
    if any(is_binary(side) for side in sides):
        return "a binary file changed after this step"
    with tempfile.TemporaryDirectory(prefix="workspace-agent-merge-") as folder:
        paths = []
        for name, data in zip(("ours", "base", "theirs"), sides, strict=True):
            path = Path(folder) / name
            path.write_bytes(data)
            paths.append(str(path))
        done = subprocess.run(
            [git_program(), "merge-file", "-p", "--quiet", *paths],
            capture_output=True,
            check=False,
            cwd=folder,
            env=host_env(),
        )
    if done.returncode == 0:
        return done.stdout
    if done.returncode < 128:  # the number of conflicting hunks
        return OVERLAP
    return f"could not be merged: {done.stderr.decode(errors='replace').strip()}"
