"""The watcher is never trusted blindly: a change it did not report is found by the
verification scan (logged and counted as a miss, and the next scan is full), and an
editor whose watcher stops answering leaves the scans full, said once."""

from __future__ import annotations

from pathlib import Path

import pytest

from workspace_agent.checkpoints import client_feed, quicklook
from workspace_agent.checkpoints.changefeed import ChangeFeed
from workspace_agent.checkpoints.client_feed import ClientFeed
from workspace_agent.checkpoints.store import CheckpointStore

from tests.support.git import git

MAX = 1_000_000


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(quicklook, "LIMIT", -1)  # the feed answers even for a tiny tree
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "f").write_text("one\n")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "start")
    return tmp_path


def test_a_change_the_watcher_missed_is_found_counted_and_then_scanned(repo: Path) -> None:
    feed = ChangeFeed()  # a watcher that reports only what the test notes
    store = CheckpointStore(repo)
    try:
        store.watch(feed)
        store.scan(MAX)  # the first scan is full
        (repo / "a" / "f").write_text("two\n")
        feed.note(["a/f"])
        assert [c.path for c in store.scan(MAX).changes] == ["a/f"]
        (repo / "a" / "f").write_text("three\n")  # not reported
        (repo / "b").write_text("new\n")  # not reported
        assert store.scan(MAX).changes == []  # trusted: nothing changed
        assert store.verify() == ["a/f", "b"]
        assert store.watcher_misses == 2
        assert sorted(c.path for c in store.scan(MAX).changes) == ["a/f", "b"]  # full
        assert store.verify() == []
        assert store.watcher_misses == 2
    finally:
        store.close()


def test_an_editor_watcher_that_stops_answering_leaves_full_scans_said_once(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(client_feed, "COOKIE_WAIT", 0.05)
    said: list[str] = []
    feed = ClientFeed(repo)
    feed.said = said.append
    store = CheckpointStore(repo)
    try:
        store.watch(feed)
        store.scan(MAX)
        for n in range(2):
            (repo / "a" / "f").write_text(f"v{n}\n")
            assert [c.path for c in store.scan(MAX).changes] == ["a/f"]
        assert said == [
            "checkpoints: full scans in this workspace: the editor's file watcher did not "
            "answer within 0.05 s"
        ]
        assert not feed.usable
        assert not any((repo / ".workspace-agent/checkpoints/cookies").iterdir())
    finally:
        store.close()


def test_an_editor_watcher_still_starting_costs_a_full_scan_and_a_late_batch_one_more(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The editor starts its watcher when the registration reaches it: a first cookie
    written before that is missed silently (that scan is full); once it has answered, one
    late batch makes one full scan, said, and the feed is still used."""
    monkeypatch.setattr(client_feed, "COOKIE_WAIT", 0.05)
    said: list[str] = []
    feed = ClientFeed(repo)
    feed.said = said.append
    store = CheckpointStore(repo)
    answer = lambda n: feed.events([(f"{feed._prefix}{n}", False)])  # noqa: E731
    try:
        store.watch(feed)
        store.scan(MAX)
        (repo / "a" / "f").write_text("v1\n")
        assert [c.path for c in store.scan(MAX).changes] == ["a/f"]  # cookie 2 missed: full
        assert said == [] and feed.usable
        (repo / "a" / "f").write_text("v2\n")
        feed.events([("a/f", False)])
        answer(3)
        assert [c.path for c in store.scan(MAX).changes] == ["a/f"]  # from the events
        (repo / "b").write_text("new\n")
        assert [c.path for c in store.scan(MAX).changes] == ["b"]  # cookie 4 late: full
        assert said == [
            "checkpoints: a full scan of this workspace: the editor's file watcher did not "
            "answer within 0.05 s"
        ]
        assert feed.usable
    finally:
        store.close()


def test_a_file_changed_again_is_checked_without_git(repo: Path) -> None:
    """The scan after the first change of a file runs git status; a file whose entry the
    store wrote is checked again by itself (its stat, then its content)."""
    feed = ChangeFeed()
    store = CheckpointStore(repo)
    ran: list[str] = []
    run = store.git.run

    def counted(*args: str, **kwargs: object) -> bytes:
        ran.append(next(a for a in args if not a.startswith("-") and "=" not in a))
        return run(*args, **kwargs)  # type: ignore[arg-type]

    try:
        store.watch(feed)
        store.scan(MAX)
        store.git.run = counted  # type: ignore[method-assign]
        for n in range(3):
            ran.clear()
            (repo / "a" / "f").write_text(f"v{n}\n")
            feed.note(["a/f"])
            changes = store.scan(MAX).changes
            assert [(c.path, c.before is not None) for c in changes] == [("a/f", True)]
            assert ("status" in ran) is (n == 0), ran
        feed.note(["a/f"])  # a stat change only (the content as stored)
        assert store.scan(MAX).changes == []
        (repo / "a" / "f").unlink()
        feed.note(["a/f"])
        assert [(c.path, c.after) for c in store.scan(MAX).changes] == [("a/f", None)]
        assert "status" not in ran
    finally:
        store.close()


def test_a_gitignore_changed_again_lets_git_look_beside_it(repo: Path) -> None:
    """A .gitignore the store knows still goes through git: what it stops leaving out
    (a file no watcher event names) is found."""
    (repo / "a" / ".gitignore").write_text("*.log\n")
    (repo / "a" / "x.log").write_text("log\n")
    feed = ChangeFeed()
    store = CheckpointStore(repo)
    try:
        store.watch(feed)
        store.scan(MAX)
        (repo / "a" / ".gitignore").write_text("*.log\n# still\n")
        feed.note(["a/.gitignore"])
        assert [c.path for c in store.scan(MAX).changes] == ["a/.gitignore"]
        (repo / "a" / ".gitignore").write_text("")
        feed.note(["a/.gitignore"])
        assert sorted(c.path for c in store.scan(MAX).changes) == ["a/.gitignore", "a/x.log"]
    finally:
        store.close()


def test_an_idle_store_is_verified_now_and_then_and_a_miss_is_counted(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The service's verification while no run goes on (every 3 minutes; here at once)."""
    import asyncio

    from workspace_agent.checkpoints import service

    monkeypatch.setattr(service, "VERIFY_EVERY", 0.01)
    feed = ChangeFeed()

    async def feeds(root: Path) -> ChangeFeed:
        return feed

    async def scenario() -> int:
        checkpoints = service.Checkpoints()
        checkpoints.feeds = feeds
        handle = await checkpoints.handle(repo, watch=True)
        await handle.run(handle.store.scan, MAX)
        (repo / "a" / "f").write_text("unreported\n")
        for _ in range(500):  # the loop's turns, not a timing: it runs every 10 ms
            if handle.store.watcher_misses:
                break
            await asyncio.sleep(0.01)
        await checkpoints.shutdown()
        handle.store.close()
        return handle.store.watcher_misses

    assert asyncio.run(scenario()) == 1
