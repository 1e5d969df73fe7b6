"""Row 24's naive baseline in a fresh process: a fresh checkpoint store's first scan of a
git work tree without seeding from the user's index (every file hashed), as before.

Prints one JSON line: seconds (scan and tree) and the files found."""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

from workspace_agent.checkpoints.store import FOLDER, CheckpointStore


def main() -> None:
    root = Path(sys.argv[1])
    shutil.rmtree(root / FOLDER.parts[0], ignore_errors=True)
    started = time.perf_counter()
    store = CheckpointStore(root, seed=False)
    store.refresh_excludes()
    scan = store.scan(10 << 20)
    store.write_tree()
    seconds = time.perf_counter() - started
    store.close()
    shutil.rmtree(root / FOLDER.parts[0], ignore_errors=True)
    print(json.dumps({"seconds": seconds, "files": len(scan.changes)}))


if __name__ == "__main__":
    main()
