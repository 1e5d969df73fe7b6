"""The observer mechanism for workspace-changing tool calls, as a second feature (say, the
editor's diagnostics) would use it: registered with the session manager, it sees every
write_file / edit_file / bash call with its structured outcome and the files the
checkpoint found changed, and can add a note to the tool result."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workspace_agent.agent.sessions import SessionManager
from workspace_agent.config import resolve_settings
from workspace_agent.protocol import RunRequest, StopReason
from workspace_agent.shared.observers import CallReport, ChangedFile, RunScope, ToolCall
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool


class Quiet:
    def on_event(self, session_id: str, kind: str, fields: dict[str, Any]) -> None: ...

    def on_todos(self, session_id: str, items: list[Any]) -> None: ...

    def on_context(self, session_id: str, meter: dict[str, Any]) -> None: ...

    def on_changes(self, session_id: str, changes: dict[str, Any]) -> None: ...


@dataclass
class Diagnostics:
    """A stand-in for issue 11's observer: it reads the changed files, adds a note."""

    seen: list[tuple[str, Any]] = field(default_factory=list)
    broken: bool = False

    async def start_run(self) -> None:
        self.seen.append(("start", None))

    async def before_tool(self, call: ToolCall) -> None:
        self.seen.append(("before", call.name))

    async def after_tool(self, report: CallReport) -> None:
        self.seen.append(("after", report))
        if self.broken:
            raise RuntimeError("observer bug")
        if report.changes:
            paths = ", ".join(change.path for change in report.changes)
            report.notes.append(f"<diagnostics>no new problems in {paths}</diagnostics>")

    async def end_run(self, stop: StopReason) -> None:
        self.seen.append(("end", stop))


async def _run(workspace: Path, model: ScriptedModelServer, observer: Diagnostics) -> Any:
    def factory(scope: RunScope) -> Diagnostics:
        assert scope.root == workspace
        return observer

    settings = {"baseUrl": model.url, "approvals": {"bash": "allow"}}
    agent = SessionManager(
        Quiet(),
        root=lambda: workspace,
        settings=lambda root: resolve_settings(root, settings, {"ANTHROPIC_API_KEY": "k"}),
        observers=[factory],
    )
    return await agent.run(RunRequest("go"))


SCRIPT = script_of(
    reply(tool("todo", {"items": [{"id": "1", "text": "t", "status": "in_progress"}]})),
    reply(tool("read_file", {"path": "a.py"})),
    reply(tool("edit_file", {"path": "a.py", "old_text": "1", "new_text": "2"})),
    reply(tool("bash", {"command": "echo gen > gen.txt; exit 3"})),
    reply(tool("bash", {"command": "sudo ls"})),
    reply(text("done")),
)


async def test_observers_see_workspace_changing_calls_with_outcome_and_changed_files(
    workspace: Path, model: ScriptedModelServer
):
    (workspace / "a.py").write_text("x = 1\n")
    model.load(SCRIPT)
    observer = Diagnostics()
    result = await _run(workspace, model, observer)

    assert result.stop_reason == "end_turn"
    kinds = [(kind, value if kind != "after" else value.call.name) for kind, value in observer.seen]
    assert kinds == [
        ("start", None),
        ("before", "edit_file"),
        ("after", "edit_file"),
        ("before", "bash"),
        ("after", "bash"),
        ("before", "bash"),
        ("after", "bash"),
        ("end", "end_turn"),
    ]  # read_file and todo change nothing: not shown
    edit, command, refused = (value for kind, value in observer.seen if kind == "after")
    assert edit.changes == [ChangedFile("a.py", "modified", 1, 1)] and edit.call.todo_id == "1"
    assert command.outcome.exit_code == 3 and command.outcome.ran  # a failing command is a result
    assert command.changes == [ChangedFile("gen.txt", "added", 1, 0)]
    assert not refused.outcome.ran and refused.changes == []

    results = [r.body["messages"][-1]["content"][0] for r in model.requests[1:]]
    assert results[2]["content"] == (
        "Edited a.py: replaced 1 occurrence (now lines 1-1)\n"
        "<diagnostics>no new problems in a.py</diagnostics>"
    )
    assert results[3]["content"] == (
        "(no output)\n[exit status 3]\n<diagnostics>no new problems in gen.txt</diagnostics>"
    )


async def test_a_failing_observer_never_fails_the_tool(workspace: Path, model: ScriptedModelServer):
    (workspace / "a.py").write_text("x = 1\n")
    model.load(SCRIPT)
    result = await _run(workspace, model, Diagnostics(broken=True))

    assert result.stop_reason == "end_turn"
    edited = model.requests[3].body["messages"][-1]["content"][0]
    assert edited["content"] == "Edited a.py: replaced 1 occurrence (now lines 1-1)"
    assert "is_error" not in edited
    assert (workspace / "a.py").read_text() == "x = 2\n"
