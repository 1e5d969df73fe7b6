"""A background command's output file (tools/output_log.py): readers keep their place by
offsets that count every byte written, the file keeps the last LOG_CAP bytes and says
what a reader lost, its meta file reads back after a reload, and a folder that cannot be
written keeps the output in memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from workspace_agent.tools import output_log
from workspace_agent.tools.output_log import OutputLog


def test_a_reader_gets_what_came_after_its_place_and_what_was_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(output_log, "LOG_CAP", 100)
    monkeypatch.setattr(output_log, "TRIM_AT", 150)
    log = OutputLog(tmp_path / "s.background", "b1")
    log.open()
    log.append(b"first line\n")
    text, offset, lost = log.read(0, 1000)
    assert (text, offset, lost) == ("first line\n", 11, 0)
    log.append(b"x" * 150 + b"\nlast line\n")
    text, end, lost = log.read(offset, 1000)
    assert text.endswith("x\nlast line\n") and end == 172 and lost == 72 - 11
    assert (tmp_path / "s.background" / "b1.log").stat().st_size == 100
    assert log.tail(1) == ["last line"]
    assert log.read(end, 1000) == ("", 172, 0)


def test_its_meta_reads_back_with_the_offsets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(output_log, "LOG_CAP", 10)
    monkeypatch.setattr(output_log, "TRIM_AT", 12)
    folder = tmp_path / "s.background"
    log = OutputLog(folder, "b2")
    log.open()
    log.append(b"0123456789abcdef")
    log.save_meta({"id": "b2", "command": "make watch"})
    log.close()
    again = OutputLog.existing(folder, "b2")
    assert again.load_meta() == {"id": "b2", "command": "make watch", "dropped": 6}
    assert (again.total, again.dropped) == (16, 6)
    assert again.read(10, 100) == ("abcdef", 16, 0)


def test_a_folder_that_cannot_be_written_keeps_it_in_memory(tmp_path: Path):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    log = OutputLog(blocked / "s.background", "b1")
    log.open()
    log.append(b"still here\n")
    assert log.problem is not None and "in memory only" in log.problem
    assert log.read(0, 100) == ("still here\n", 11, 0)
