"""Row 12, measured in one fresh process: what the checkpoint observer costs per
workspace-changing tool call on a large tree, next to `git status --porcelain` on the
same tree, interleaved.

    python -m bench.checkpoint_worker WORKSPACE CALLS

The workspace is a git repository (the user's) built by the caller. The observer is the
real one (CheckpointObserver), driven the way the agent loop drives it: before_tool, the
change a tool would make, after_tool. Prints one JSON line with the per-call times.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


class _Events:
    """The observer's view of the transcript: notices would say checkpoints broke."""

    def __init__(self) -> None:
        self.notices: list[str] = []
        self.changes = 0

    def emit(self, kind: str, **fields: Any) -> None:
        if kind == "notice":
            self.notices.append(str(fields.get("message")))

    def changes_payload(self, payload: dict[str, Any]) -> None:
        self.changes += 1


async def measure(root: Path, calls: int) -> dict[str, Any]:
    from workspace_agent.checkpoints.service import Checkpoints
    from workspace_agent.config import resolve_settings
    from workspace_agent.shared.documents import DiskOnly
    from workspace_agent.shared.observers import CallReport, RunScope, ToolCall
    from workspace_agent.shared.session import Session
    from workspace_agent.shared.tool_result import ToolResult
    from workspace_agent.tools import TOOLS

    events = _Events()

    class Scope:  # SessionEvents' two methods, counted
        emit = events.emit
        changes = events.changes_payload

    settings = resolve_settings(root, {}, environ={})
    session = Session()
    observer = Checkpoints().observer(
        RunScope(session, root, settings, Scope(), DiskOnly())  # type: ignore[arg-type]
    )
    assert observer is not None
    started = time.perf_counter()
    await observer.start_run()  # a new store: the whole tree is imported once
    first_run = time.perf_counter() - started
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}

    def git_status() -> float:
        started = time.perf_counter()
        subprocess.run(
            ["git", "status", "--porcelain"], cwd=root, env=env, check=True, capture_output=True
        )
        return time.perf_counter() - started

    async def call(name: str, tool_input: dict[str, Any], change: Any) -> float:
        tool = TOOLS[name]
        tool_call = ToolCall(
            f"t{time.monotonic_ns()}",
            name,
            tool_input,
            "1",
            reach=tool.reach,
            command=tool.command(tool_input),
        )
        started = time.perf_counter()
        await observer.before_tool(tool_call)
        before = time.perf_counter() - started
        change()  # what the tool does: not the checkpoint's cost
        started = time.perf_counter()
        outcome = ToolResult("", exit_code=0 if tool_call.command is not None else None)
        report = CallReport(tool_call, outcome)
        await observer.after_tool(report)
        after = time.perf_counter() - started
        if not report.changes:
            raise RuntimeError(f"the checkpoint missed the change of a {name} call")
        return before + after

    times: dict[str, list[float]] = {"status": [], "bash": [], "edit": []}
    files = sorted((root / "src").rglob("*.py"))
    await call("bash", {"command": "warm"}, lambda: _append(files[0], "# warm\n"))  # item scan
    for n in range(calls):
        target = files[(n * 37) % len(files)]
        rel = str(target.relative_to(root))
        order = ("status", "bash", "edit") if n % 2 == 0 else ("edit", "bash", "status")
        for name in order:
            if name == "status":
                times[name].append(git_status())
            else:
                tool = "bash" if name == "bash" else "edit_file"
                tool_input = {"command": "sed -i"} if name == "bash" else {"path": rel}
                times[name].append(await call(tool, tool_input, _appender(target)))
    await observer.end_run("end_turn")
    if events.notices:
        raise RuntimeError(f"checkpoints reported a problem: {events.notices}")
    return {"first_run": first_run, **times, "notifications": events.changes}


def _appender(path: Path) -> Any:
    return lambda: _append(path, "# changed\n")


def _append(path: Path, line: str) -> None:
    with path.open("a") as f:
        f.write(line)


def main() -> None:
    root, calls = Path(sys.argv[1]), int(sys.argv[2])
    print(json.dumps(asyncio.run(measure(root, calls))))


if __name__ == "__main__":
    main()
