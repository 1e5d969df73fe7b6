"""The checkpoint journal names its format on its first line (`"format": 1`), as the
session store does: a journal without it (written before) reads as format 1, and one of a
newer format is refused with a message that says what to do, never read or appended to.
The golden journal (tests/golden/) reads, writes back byte for byte and gives the golden
changes notification."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from workspace_agent.checkpoints.history import changes_payload
from workspace_agent.checkpoints.timeline import (
    JOURNAL_FORMAT,
    JournalFormatError,
    Record,
    Timeline,
)
from workspace_agent.shared.errors import CheckpointError

from tests.support.journal import no_stats

GOLDEN = Path(__file__).resolve().parents[2] / "golden"
JOURNAL = GOLDEN / "checkpoint-journal.jsonl"


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def test_a_new_journal_starts_with_its_format_and_counts_only_records(tmp_path: Path):
    timeline = Timeline(tmp_path / "s.jsonl")
    assert timeline.append(Record("run", tree="t", at=1.0)) == 0
    assert timeline.append(Record("item", todo_id="1", at=2.0)) == 1
    timeline.close()
    assert lines(tmp_path / "s.jsonl") == [
        {"kind": "journal", "format": JOURNAL_FORMAT},
        {"kind": "run", "at": 1.0, "tree": "t"},
        {"kind": "item", "at": 2.0, "todoId": "1"},
    ]
    again = Timeline(tmp_path / "s.jsonl")
    assert [r.kind for r in again.records] == ["run", "item"]


def test_a_journal_without_a_format_is_format_1_and_stays_as_it_was(tmp_path: Path):
    old = tmp_path / "s.jsonl"
    old.write_text('{"kind":"run","at":1.0,"tree":"t"}\n', "utf-8")
    timeline = Timeline(old)
    assert [r.kind for r in timeline.records] == ["run"]
    timeline.append(Record("item", todo_id="1", at=2.0))
    timeline.close()
    assert [line["kind"] for line in lines(old)] == ["run", "item"]  # no header mid-file


@pytest.mark.parametrize("found", [JOURNAL_FORMAT + 1, "2"])
def test_a_journal_of_a_newer_format_is_refused_and_left_alone(tmp_path: Path, found: object):
    newer = tmp_path / "s.jsonl"
    text = json.dumps({"kind": "journal", "format": found}) + '\n{"kind":"run","at":1.0}\n'
    newer.write_text(text, "utf-8")
    with pytest.raises(JournalFormatError) as refused:
        Timeline(newer)
    assert isinstance(refused.value, CheckpointError)  # the LSP answers RequestFailed
    message = str(refused.value)
    assert "recorded by a newer Workspace Agent" in message
    assert "update Workspace Agent" in message
    assert f"this one reads format {JOURNAL_FORMAT}" in message
    assert newer.read_text("utf-8") == text


def test_the_golden_journal_reads_and_writes_back_byte_for_byte(tmp_path: Path):
    records = Timeline(JOURNAL).records
    assert [r.kind for r in records] == [
        "run", "item", "tool", "tool", "item", "tool", "backup", "revert", "undo"
    ]  # fmt: skip
    copy = Timeline(tmp_path / "s.jsonl")
    for record in records:
        copy.append(record)
    copy.close()
    assert (tmp_path / "s.jsonl").read_bytes() == JOURNAL.read_bytes()


def test_the_golden_journal_gives_the_golden_changes_notification(tmp_path: Path):
    shutil.copyfile(JOURNAL, tmp_path / "s1.jsonl")
    payload = {"sessionId": "s1", **changes_payload(Timeline(tmp_path / "s1.jsonl"), no_stats)}
    golden = json.loads((GOLDEN / "notifications" / "changes.json").read_text("utf-8"))
    assert [payload] == golden
