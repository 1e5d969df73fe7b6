"""What the core tells front ends about a tool call beyond the transcript line: its kind,
raw input and locations, and the change it made. The LSP wire leaves these out."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from workspace_agent import protocol as p
from workspace_agent.agent.loop import dispatch
from workspace_agent.config import AgentSettings
from workspace_agent.guard.approvals import Approvals
from workspace_agent.lsp.notifier import LspNotifier
from workspace_agent.shared.events import SessionEvents
from workspace_agent.shared.todo import TodoList
from workspace_agent.tools import TOOLS, ToolContext

ALLOW_ALL = {"bash": "allow", "write": "allow"}


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def on_event(self, session_id: str, kind: str, fields: dict[str, Any]) -> None:
        self.events.append((kind, fields))

    def on_todos(self, session_id: str, items: list[Any]) -> None:
        pass

    def on_context(self, session_id: str, meter: dict[str, Any]) -> None: ...


async def call(root: Path, name: str, tool_input: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    recorder = Recorder()
    ctx = ToolContext(root, AgentSettings(), TodoList(), Approvals(ALLOW_ALL))
    block = {"id": "toolu_1", "name": name, "input": tool_input}
    await dispatch(block, TOOLS, ctx, SessionEvents(recorder, "s1"))
    (kind_a, started), (kind_b, ended) = recorder.events
    assert (kind_a, kind_b) == (p.EVENT_TOOL_CALL, p.EVENT_TOOL_RESULT)
    return started, ended


def make(root: Path, name: str, text: str) -> Path:
    path = root / name
    path.write_text(text)
    return path.resolve()


async def test_an_edit_reports_its_kind_location_and_change(tmp_path: Path):
    path = make(tmp_path, "a.py", "one = 1\ntwo = 2\n")
    started, ended = await call(
        tmp_path, "edit_file", {"path": "a.py", "old_text": "two = 2", "new_text": "two = 'II'"}
    )
    assert started["toolKind"] == "edit"
    assert started["input"] == {"path": "a.py", "old_text": "two = 2", "new_text": "two = 'II'"}
    assert started["locations"] == [{"path": str(path), "line": None}]
    assert ended["ok"] is True
    assert ended["changes"] == [
        {"path": str(path), "oldText": "two = 2", "newText": "two = 'II'", "line": 2}
    ]
    assert ended["fullOutput"] == ended["output"]


async def test_a_rewrite_reports_the_old_text_and_a_new_file_none(tmp_path: Path):
    path = make(tmp_path, "notes.txt", "")
    path.write_bytes(b"first\r\nsecond\r\n")
    _, rewrite = await call(tmp_path, "write_file", {"path": "notes.txt", "content": "third\n"})
    assert rewrite["changes"] == [
        {"path": str(path), "oldText": "first\nsecond\n", "newText": "third\n", "line": 1}
    ]
    _, created = await call(tmp_path, "write_file", {"path": "new/file.txt", "content": "x"})
    assert created["changes"][0]["oldText"] is None
    assert created["changes"][0]["path"] == str((tmp_path / "new" / "file.txt").resolve())


async def test_reads_and_commands_report_no_change(tmp_path: Path):
    path = make(tmp_path, "a.py", "x\n" * 10)
    read, read_result = await call(tmp_path, "read_file", {"path": "a.py", "offset": 4})
    assert read["toolKind"] == "read"
    assert read["locations"] == [{"path": str(path), "line": 4}]
    assert read_result["changes"] == []
    tail, _ = await call(tmp_path, "read_file", {"path": "a.py", "offset": -2})
    assert tail["locations"] == [{"path": str(path), "line": None}]
    command, command_result = await call(tmp_path, "bash", {"command": "echo hi"})
    assert (command["toolKind"], command["locations"]) == ("execute", [])
    assert command_result["fullOutput"] == "hi\n[exit status 0]"
    outside, _ = await call(tmp_path, "read_file", {"path": "../elsewhere.txt"})
    assert outside["locations"] == []  # refused by the tool, never reported as a place
    unknown, _ = await call(tmp_path, "no_such_tool", {"x": 1})
    assert (unknown["toolKind"], unknown["locations"]) == ("other", [])


def test_the_lsp_wire_leaves_the_details_out():
    """A card's worth: kind and locations of a call, the files a result changed with
    their line counts; not the raw input, the whole output or the edit's texts."""
    sent: list[tuple[str, Any]] = []
    server = SimpleNamespace(protocol=SimpleNamespace(notify=lambda m, b: sent.append((m, b))))
    notifier = LspNotifier(server)  # type: ignore[arg-type]
    notifier.on_event(
        "s1",
        p.EVENT_TOOL_CALL,
        {
            "toolUseId": "t",
            "name": "edit_file",
            "summary": "a.py",
            "todoId": None,
            "toolKind": "edit",
            "input": {"path": "a.py"},
            "locations": [{"path": "/w/a.py", "line": None}],
        },
    )
    changed = [{"path": "a.py", "change": "modified", "additions": 1, "deletions": 1}]
    notifier.on_event(
        "s1",
        p.EVENT_TOOL_RESULT,
        {"toolUseId": "t", "name": "edit_file", "ok": True, "output": "Edited", "todoId": None}
        | {"exitCode": None, "outputChars": 6, "fullOutput": "Edited"}
        | {"changes": [{"path": "/w/a.py", "oldText": "x", "newText": "y"}]}
        | {"changedFiles": changed},
    )
    assert sent == [
        (
            p.EVENT_NOTIFICATION,
            {
                "sessionId": "s1",
                "kind": "toolCall",
                "toolUseId": "t",
                "name": "edit_file",
                "summary": "a.py",
                "todoId": None,
                "toolKind": "edit",
                "locations": [{"path": "/w/a.py", "line": None}],
            },
        ),
        (
            p.EVENT_NOTIFICATION,
            {
                "sessionId": "s1",
                "kind": "toolResult",
                "toolUseId": "t",
                "name": "edit_file",
                "ok": True,
                "output": "Edited",
                "todoId": None,
                "exitCode": None,
                "outputChars": 6,
                "changes": changed,
            },
        ),
    ]
