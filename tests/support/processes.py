"""The processes a test starts or makes a command start, seen from the host: whether one
is gone, which host pid a (possibly sandboxed) command's `$!` is, what is left running in
a workspace, and a pid no process has."""

from __future__ import annotations

import os
from pathlib import Path

import psutil

from tests.support.lsp import wait_for

SLEEPER = "sleep 300 & echo $! > sleep.pid; wait"
"""A command that runs a long sleep in the background, writes its pid down and waits."""


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


async def sleeping_pid(workspace: Path) -> int:
    """The host pid of SLEEPER's sleep in `workspace`, once it runs."""
    pid_file = workspace / "sleep.pid"
    await wait_for(
        lambda: pid_file.exists() and pid_file.read_text().strip(),
        what="the sleep to start",
        timeout=30,  # a sandbox's start on a loaded machine (10 s was not enough at load 15)
    )
    pid = host_pid(int(pid_file.read_text()), workspace)
    assert pid is not None and not gone(pid)
    return pid


def invisible_pid() -> int:
    """A pid no process has here, as the client's pid looks from inside a container."""
    pid_max = int(Path("/proc/sys/kernel/pid_max").read_text())
    return next(pid for pid in range(pid_max - 1, 1, -1) if not psutil.pid_exists(pid))


def host_pid(pid: int, workspace: Path) -> int | None:
    """The host pid of a live process that a command in `workspace` wrote down (`$!`):
    in the sandbox a command sees the jail's own pid namespace, so its pid differs from the
    host's (the last NSpid entry of /proc/PID/status is the one the command saw). None
    when no such process runs (never the bare number: that is some other host process)."""
    real = os.path.realpath(workspace)
    for proc in psutil.process_iter():
        try:
            if proc.cwd() != real:
                continue
            status = Path(f"/proc/{proc.pid}/status").read_text()
        except (OSError, psutil.Error):
            continue
        for line in status.splitlines():
            if line.startswith("NSpid:") and int(line.split()[-1]) == pid:
                return proc.pid
    return None


def processes_in(workspace: Path) -> list[int]:
    """Live processes (not zombies) whose working directory is `workspace`: what a
    command left running there, sandboxed or not."""
    real = os.path.realpath(workspace)
    found = []
    for proc in psutil.process_iter():
        try:
            if proc.cwd() == real and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc.pid)
        except psutil.Error:
            continue
    return found
