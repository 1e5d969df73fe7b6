"""What the user is told about a long first checkpoint scan (checkpoints/preparing.py):
nothing for a quick one, then reports about every second, a wait once, and the end."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from workspace_agent.checkpoints import preparing as module
from workspace_agent.checkpoints.preparing import Milestones, Preparing


async def test_a_quick_scan_says_nothing_and_a_long_one_reports_waits_and_ends(monkeypatch):
    heard: list[dict[str, Any]] = []
    prep = Preparing(asyncio.get_running_loop(), lambda kind, **fields: heard.append(fields))
    prep.progress(0, 1000)
    prep.progress(400, 1000)  # storing began this instant: not yet worth telling
    await asyncio.sleep(0)
    assert heard == [] and not prep.shown

    clock = [time.monotonic()]
    monkeypatch.setattr(module.time, "monotonic", lambda: clock[0])
    clock[0] += module.NOTICEABLE + 4  # storing has gone on long enough
    prep.progress(500, 1000)
    prep.progress(600, 1000)  # less than a second after: not again
    await asyncio.sleep(0)
    assert heard == [
        {
            "stored": 500,
            "total": 1000,
            "ready": False,
            "message": "Preparing checkpoints: 500 of 1,000 files",
        }
    ]
    prep.waiting("bash")
    prep.waiting("write_file")  # said once
    clock[0] += module.EVERY
    prep.progress(900, 1000)
    await asyncio.sleep(0)  # handed to the loop before the scan's end is
    prep.finished()
    await asyncio.sleep(0)
    assert [e["message"] for e in heard[1:]] == [
        "Preparing checkpoints: 600 of 1,000 files (bash waits for it)",
        "Preparing checkpoints: 900 of 1,000 files (bash waits for it)",
        f"Checkpoints ready: 1,000 files stored in {module.NOTICEABLE + 4 + module.EVERY:.0f} s",
    ]
    assert heard[1]["waiting"] == "bash" and heard[-1]["ready"] and "waiting" not in heard[-1]


async def test_a_wait_before_any_file_is_counted_says_so():
    heard: list[dict[str, Any]] = []
    prep = Preparing(asyncio.get_running_loop(), lambda kind, **fields: heard.append(fields))
    prep.waiting("edit_file")
    prep.finished()
    assert [e["message"] for e in heard] == [
        "Preparing checkpoints: looking for the workspace's files (edit_file waits for it)",
        "Checkpoints ready: the workspace's files looked at in 0 s",
    ]


def test_a_line_for_the_first_report_the_first_wait_and_the_end_of_each_session():
    lines = Milestones()
    report = {"stored": 1, "total": 9, "ready": False}
    wait = {**report, "waiting": "bash"}
    ready = {"stored": 9, "total": 9, "ready": True}
    said = [
        lines.worth_a_line(session, fields)
        for session, fields in [
            ("a", report), ("a", report), ("b", wait), ("a", wait), ("a", wait), ("a", ready),
            ("b", wait), ("b", ready), ("b", ready),
        ]
    ]  # fmt: skip
    assert said == [True, False, True, True, False, True, False, True, False]


async def test_a_held_scan_waits_at_its_first_report_until_a_call_waits_for_it(monkeypatch):
    """What the integration tests rely on (HOLD_ENV): the wait is told whatever the
    machine's speed, with how much there is to store."""
    monkeypatch.setenv(module.HOLD_ENV, "1")
    heard: list[dict[str, Any]] = []
    prep = Preparing(asyncio.get_running_loop(), lambda kind, **fields: heard.append(fields))
    worker = asyncio.create_task(asyncio.to_thread(prep.progress, 0, 1000))
    await asyncio.sleep(0.2)
    assert not worker.done() and heard == []  # held
    prep.waiting("write_file")
    await asyncio.wait_for(worker, 5)
    assert [e["message"] for e in heard] == [
        "Preparing checkpoints: 0 of 1,000 files (write_file waits for it)"
    ]


async def test_a_held_scan_tells_a_wait_that_came_before_the_count_with_the_count(monkeypatch):
    monkeypatch.setenv(module.HOLD_ENV, "1")
    heard: list[dict[str, Any]] = []
    prep = Preparing(asyncio.get_running_loop(), lambda kind, **fields: heard.append(fields))
    prep.waiting("bash")  # the files are still being listed
    assert heard == []
    await asyncio.wait_for(asyncio.to_thread(prep.progress, 0, 500), 5)  # not held
    await asyncio.sleep(0)
    assert [e["message"] for e in heard] == [
        "Preparing checkpoints: 0 of 500 files (bash waits for it)"
    ]


def test_a_scan_that_is_not_held_never_waits(monkeypatch):
    monkeypatch.delenv(module.HOLD_ENV, raising=False)
    loop = asyncio.new_event_loop()
    prep = Preparing(loop, lambda kind, **fields: None)
    began = time.monotonic()
    prep.progress(0, 1000)
    assert time.monotonic() - began < 0.1
    loop.close()
