"""The rule for calls side by side: maximal runs of read-only calls overlap (bounded),
every other call runs alone in order; results keep the calls' order; a cancel mid-group
waits for the group's calls to end and leaves what was answered."""

from __future__ import annotations

import asyncio

import pytest

from workspace_agent.agent.concurrency import groups, run_in_groups


def test_reads_group_and_each_change_is_alone():
    calls = ["r1", "r2", "w1", "r3", "w2", "w3", "r4", "r5", "r6"]
    assert groups(calls, lambda c: c.startswith("r")) == [
        ["r1", "r2"],
        ["w1"],
        ["r3"],
        ["w2"],
        ["w3"],
        ["r4", "r5", "r6"],
    ]


async def test_results_keep_the_order_and_at_most_the_limit_run_at_once():
    running: list[str] = []
    most = 0
    release = asyncio.Event()

    async def run(call: str) -> str:
        nonlocal most
        running.append(call)
        most = max(most, len(running))
        if len(running) == 2:
            release.set()
        await release.wait()
        await asyncio.sleep(0)
        running.remove(call)
        return call.upper()

    calls = ["c", "b", "a", "e", "d"]
    done: list[tuple[str, str]] = []
    assert await run_in_groups(calls, lambda _: True, run, done, limit=2) == [
        "C",
        "B",
        "A",
        "E",
        "D",
    ]
    assert most == 2 and sorted(done) == sorted(zip(calls, "CBAED", strict=True))


async def test_a_cancel_waits_for_the_group_and_keeps_what_was_answered():
    ended: list[str] = []
    all_started = asyncio.Event()

    async def run(call: str) -> str:
        try:
            if call != "quick":
                if call == "slower":
                    all_started.set()
                await asyncio.Event().wait()
            return call
        finally:
            ended.append(call)

    done: list[tuple[str, str]] = []
    task = asyncio.ensure_future(run_in_groups(["quick", "slow", "slower"], bool, run, done))
    await all_started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert done == [("quick", "quick")]
    assert sorted(ended) == ["quick", "slow", "slower"]  # each call saw its own end
