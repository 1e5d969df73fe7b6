"""What a test that runs too long is waiting for, printed before pytest-timeout ends it.

pytest-timeout's thread method ends a stuck worker (xdist starts another), which bounds a
hang that a signal cannot break (a SIGALRM that lands in a background asyncio task is kept
by that task, and the test goes on waiting). Its own stack dump is lost in the worker's
captured stderr, so this plugin writes, to the real stderr, every thread's stack and every
pending asyncio task's: the await a test hangs on, not only the event loop's `select`.
"""

from __future__ import annotations

import asyncio
import faulthandler
import gc
import os
import sys
import threading
from collections.abc import Iterator
from typing import TextIO

import pytest

REPORT_BEFORE_TIMEOUT_S = 15.0
"""How long before a test's timeout its report is printed (it needs the test still there)."""

_terminal_fd: int | None = None


def pytest_configure(config: pytest.Config) -> None:
    """Keeps the terminal's stderr before the tests' output capture takes fd 2 (as pytest's
    own faulthandler plugin does)."""
    global _terminal_fd
    _terminal_fd = os.dup(sys.__stderr__.fileno() if sys.__stderr__ else 2)


def _stderr() -> TextIO:
    return os.fdopen(os.dup(_terminal_fd if _terminal_fd is not None else 2), "w")


def _report(nodeid: str, after_s: float) -> None:
    with _stderr() as out:
        out.write(f"\n==== {nodeid} still running after {after_s:.0f} s: what it waits for ====\n")
        out.flush()
        faulthandler.dump_traceback(file=out, all_threads=True)
        loops = [o for o in gc.get_objects() if isinstance(o, asyncio.AbstractEventLoop)]
        for loop in loops:
            if loop.is_closed() or not loop.is_running():
                continue
            try:
                tasks = list(asyncio.all_tasks(loop))
            except RuntimeError:  # the set changed under us: the loop is not stuck
                continue
            for task in tasks:
                out.write(f"-- task {task.get_name()}: {task.get_coro()!r}\n")
                task.print_stack(limit=12, file=out)
        out.write(f"==== end of {nodeid} ====\n")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    """A timer per test (setup, call and teardown, as pytest-timeout counts them)."""
    marker = item.get_closest_marker("timeout")
    if marker is not None and (marker.args or "timeout" in marker.kwargs):
        timeout = float(marker.args[0] if marker.args else marker.kwargs["timeout"] or 0)
    else:
        timeout = float(item.config.getini("timeout") or 0)
    timer = None
    if timeout > REPORT_BEFORE_TIMEOUT_S * 2:
        after = timeout - REPORT_BEFORE_TIMEOUT_S
        timer = threading.Timer(after, _report, args=(item.nodeid, after))
        timer.daemon = True
        timer.start()
    try:
        yield
    finally:
        if timer is not None:
            timer.cancel()
