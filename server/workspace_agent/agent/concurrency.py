"""Which tool calls of one answer may run side by side: the rule, kept out of the loop.

A model answer may hold several tool_use blocks. Calls that change nothing (Tool.read_only:
read_file, an MCP tool its server marks readOnlyHint) gain by overlapping: a slow read or
a remote server does not hold the others up. Calls that may change something run one at
a time in the model's order, each alone, so what they do, what the observers record
(checkpoints) and which plan step they belong to are what the model asked for. A run of
consecutive read-only calls is a group, run side by side (at most MAX_CONCURRENT at once);
a changing call is a group of its own; groups run in order, so a write stays after the
reads the model put before it and before those it put after. Results keep the model's
order, whatever order the calls end in.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

Call = TypeVar("Call")
Result = TypeVar("Result")

MAX_CONCURRENT = 4
"""Read-only calls of one answer running at once (each may hold a file or an MCP request)."""


def groups(calls: Sequence[Call], side_by_side: Callable[[Call], bool]) -> list[list[Call]]:
    """The calls in order, cut into groups: maximal runs of consecutive calls that may run
    side by side, and every other call alone."""
    found: list[list[Call]] = []
    for call in calls:
        if side_by_side(call) and found and side_by_side(found[-1][0]):
            found[-1].append(call)
        else:
            found.append([call])
    return found


async def run_in_groups(
    calls: Sequence[Call],
    side_by_side: Callable[[Call], bool],
    run: Callable[[Call], Awaitable[Result]],
    done: list[tuple[Call, Result]],
    limit: int = MAX_CONCURRENT,
) -> list[Result]:
    """Run every call by `groups`; return the results in the calls' order. Each result is
    also added to `done` as its call ends, so a cancel leaves there what was answered;
    on a cancel, the calls of the group under way are cancelled and awaited (each reports
    its own end) before the cancel goes on."""
    results: dict[int, Result] = {}
    position = {id(call): n for n, call in enumerate(calls)}
    gate = asyncio.Semaphore(limit)

    async def one(call: Call) -> None:
        async with gate:
            result = await run(call)
        results[position[id(call)]] = result
        done.append((call, result))

    for group in groups(calls, side_by_side):
        if len(group) == 1:
            await one(group[0])
            continue
        tasks = [asyncio.ensure_future(one(call)) for call in group]
        try:
            await asyncio.gather(*tasks)
        except BaseException:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
    return [results[n] for n in range(len(calls))]
