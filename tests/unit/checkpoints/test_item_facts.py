"""What the changes payload tells a view of each occurrence (checkpoints/item_facts.py),
from journals written record by record: its name, whether a revert to before it has
anything to take back (and why not), and which row of the current plan shows it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workspace_agent.checkpoints.history import changes_payload
from workspace_agent.checkpoints.item_facts import display_name
from workspace_agent.checkpoints.objects import Entry
from workspace_agent.checkpoints.timeline import Change, Record, Timeline

from tests.support.journal import no_stats

NO_ITEM = object()
"""No item made a call yet in this run."""


def entry(name: str) -> Entry:
    return Entry("100644", name.ljust(40, "0"))


class Journal:
    """Records as the checkpoint observer writes them, with the files' contents named."""

    def __init__(self, tmp_path: Path) -> None:
        self.timeline = Timeline(tmp_path / "s.jsonl")
        self.now: dict[str, Entry | None] = {}
        self.item: object = NO_ITEM

    def run(self, *plan: tuple[str, str, str]) -> None:
        record = Record("run", tree="t", prompt="p")
        record.plan = [{"id": i, "text": t, "status": s} for i, t, s in plan]
        self.timeline.append(record)
        self.item = NO_ITEM

    def tool(self, todo_id: str | None, text: str | None, **files: str | None) -> None:
        """A call under `todo_id` that leaves each file with that content (None: gone)."""
        if self.item != todo_id:  # the item's first call of the run: its checkpoint
            self.timeline.append(Record("item", todo_id=todo_id, text=text))
            self.item = todo_id
        changes = []
        for name, content in files.items():
            path = name.replace("_", ".")
            after = entry(content) if content is not None else None
            changes.append(Change(path, self.now.get(path), after))
            self.now[path] = after
        record = Record("tool", todo_id=todo_id, tool="bash", text=text, changes=changes)
        record.command, record.exit_code = "make", 0
        self.timeline.append(record)

    def user(self, **files: str | None) -> None:
        """Someone else changed files (seen by the next scan, before a plan item)."""
        changes = []
        for name, content in files.items():
            path = name.replace("_", ".")
            after = entry(content) if content is not None else None
            changes.append(Change(path, self.now.get(path), after))
            self.now[path] = after
        self.timeline.append(Record("scan", changes=changes))

    def payload(self, *plan: tuple[str, str]) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = changes_payload(self.timeline, no_stats, plan)["items"]
        return items


def test_names_are_the_same_wording_everywhere():
    assert display_name("2", "Format the code") == 'plan item #2 "Format the code"'
    assert display_name("2", None) == "plan item #2"
    assert display_name("2", "  \n") == "plan item #2"
    assert display_name(None, None) == "the changes made before the plan"
    assert display_name("4", "x" * 80) == f'plan item #4 "{"x" * 49}…"'
    assert display_name("5", "First line\nand more") == 'plan item #5 "First line"'


def test_the_payload_names_each_occurrence_by_its_latest_text(tmp_path: Path):
    journal = Journal(tmp_path)
    journal.run()
    journal.tool(None, None, look_txt="1")
    journal.tool("1", "Parse", p_py="1")
    journal.tool("1", "Parse the input", p_py="2")  # reworded while worked on
    names = [item["displayName"] for item in journal.payload()]
    assert names == ["the changes made before the plan", 'plan item #1 "Parse the input"']


