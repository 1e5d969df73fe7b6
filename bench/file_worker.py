"""One measured file operation in a fresh process (rows 3 and 4), so that peak memory is
the kernel's own number for that operation alone.

    python -m bench.file_worker VARIANT PATH [ARGS...]

Prints one JSON line: seconds (wall clock of the operation), rss_before_kib (VmRSS after
imports, just before the operation), peak_kib (VmHWM after it; the peak is reset to the
current RSS first, through /proc/self/clear_refs) and a check value the caller verifies.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any


def _ctx(root: Path, max_file_bytes: int) -> Any:
    from workspace_agent.config import resolve_settings
    from workspace_agent.guard.approvals import Approvals
    from workspace_agent.shared.todo import TodoList
    from workspace_agent.tools import ToolContext

    settings = resolve_settings(
        root,
        {"approvals": {"bash": "allow", "write": "allow"}, "maxFileBytes": max_file_bytes},
        environ={},
    )
    return ToolContext(
        root=root,
        settings=settings,
        todos=TodoList(),
        approvals=Approvals({"bash": "allow", "write": "allow"}),
    )


def read_ours(path: Path, lines: int) -> Any:
    from workspace_agent.tools import TOOLS
    from workspace_agent.tools.base import output_text

    ctx = _ctx(path.parent, 1 << 40)
    handler = TOOLS["read_file"].handler

    loop = asyncio.new_event_loop()  # the server has its loop already: not timed

    def op() -> str:
        args = {"path": path.name, "offset": -lines, "limit": lines}
        return output_text(loop.run_until_complete(handler(ctx, args)))

    return op, lambda out: out.rstrip("\n").rsplit("\n", 1)[-1].split("\t", 1)[-1]


def read_naive(path: Path, lines: int) -> Any:
    def op() -> list[str]:
        return path.read_text().splitlines()[-lines:]

    return op, lambda out: out[-1]


def edit_ours(path: Path, old: str, new: str) -> Any:
    from workspace_agent.tools import TOOLS
    from workspace_agent.tools.base import ToolResult, output_text

    ctx = _ctx(path.parent, 1 << 40)
    handler = TOOLS["edit_file"].handler

    loop = asyncio.new_event_loop()  # the server has its loop already: not timed

    def op() -> str | ToolResult:
        args = {"path": path.name, "old_text": old, "new_text": new}
        return loop.run_until_complete(handler(ctx, args))

    return op, lambda out: output_text(out).split(":", 1)[0]


def edit_naive(path: Path, old: str, new: str) -> Any:
    def op() -> None:
        text = path.read_text()
        path.write_text(text.replace(old, new))

    return op, lambda out: "written"


VARIANTS: dict[str, Any] = {
    "read-ours": read_ours,
    "read-naive": read_naive,
    "edit-ours": edit_ours,
    "edit-naive": edit_naive,
}


def main() -> None:
    from .harness import proc_status_kib, reset_peak_rss

    variant, path, *args = sys.argv[1:]
    make = VARIANTS[variant]
    op, check = make(Path(path), *(int(a) if a.isdigit() else a for a in args))
    reset = reset_peak_rss()
    before = proc_status_kib("VmRSS")
    started = time.perf_counter()
    out = op()
    seconds = time.perf_counter() - started
    peak = proc_status_kib("VmHWM")
    print(
        json.dumps(
            {
                "seconds": seconds,
                "rss_before_kib": before,
                "peak_kib": peak,
                "peak_reset": reset,
                "check": check(out),
            }
        )
    )


if __name__ == "__main__":
    main()
