"""Row 32's side measurement in a fresh process: what watching a workspace costs when its
store opens (one inotify watch per folder, set up in the caller's thread).

    python -m bench.watch_worker WORKSPACE

Prints one JSON line: seconds to set the watches up, the process's RSS growth (KiB), the
number of watches."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def main() -> None:
    root = Path(sys.argv[1])
    import inotify_simple  # noqa: F401  (its import is not the watch's cost)

    from workspace_agent.checkpoints.inotify_feed import InotifyFeed

    before = rss_kib()
    started = time.perf_counter()
    feed = InotifyFeed(root)
    seconds = time.perf_counter() - started
    grown = rss_kib() - before
    watches = feed.watches
    problem = feed.problem
    feed.close()
    got = {"seconds": seconds, "rss_kib": grown, "watches": watches, "problem": problem}
    print(json.dumps(got))


if __name__ == "__main__":
    main()
