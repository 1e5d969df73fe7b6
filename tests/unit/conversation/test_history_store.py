"""The history file on its own: entries keep their place, a torn last line (a crash
mid-write) is never served and is cut off before the next entry, and a file another
process appended to is read again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from workspace_agent.conversation.pages import CURSOR_PREFIX, HistoryParams, history_page
from workspace_agent.conversation.store import HistoryFile


def entries(first: int, count: int, run: int = 1) -> list[dict[str, object]]:
    return [
        {"kind": "notice", "message": f"n{n}", "seq": n, "run": run}
        for n in range(first, first + count)
    ]


def test_pages_are_ranges_of_entries(tmp_path: Path):
    history = HistoryFile(tmp_path, "s1")
    history.append(entries(0, 10))
    assert history.total == 10 and history.last_run == 1
    assert [e["seq"] for e in history.page(10, 4)] == [6, 7, 8, 9]
    assert [e["seq"] for e in history.page(3, 4)] == [0, 1, 2]
    assert history.page(0, 4) == []


def test_a_torn_last_line_is_never_served_and_is_cut_before_the_next_entry(tmp_path: Path):
    history = HistoryFile(tmp_path, "s1")
    history.append(entries(0, 3))
    with history.path.open("ab") as f:
        f.write(b'{"kind": "notice", "mess')  # the process died mid-write
    again = HistoryFile(tmp_path, "s1")  # as after a restart
    assert again.total == 3
    assert [e["seq"] for e in again.page(3, 10)] == [0, 1, 2]
    again.append(entries(3, 1, run=2))
    lines = history.path.read_bytes().splitlines()
    assert [json.loads(line)["seq"] for line in lines] == [0, 1, 2, 3]
    assert again.last_run == 2


def test_a_file_appended_by_another_process_is_read_again(tmp_path: Path):
    ours, theirs = HistoryFile(tmp_path, "s1"), HistoryFile(tmp_path, "s1")
    ours.append(entries(0, 2))
    assert theirs.total == 2
    theirs.append(entries(2, 2))  # e.g. `workspace-agent run` on the same session
    assert ours.total == 4
    assert [e["seq"] for e in ours.page(4, 10)] == [0, 1, 2, 3]


def test_whole_outputs_are_found_by_tool_call(tmp_path: Path):
    history = HistoryFile(tmp_path, "s1")
    short = {"kind": "toolResult", "toolUseId": "t1", "output": "ok", "seq": 0, "run": 1}
    cut = {"kind": "toolResult", "toolUseId": "t2", "output": "he … il", "seq": 1, "run": 1}
    history.append([short, cut])
    history.add_output("t2", "head and tail")
    assert history.output("t1") == "ok"
    assert history.output("t2") == "head and tail"
    assert history.output("t3") is None


def test_a_page_that_begins_inside_a_run_comes_with_that_runs_prompt(tmp_path: Path):
    """After a reload the newest page may begin mid-run: the run's runStart comes with it
    (found through the index, written or read back), so the view shows its prompt first."""
    lines: list[dict[str, object]] = [
        {"kind": "runStart", "prompt": "first task", "seq": 0, "run": 1},
        *entries(1, 3, run=1),
        {"kind": "revert", "message": "took back 1 file", "seq": 4, "run": 1},
        {"kind": "runStart", "prompt": "second task", "seq": 5, "run": 2},
        # A tool's input that reads like a runStart is not one.
        {"kind": "toolCall", "input": {"kind": "runStart"}, "seq": 6, "run": 2},
        *entries(7, 5, run=2),
    ]
    written = HistoryFile(tmp_path, "s1")
    written.append(lines)
    read_back = HistoryFile(tmp_path, "s1")  # as after a restart: the index from a scan
    for history in (written, read_back):
        pages = Pages(history)
        newest = pages.get(limit=3)  # seq 9..11, inside run 2
        assert newest["runStart"]["prompt"] == "second task"
        assert newest["runStart"]["seq"] == 5
        assert "runStart" not in pages.get(before=12, limit=7)  # begins with run 2's start
        assert pages.get(before=6, limit=3)["entries"][0]["kind"] == "notice"
        assert pages.get(before=6, limit=3)["runStart"]["prompt"] == "first task"
        assert "runStart" not in pages.get(before=5, limit=1)  # a revert between runs
        assert "runStart" not in pages.get(before=4, limit=10)  # from the start


class Pages:
    """workspaceAgent/history's result over one history file."""

    def __init__(self, history: HistoryFile) -> None:
        self.history = history

    def file(self, session_id: str) -> HistoryFile:
        return self.history

    def get(self, before: int | None = None, limit: int = 200) -> dict[str, Any]:
        cursor = None if before is None else f"{CURSOR_PREFIX}{before}"
        return history_page(self, HistoryParams("s1", cursor, limit))  # type: ignore[arg-type]
