"""A checkpoint journal written record by record, as the checkpoint observer writes it,
for tests of what the history makes of it (items, occurrences, the changes payload)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workspace_agent.checkpoints.history import ItemHistory, history_of
from workspace_agent.checkpoints.objects import Entry
from workspace_agent.checkpoints.timeline import Change, Record, Timeline


def items_of(timeline: Timeline) -> list[ItemHistory]:
    """The timeline's item occurrences in the order of their first workspace-changing call."""
    return list(history_of(timeline).listed)


def entry(name: str) -> Entry:
    return Entry("100644", name.ljust(40, "0"))


def no_stats(before: Entry | None, after: Entry | None) -> tuple[int, int, bool]:
    return (1, 0, False)


class Journal:
    """Writes the records the checkpoint observer writes, in its order."""

    def __init__(self, tmp_path: Path, old: bool = False) -> None:
        self.timeline = Timeline(tmp_path / "s.jsonl")
        self.old = old
        self.version = 0

    def run(self, prompt: str, *plan: tuple[str, str, str]) -> None:
        record = Record("run", tree="t")
        if not self.old:
            record.prompt = prompt
            record.plan = [{"id": i, "text": t, "status": s} for i, t, s in plan]
        self.timeline.append(record)

    def call(self, todo_id: str | None, text: str | None, path: str, new_item: bool) -> None:
        text = None if self.old else text
        if new_item:
            self.timeline.append(Record("item", todo_id=todo_id, text=text))
        self.version += 1
        change = Change(path, None, entry(str(self.version)))
        record = Record("tool", todo_id=todo_id, tool="write_file", text=text, changes=[change])
        self.timeline.append(record)

    def items(self) -> list[tuple[Any, ...]]:
        return [(i.todo_id, i.text, i.run, sorted(i.files)) for i in items_of(self.timeline)]
