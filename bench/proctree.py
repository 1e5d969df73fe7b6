"""A child process run to its end while the resident memory of its whole process tree is
sampled (the child and everything it started: git, commands, helpers), and its exit time
taken by a thread blocked in wait(), so the clock does not depend on the sampling."""

from __future__ import annotations

import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

SAMPLE_SECONDS = 0.01


@dataclass
class Finished:
    returncode: int
    exited_ns: int
    """time.monotonic_ns() when wait() returned."""
    peak_rss_kib: int
    """The largest sum of VmRSS over the tree seen by the samples (pages shared between
    processes count once per process, for every agent alike)."""


def tree_rss_kib(pid: int) -> int:
    total = 0
    for member in _tree(pid):
        try:
            status = Path(f"/proc/{member}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
                break
    return total


def _tree(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:  # a process that exits meanwhile takes its /proc folder along
            tasks = list(Path(f"/proc/{current}/task").glob("*/children"))
        except OSError:
            continue
        for task in tasks:
            try:
                todo += [int(child) for child in task.read_text().split()]
            except OSError:
                continue
    return found


def run_sampled(proc: subprocess.Popen[bytes], timeout: float = 300) -> Finished:
    """Wait for `proc`, sampling its tree's memory meanwhile."""
    exited: list[int] = []

    def waiter() -> None:
        proc.wait()
        exited.append(time.monotonic_ns())

    thread = threading.Thread(target=waiter, daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    peak = 0
    while not exited:
        peak = max(peak, tree_rss_kib(proc.pid))
        if time.monotonic() > deadline:
            proc.kill()
            thread.join()
            raise RuntimeError(f"{proc.args!r} did not finish in {timeout:.0f} s")
        thread.join(SAMPLE_SECONDS)
    thread.join()
    return Finished(proc.returncode, exited[0], peak)
