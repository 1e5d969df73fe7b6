"""A background command's writes in the journal (issue 46): a `tool` record marked
`background`, under the call that started it, that reads back as written; history puts
its files under that call's step; a revert to a checkpoint takes them back only when the
command was started after it."""

from __future__ import annotations

from pathlib import Path

from workspace_agent.checkpoints.history import history_of
from workspace_agent.checkpoints.objects import Entry
from workspace_agent.checkpoints.timeline import (
    Change,
    Record,
    Timeline,
    background_starts,
    taken_back,
)

A, B = Entry("100644", "a" * 40), Entry("100644", "b" * 40)


def test_background_records_read_back_and_go_to_the_step_that_started_the_command(
    tmp_path: Path,
):
    timeline = Timeline(tmp_path / "s.jsonl")
    records = [
        Record("run", tree="t" * 40, prompt="go", plan=[]),
        Record("item", todo_id="1", text="Start it"),
        Record("tool", todo_id="1", text="Start it", tool="bash", tool_use_id="u1", command="w"),
        Record("item", todo_id="2", text="Edit"),
        Record(
            "tool",
            todo_id="1",
            text="Start it",
            tool="bash",
            tool_use_id="u1",
            changes=[Change("gen/stamp.txt", None, A)],
            background=True,
        ),
        Record(
            "tool",
            todo_id="2",
            text="Edit",
            tool="edit_file",
            tool_use_id="u2",
            changes=[Change("src/a.py", A, B)],
        ),
    ]
    for record in records:
        timeline.append(record)
    again = Timeline(tmp_path / "s.jsonl")
    assert [r.background for r in again.records] == [False] * 4 + [True, False]

    listed = history_of(again).listed
    assert [(i.todo_id, sorted(i.files)) for i in listed] == [
        ("1", ["gen/stamp.txt"]),
        ("2", ["src/a.py"]),
    ]
    assert [command for command, _, _ in listed[0].commands] == ["w"]  # listed once

    starts = background_starts(again.records)
    assert starts == {"u1": 2}
    watcher = again.records[4]
    assert taken_back(watcher, 1, starts)  # to before step 1: it started after that
    assert not taken_back(watcher, 3, starts)  # to before step 2: an earlier step's
