"""Which plan item occurrence each change belongs to (checkpoints/history.py), from
journals written record by record: ids reused by a new plan, a step picked up again, a
step reworded while it is worked on, "before the plan" per run, and old journals."""

from __future__ import annotations

from pathlib import Path

from workspace_agent.checkpoints.history import changes_payload, find_item
from workspace_agent.checkpoints.timeline import Timeline

from tests.support.journal import Journal, items_of, no_stats


def test_a_new_plan_reusing_ids_starts_new_items(tmp_path: Path):
    journal = Journal(tmp_path)
    journal.run("first")
    journal.call(None, None, "look", True)
    journal.call("1", "Parse", "p.py", True)
    journal.call("2", "Test", "t.py", True)
    journal.call("1", "Parse", "p2.py", True)  # back to 1 in the same run: the same item
    journal.run("second", ("1", "Parse", "completed"), ("2", "Test", "completed"))
    journal.call(None, None, "look2", True)  # "before the plan" is one per run
    journal.call("1", "Document", "d.md", True)  # another text: another item
    journal.call("2", "Test", "t.py", True)  # a completed step's words again: done again

    assert journal.items() == [
        (None, None, 1, ["look"]),
        ("1", "Parse", 1, ["p.py", "p2.py"]),
        ("2", "Test", 1, ["t.py"]),
        (None, None, 2, ["look2"]),
        ("1", "Document", 2, ["d.md"]),
        ("2", "Test", 2, ["t.py"]),
    ]
    keys = [item.key for item in items_of(journal.timeline)]
    assert len(set(keys)) == 6
    latest_one = find_item(journal.timeline, "1")
    assert latest_one is not None and latest_one.text == "Document"
    first_one = find_item(journal.timeline, "1", keys[1])
    assert first_one is not None and first_one.text == "Parse"
    # Each occurrence's checkpoint is its own item record.
    records = journal.timeline.records
    assert records[first_one.anchor].kind == "item" and records[first_one.anchor].text == "Parse"
    assert records[latest_one.anchor].text == "Document"

    payload = changes_payload(journal.timeline, no_stats)
    assert [r["prompt"] for r in payload["runs"]] == ["first", "second"]
    assert payload["lastRun"] == 2


def test_an_unfinished_step_goes_on_in_the_next_run(tmp_path: Path):
    journal = Journal(tmp_path)
    journal.run("first")
    journal.call("1", "Parse", "p.py", True)
    journal.run("continue", ("1", "Parse  ", "in_progress"), ("2", "Test", "pending"))
    journal.call("1", "Parse", "p2.py", True)
    journal.call("2", "Test", "t.py", True)
    journal.run("again", ("1", "Parse", "pending"), ("2", "Test", "in_progress"))
    journal.call("2", "Test", "t2.py", True)

    assert journal.items() == [
        ("1", "Parse", 1, ["p.py", "p2.py"]),
        ("2", "Test", 2, ["t.py", "t2.py"]),
    ]


def test_a_step_reworded_while_it_is_worked_on_stays_one_item(tmp_path: Path):
    journal = Journal(tmp_path)
    journal.run("first")
    journal.call("1", "Parse", "p.py", True)
    journal.call("1", "Parse  the input", "p.py", False)  # the model rewords it midway
    journal.call("2", "Test", "t.py", True)
    journal.call("1", "Parse the input", "q.py", True)  # back to it, by its new words

    assert journal.items() == [("1", "Parse", 1, ["p.py", "q.py"]), ("2", "Test", 1, ["t.py"])]
    first = changes_payload(journal.timeline, no_stats)["items"][0]
    assert (first["text"], first["lastText"]) == ("Parse", "Parse the input")
    assert "lastText" not in changes_payload(journal.timeline, no_stats)["items"][1]


def test_an_old_journal_has_one_item_per_id(tmp_path: Path):
    journal = Journal(tmp_path, old=True)
    journal.run("first")
    journal.call(None, None, "look", True)
    journal.call("1", "Parse", "p.py", True)
    journal.run("second")
    journal.call(None, None, "look2", True)
    journal.call("1", "Document", "d.md", True)

    assert journal.items() == [(None, None, 1, ["look", "look2"]), ("1", None, 1, ["d.md", "p.py"])]
    payload = changes_payload(journal.timeline, no_stats)
    assert payload["runs"] == [
        {"run": 1, "prompt": None, "startedAt": payload["runs"][0]["startedAt"]},
        {"run": 2, "prompt": None, "startedAt": payload["runs"][1]["startedAt"]},
    ]
    # Read back from the file, the same.
    again = Timeline(tmp_path / "s.jsonl")
    assert [(i.todo_id, sorted(i.files)) for i in items_of(again)] == [
        (None, ["look", "look2"]),
        ("1", ["d.md", "p.py"]),
    ]


def test_the_history_follows_the_journal_as_it_grows(tmp_path: Path):
    journal = Journal(tmp_path)
    journal.run("first")
    journal.call("1", "Parse", "p.py", True)
    assert journal.items() == [("1", "Parse", 1, ["p.py"])]
    journal.run("second", ("1", "Parse", "completed"))
    journal.call("1", "Lint", "l.py", True)
    assert journal.items() == [("1", "Parse", 1, ["p.py"]), ("1", "Lint", 2, ["l.py"])]
