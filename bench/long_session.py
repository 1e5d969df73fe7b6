"""Rows 25 and 26: a long session on a big git repository (row 24's tree of 200,000
files; `--quick`: 2,000). Each workspace-changing command costs the checkpoints one scan of
the workspace (since issue 51 only what the file watcher saw change); that must cost
at most 1.2x what the user's own `git status` costs there (row 25),
and stay the same from the first call of a 1,000-call session to the last (row 26).

The work after each command is what the checkpoint observer does after a `bash` call,
done in a fresh process by bench/long_session_worker.py, beside the user's `git status`
every tenth call (the naive baseline: what git itself needs to find the change).
"""

from __future__ import annotations

from . import first_task
from .harness import run_worker
from .report import Row, median, ms

NUMBERS = (25, 26)
WHAT = "a long session's checkpoints in a big git repository"
TARGET = "<= 1.2x the user's git status; last 100 calls <= 1.1x the first 100"
CALLS, QUICK_CALLS = 1_000, 100
WINDOW = 100


def run(quick: bool) -> list[Row]:
    files = first_task.QUICK_BIG if quick else first_task.BIG
    calls = QUICK_CALLS if quick else CALLS
    root = first_task.tree(files)
    first_task.reset(root)
    try:
        got = run_worker("bench.long_session_worker", str(root), str(calls), timeout=3600)
    finally:
        first_task.reset(root)
    per_call, status = got["per_call"], got["status"]
    window = min(WINDOW, len(per_call) // 2)
    first, last = median(per_call[:window]), median(per_call[-window:])
    call, user = median(per_call), median(status)
    # The user's git status over the same session: what the machine and the tree did to
    # the cost of a scan (load, the files growing), which is not ours.
    few = max(1, window // 10)
    drift = median(status[-few:]) / median(status[:few])
    growth = (last / first) / drift
    where = f"{files:,}-file git checkout"
    common = [
        f"- tree: row 24's ({where}); a fresh checkpoint store seeded from its index; "
        f"{calls:,} commands, each appending a line to one of 20 modules (a plan item per "
        f"{50} calls), each followed by the observer's work after a `bash` call: a scan, "
        "the journal record, the files it changed with their line counts, and the "
        "workspaceAgent/changes payload of the whole session.",
        f"- the user's `git status --porcelain` every tenth call: median {ms(user)} "
        f"({len(status)} runs).",
        f"- per call: median {ms(call)}; first {window}: {ms(first)}; last {window}: "
        f"{ms(last)}; slowest {ms(max(per_call))}.",
        f"- the store after the session (packed at its end): {got['store_bytes']:,} bytes.",
        "- the store's scans learn what changed from its file watcher (inotify, git's "
        "fsmonitor hook), as a run's store does since issue 51; scans that fell back to "
        f"looking at everything: {got.get('full_scans', 0)} (the first is always full).",
        f"- the user's git status over the same session, first {few} runs against the last "
        f"{few}: {ms(median(status[:few]))} and {ms(median(status[-few:]))} ({drift:.2f}x); "
        f"row 26's ratio is ours ({last / first:.2f}x) over that drift.",
    ]
    return [
        Row(
            25,
            f"a bash call's checkpoint in a {where}",
            f"the user's own `git status`: {ms(user)}",
            f"{ms(call)} per call",
            f"{call / user:.2f}x",
            "<= 1.2x the user's git status",
            call / user <= 1.2,
            common,
        ),
        Row(
            26,
            f"a {calls:,}-call session's checkpoints in a {where}",
            f"its first {window} calls: {ms(first)} per call; the user's git status "
            f"drifted {drift:.2f}x meanwhile",
            f"its last {window}: {ms(last)} per call",
            f"{growth:.2f}x",
            f"last {window} calls <= 1.1x the first {window} (beyond git status's drift)",
            growth <= 1.1,
            ["- see row 25."],
        ),
    ]
