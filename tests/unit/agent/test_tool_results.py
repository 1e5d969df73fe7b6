"""One result type from the handler to the front ends (issue 31, item 3): the observers
see the call with its tool's metadata and the result with the exit status as data, and
every way a call ends (a result, a failure, a cancel) makes the same toolResult event."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

from workspace_agent import protocol as p
from workspace_agent.agent.loop import dispatch
from workspace_agent.config import AgentSettings
from workspace_agent.guard.approvals import Approvals
from workspace_agent.protocol import StopReason
from workspace_agent.shared.events import SessionEvents
from workspace_agent.shared.observers import CallReport, ToolCall
from workspace_agent.shared.todo import TodoList
from workspace_agent.tools import TOOLS, ToolContext

RESULT_FIELDS = {
    "toolUseId",
    "name",
    "ok",
    "output",
    "todoId",
    "exitCode",
    "outputChars",
    "fullOutput",
    "changes",
    "changedFiles",
}


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def on_event(self, session_id: str, kind: str, fields: dict[str, Any]) -> None:
        self.events.append((kind, fields))

    def on_todos(self, session_id: str, items: list[Any]) -> None:
        pass

    def on_context(self, session_id: str, meter: dict[str, Any]) -> None: ...

    def results(self) -> list[dict[str, Any]]:
        return [fields for kind, fields in self.events if kind == p.EVENT_TOOL_RESULT]


class Watcher:
    """A RunObserver that keeps what it is shown."""

    def __init__(self) -> None:
        self.calls: list[ToolCall] = []
        self.reports: list[CallReport] = []
        self.started = asyncio.Event()

    async def start_run(self) -> None: ...

    async def before_tool(self, call: ToolCall) -> None:
        self.calls.append(call)
        self.started.set()

    async def after_tool(self, report: CallReport) -> None:
        self.reports.append(report)

    async def end_run(self, stop: StopReason) -> None: ...


def context(root: Path, watcher: Watcher) -> ToolContext:
    settings = dataclasses.replace(AgentSettings(), sandbox_mode="off")
    approvals = Approvals({"bash": "allow", "write": "allow"})
    return ToolContext(root, settings, TodoList(), approvals, observers=(watcher,))


async def call(root: Path, name: str, tool_input: Any) -> tuple[Watcher, Recorder]:
    watcher, recorder = Watcher(), Recorder()
    block = {"id": f"toolu_{name}", "name": name, "input": tool_input}
    await dispatch(block, TOOLS, context(root, watcher), SessionEvents(recorder, "s1"))
    return watcher, recorder


async def test_a_commands_exit_status_travels_as_data(tmp_path: Path):
    watcher, recorder = await call(tmp_path, "bash", {"command": "echo hi; exit 3"})
    (seen,) = watcher.calls
    assert (seen.reach, seen.command) == ("workspace", "echo hi; exit 3")
    (report,) = watcher.reports
    # a command that failed is a call that worked: its status says how the command ended
    assert report.outcome.exit_code == 3 and report.outcome.ok and report.outcome.ran
    (result,) = recorder.results()
    assert result["exitCode"] == 3 and result["ok"] is True
    assert result["output"] == "hi\n[exit status 3]"  # the model's text is as it was


async def test_observers_see_what_each_tool_reaches(tmp_path: Path):
    (tmp_path / "a.txt").write_text("one\n")
    edit, _ = await call(
        tmp_path, "edit_file", {"path": "a.txt", "old_text": "one", "new_text": "1"}
    )
    write, _ = await call(tmp_path, "write_file", {"path": "b.txt", "content": "two\n"})
    read, _ = await call(tmp_path, "read_file", {"path": "a.txt"})
    plan, _ = await call(tmp_path, "todo", {"items": []})
    assert [(c.reach, c.whole_file_changes, c.command) for c in edit.calls + write.calls] == [
        ("named_file", False, None),
        ("named_file", True, None),
    ]
    assert read.calls == [] and plan.calls == []  # they reach nothing: not shown


async def test_every_way_a_call_ends_makes_the_same_result_event(tmp_path: Path):
    _, done = await call(tmp_path, "bash", {"command": "true"})
    _, unknown = await call(tmp_path, "no_such_tool", {})
    _, invalid = await call(tmp_path, "read_file", {"nope": 1})

    watcher, recorder = Watcher(), Recorder()
    block = {"id": "toolu_slow", "name": "bash", "input": {"command": "sleep 60"}}
    task = asyncio.create_task(
        dispatch(block, TOOLS, context(tmp_path, watcher), SessionEvents(recorder, "s1"))
    )
    await watcher.started.wait()
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    (cancelled,) = recorder.results()
    (stopped,) = watcher.reports
    assert stopped.outcome.cancelled and stopped.outcome.exit_code is None

    shapes = [
        set(result)
        for (result,) in (done.results(), unknown.results(), invalid.results(), [cancelled])
    ]
    # a command that ran also says whether it was in the sandbox
    assert shapes == [RESULT_FIELDS | {"sandboxed"}, RESULT_FIELDS, RESULT_FIELDS, RESULT_FIELDS]
    assert [r["exitCode"] for r in (*done.results(), *unknown.results(), cancelled)] == [
        0,
        None,
        None,
    ]
    assert cancelled["ok"] is False and cancelled["output"].startswith("cancelled")
