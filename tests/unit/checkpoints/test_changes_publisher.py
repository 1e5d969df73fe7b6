"""The changes publisher on its own: leading and trailing sends, payloads built only when
sent, flush, and a payload that fails to build."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from workspace_agent.checkpoints.publisher import ChangesPublisher

LONG = 60.0
"""A window no test reaches by waiting: what falls in it is sent by a flush only."""


async def until(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    """Wait for `condition`, within a generous deadline."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not condition():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.005)


class Store:
    """A stand-in for the checkpoint store: a state that changes, and a count of how many
    payloads were built from it."""

    def __init__(self) -> None:
        self.state = 0
        self.built = 0
        self.sent: list[dict[str, Any]] = []
        self.gate: asyncio.Event | None = None

    async def payload(self) -> dict[str, Any] | None:
        self.built += 1
        state = self.state  # read when the build starts, as the store's lock would
        if self.gate is not None:
            await self.gate.wait()
        return {"state": state}

    def publisher(self, interval: float = LONG) -> ChangesPublisher:
        return ChangesPublisher(self.payload, self.sent.append, interval=interval)


async def test_the_first_change_is_sent_at_once_and_a_burst_folds_into_one_at_flush():
    store = Store()
    publisher = store.publisher()
    for state in range(1, 11):
        store.state = state
        await publisher.changed()
    assert store.sent == [{"state": 1}]  # the leading edge, before changed() returned
    assert store.built == 1  # the nine changes in the window built nothing yet

    await publisher.flush()

    assert store.sent == [{"state": 1}, {"state": 10}]
    assert store.built == 2
    await publisher.flush()  # nothing pending: nothing sent
    assert store.sent == [{"state": 1}, {"state": 10}]


async def test_the_trailing_send_comes_by_itself_at_the_end_of_the_window():
    store = Store()
    publisher = store.publisher(interval=0.05)
    store.state = 1
    await publisher.changed()
    store.state = 2
    await publisher.changed()
    store.state = 3
    await publisher.changed()
    assert store.sent == [{"state": 1}]

    await until(lambda: len(store.sent) == 2)

    assert store.sent == [{"state": 1}, {"state": 3}]
    assert store.built == 2
    await publisher.flush()
    assert len(store.sent) == 2


async def test_a_change_while_the_trailing_payload_is_built_is_sent_after_it():
    store = Store()
    publisher = store.publisher()
    await publisher.changed()  # leading: state 0
    store.state = 1
    await publisher.changed()  # pending
    store.gate = asyncio.Event()
    flushing = asyncio.ensure_future(publisher.flush())
    await until(lambda: store.built == 2)  # the trailing build started, and waits
    store.state = 2
    await publisher.changed()  # came after the build read the state: must not be lost
    store.gate.set()
    await flushing
    await publisher.flush()

    assert store.sent == [{"state": 0}, {"state": 1}, {"state": 2}]


async def test_a_payload_that_cannot_be_built_is_not_sent_and_the_next_one_is():
    store = Store()
    failing = True

    async def payload() -> dict[str, Any] | None:
        return None if failing else {"state": store.state}

    publisher = ChangesPublisher(payload, store.sent.append, interval=LONG)
    await publisher.changed()
    assert store.sent == []
    failing = False
    store.state = 5
    await publisher.changed()
    await publisher.flush()
    assert store.sent == [{"state": 5}]


async def test_a_send_cancelled_with_its_run_is_still_sent_by_the_flush():
    store = Store()
    publisher = store.publisher()
    store.gate = asyncio.Event()
    store.state = 1
    leading = asyncio.ensure_future(publisher.changed())
    await until(lambda: store.built == 1)
    leading.cancel()  # the run is cancelled while the payload is being built
    await asyncio.wait([leading])
    assert store.sent == []
    store.gate.set()

    await publisher.flush()

    assert store.sent == [{"state": 1}]
