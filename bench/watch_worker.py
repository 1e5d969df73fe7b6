"""Row 34's side measurements in a fresh process, on a workspace with a warm store: what
watching it costs when its store opens (one inotify watch per folder, set up in the
caller's thread), and one scan after a command changed one file: a file changed the first
time (one `git status` of the store's index) and the same file again (no git).

    python -m bench.watch_worker WORKSPACE

Prints one JSON line: seconds to set the watches up, the process's RSS growth (KiB), the
number of watches, and the scans' medians (wall and CPU seconds, git's included)."""

from __future__ import annotations

import json
import resource
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

FILES = 5
MAX_FILE = 10 << 20


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def timed(work: Callable[[], object]) -> tuple[float, float]:
    """Wall and CPU seconds (this process and the children it waited for)."""
    before = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    started = time.perf_counter()
    work()
    wall = time.perf_counter() - started
    after = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    cpu = sum(
        a.ru_utime + a.ru_stime - b.ru_utime - b.ru_stime
        for a, b in zip(after, before, strict=True)
    )
    return wall, cpu


def main() -> None:
    root = Path(sys.argv[1])
    import inotify_simple  # noqa: F401  (its import is not the watch's cost)

    from workspace_agent.checkpoints.inotify_feed import InotifyFeed
    from workspace_agent.checkpoints.store import CheckpointStore

    before = rss_kib()
    started = time.perf_counter()
    feed = InotifyFeed(root)
    seconds = time.perf_counter() - started
    grown = rss_kib() - before
    store = CheckpointStore(root)
    store.refresh_excludes()
    store.watch(feed)
    full, _ = timed(lambda: store.scan(MAX_FILE))
    first: list[tuple[float, float]] = []
    again: list[tuple[float, float]] = []
    for n in range(FILES):
        module = root / "src" / f"pkg{n + 1:04d}" / "mod01.py"
        for times in (first, again):
            with open(module, "a") as handle:
                handle.write(f"extra_{n} = {n}\n")
            times.append(timed(lambda: store.scan(MAX_FILE)))
    watches, problem = feed.watches, feed.problem
    store.close()
    got = {
        "seconds": seconds,
        "rss_kib": grown,
        "watches": watches,
        "problem": problem,
        "full": full,
        "files": FILES,
        "first": statistics.median(w for w, _ in first),
        "first_cpu": statistics.median(c for _, c in first),
        "again": statistics.median(w for w, _ in again),
        "again_cpu": statistics.median(c for _, c in again),
    }
    print(json.dumps(got))


if __name__ == "__main__":
    main()