def test_revertible_when_a_file_the_agent_changed_from_there_on_is_not_as_it_was(
    tmp_path: Path,
):
    journal = Journal(tmp_path)
    journal.run()
    journal.tool("1", "Write the app", app_py="1")
    journal.tool("2", "Scratch", tmp_txt="1")
    journal.tool("3", "Tidy", tmp_txt=None, app_py="2")  # 2's scratch file goes
    journal.tool("3", "Tidy", app_py="1")  # and app.py is back as 3 found it
    journal.tool("4", "Run the tests")  # commands only: it changed no file
    got = {item["todoId"]: item for item in journal.payload()}

    assert got["1"]["revertible"] is True and "notRevertibleReason" not in got["1"]
    # From 2 on: tmp.txt created and deleted, app.py changed and put back: nothing.
    assert got["2"]["revertible"] is False
    assert got["2"]["notRevertibleReason"] == (
        'the agent\'s changes from plan item #2 "Scratch" on left every file as it was before it'
    )
    assert got["3"]["revertible"] is True  # it deleted tmp.txt: a revert brings it back
    assert got["4"]["revertible"] is False
    assert got["4"]["notRevertibleReason"] == (
        'the agent changed no files from plan item #4 "Run the tests" on'
    )


def test_a_later_step_makes_an_earlier_one_revertible_and_other_peoples_changes_count_as_then(
    tmp_path: Path,
):
    journal = Journal(tmp_path)
    journal.run()
    journal.tool("1", "Run the tests")
    journal.tool("2", "Write it", a_py="1")
    journal.user(b_py="mine")  # the user's file, before the agent's next step
    journal.tool("3", "Touch b", b_py="agent")
    journal.tool("4", "Put b back", b_py="mine")
    got = {item["todoId"]: item["revertible"] for item in journal.payload()}
    # 1 changed nothing itself, but a revert to before it deletes 2's a.py; 3 and 4 left
    # b.py as the user had it before 3, while before 4 it was the agent's.
    assert got == {"1": True, "2": True, "3": False, "4": True}


def test_rows_show_the_latest_occurrence_of_their_step_and_others_are_earlier(tmp_path: Path):
    journal = Journal(tmp_path)
    journal.run()
    journal.tool(None, None, look_txt="1")
    journal.tool("1", "Write the parser", parser_py="1")
    journal.tool("2", "Add tests", test_py="1")
    journal.run(("1", "Write the parser", "completed"), ("2", "Add tests", "completed"))
    journal.tool(None, None, look_txt="2")
    journal.tool("1", "Switch to commas", parser_py="2")
    journal.tool("2", "Add tests", test_py="2")

    def rows(*plan: tuple[str, str]) -> list[tuple[Any, ...]]:
        return [(i["todoId"], i["planRow"], i["shown"]) for i in journal.payload(*plan)]

    second = ("1", "Switch to commas"), ("2", "Add  tests")  # whitespace aside
    assert rows(*second) == [
        (None, None, False),  # run 1's "before the plan": an earlier one
        ("1", None, False),  # a step of the replaced plan
        ("2", "Add  tests", False),  # the same step, done again since: earlier
        (None, None, True),
        ("1", "Switch to commas", True),
        ("2", "Add  tests", True),
    ]
    # Against the first plan: row 1 is not run 2's "1", so it shows nothing; run 1's "1"
    # is that row's step but an earlier occurrence of its id.
    first = ("1", "Write the parser"), ("2", "Add tests")
    assert rows(*first)[1:3] + rows(*first)[4:] == [
        ("1", "Write the parser", False),
        ("2", "Add tests", False),
        ("1", None, False),
        ("2", "Add tests", True),
    ]
    assert [shown for _id, _row, shown in rows()] == [False, False, False, True, False, False]


def test_a_row_shows_a_step_reworded_while_worked_on_and_a_step_of_an_old_journal(
    tmp_path: Path,
):
    journal = Journal(tmp_path)
    journal.run()
    journal.tool("1", "Write the parser", p_py="1")
    journal.tool("1", "Write the parser module", p_py="2")
    journal.tool("2", None, q_py="1")  # no text recorded (an old journal)
    got = journal.payload(("1", "Write the parser module"), ("2", "Anything"))
    assert [(i["planRow"], i["shown"]) for i in got] == [
        ("Write the parser module", True),
        ("Anything", True),
    ]
