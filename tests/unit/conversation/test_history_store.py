"""The history file on its own: entries keep their place, a torn last line (a crash
mid-write) is never served and is cut off before the next entry, and a file another
process appended to is read again."""

from __future__ import annotations

import json
from pathlib import Path

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
