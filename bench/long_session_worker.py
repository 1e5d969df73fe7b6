"""Rows 25 and 26 in a fresh process, on a git checkout (row 24's tree): a session of many
workspace-changing commands, each followed by what the checkpoint observer does after a
`bash` call (a scan of what the file watcher saw change, as a run's store does, the
record in the session's journal, the files it changed, the workspaceAgent/changes
payload), and the user's own `git status` beside it.

Prints one JSON line: per-call seconds, the user's status seconds, the store's size."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from workspace_agent.checkpoints.history import StatsCache, changes_payload, record_files
from workspace_agent.checkpoints.inotify_feed import InotifyFeed
from workspace_agent.checkpoints.store import FOLDER, CheckpointStore
from workspace_agent.checkpoints.timeline import Record

MAX_FILE = 10 << 20
ITEM_EVERY = 50
"""Calls per plan item (a long session works through a plan of 20 items)."""
STATUS_EVERY = 10


def user_status(root: Path) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    started = time.perf_counter()
    subprocess.run(
        ["git", "status", "--porcelain"], cwd=root, env=env, check=True, capture_output=True
    )
    return time.perf_counter() - started


def main() -> None:
    root, calls = Path(sys.argv[1]), int(sys.argv[2])
    shutil.rmtree(root / FOLDER.parts[0], ignore_errors=True)
    store = CheckpointStore(root)
    store.refresh_excludes()
    store.watch(InotifyFeed(root))  # as a run's store does (setting checkpoints.watchFiles)
    timeline = store.timeline("long-session")
    stats = StatsCache(store.objects.read_blob)
    timeline.append(Record("run", tree=store.write_tree(), changes=store.scan(MAX_FILE).changes))
    per_call: list[float] = []
    status: list[float] = []
    for n in range(calls):
        item = str(n // ITEM_EVERY + 1)
        plan = [(str(k + 1), f"Step {k + 1}") for k in range(calls // ITEM_EVERY + 1)]
        target = root / "src" / f"pkg{n % 20:04d}" / "mod00.py"
        with open(target, "a") as module:  # what the command did
            module.write(f"extra_{n} = {n}\n")
        started = time.perf_counter()
        if n % ITEM_EVERY == 0:  # a new plan item's first call: the checkpoint before it
            scan = store.scan(MAX_FILE)
            timeline.append(Record("item", todo_id=item, text=f"Step {item}"))
        scan = store.scan(MAX_FILE)
        record = Record("tool", todo_id=item, tool="bash", changes=scan.changes)
        timeline.append(record)
        record_files(record, stats)
        changes_payload(timeline, stats, plan)
        per_call.append(time.perf_counter() - started)
        if n % STATUS_EVERY == 0:
            status.append(user_status(root))
    monitor = store._monitor
    store_full_scans = monitor.full_scans if monitor is not None else -1
    store.finish_run("long-session")
    store.leave()
    size = store.size()
    store.close()
    shutil.rmtree(root / FOLDER.parts[0], ignore_errors=True)
    print(
        json.dumps(
            {
                "per_call": per_call,
                "status": status,
                "store_bytes": size,
                "full_scans": store_full_scans,
            }
        )
    )


if __name__ == "__main__":
    main()
