"""The watcher-driven scan against a full one, over random sequences of file operations on
a real git repository (real git, real inotify, real bwrap for the operations run through
the `bash` tool's sandbox): create, edit, delete, rename, chmod, a file turned into a
folder and back, in nested folders. After each changing call the store's tree (its scan
asked git's fsmonitor hook, answered from inotify) is the tree of a full `git add -A` of
the same workspace, tree id for tree id; a verification scan then finds no watcher miss.

The same with the watcher's queue overflowing (events dropped, then the kernel's
overflow marker) and with a watch limit of 10: scans fall back to full ones, it is said
once, and the trees are still equal."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workspace_agent.checkpoints import quicklook
from workspace_agent.checkpoints.inotify_feed import LIMIT_REASON, OVERFLOW_REASON, InotifyFeed
from workspace_agent.checkpoints.store import CheckpointStore

from tests.support.git import git

MAX = 1_000_000
FOLDERS = ["", "a/", "a/b/", "a/b/c/", "d/"]
NAMES = ["f", "g h", "t.log", "k"]
"""t.log: the repository's .gitignore leaves it out."""


@dataclass(frozen=True)
class Op:
    kind: str
    folder: str
    name: str
    other: str
    """The rename's target folder."""
    data: str
    mode: int
    sandboxed: bool

    def command(self) -> str:
        path = shlex.quote(self.folder + self.name)
        parent = shlex.quote(self.folder or ".")
        target = shlex.quote(self.other + self.name + "2")
        return {
            "create": f"mkdir -p {parent} && printf %s {shlex.quote(self.data)} > {path}",
            "edit": f"[ -f {path} ] && printf %s {shlex.quote(self.data)} >> {path}",
            "delete": f"rm -rf {path}",
            "rename": f"mkdir -p {shlex.quote(self.other or '.')} && mv {path} {target}",
            "chmod": f"chmod {self.mode:o} {path}",
            "to_folder": f"rm -rf {path} && mkdir -p {path}/in && echo x > {path}/in/y",
            "to_file": f"rm -rf {path} && mkdir -p {parent} && echo was-a-folder > {path}",
            "mkdirs": f"mkdir -p {path}/deep/er && echo z > {path}/deep/er/z",
        }[self.kind] + " || true"


operations = st.lists(
    st.builds(
        Op,
        st.sampled_from(
            ["create", "edit", "delete", "rename", "chmod", "to_folder", "to_file", "mkdirs"]
        ),
        st.sampled_from(FOLDERS),
        st.sampled_from(NAMES),
        st.sampled_from(FOLDERS),
        st.sampled_from(["1", "two\n", ""]),
        st.sampled_from([0o644, 0o755, 0o600]),
        st.booleans(),
    ),
    min_size=1,
    max_size=6,
)


@contextlib.contextmanager
def every_scan_watched() -> Iterator[None]:
    """The watcher stands in for the small-tree stat snapshot (quicklook), which would
    otherwise answer for a tree this small."""
    limit, quicklook.LIMIT = quicklook.LIMIT, -1
    try:
        yield
    finally:
        quicklook.LIMIT = limit


def repository(base: Path) -> Path:
    root = base / "ws"
    (root / "a" / "b" / "c").mkdir(parents=True)
    (root / "d").mkdir()
    for folder in FOLDERS:
        (root / folder / "f").write_text(f"{folder} f\n")
    (root / ".gitignore").write_text("*.log\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    return root


def full_tree(store: CheckpointStore) -> str:
    """The workspace's tree from a fresh index: every file read, no watcher."""
    index = store.git.git_dir / "full.index"
    index.unlink(missing_ok=True)
    env = {k: v for k, v in store.git.env.items() if not k.startswith(("GIT_CONFIG_", "WA_"))}
    env.update(GIT_INDEX_FILE=str(index), GIT_CONFIG_NOSYSTEM="1")
    for args in (["add", "-A"], ["write-tree"]):
        done = subprocess.run(
            ["git", *args], cwd=store.root, env=env, capture_output=True, check=True, text=True
        )
    return done.stdout.strip()


class Sandbox:
    """Commands through the real `bash` tool with the sandbox required."""

    def __init__(self, root: Path) -> None:
        from workspace_agent.config import AgentSettings
        from workspace_agent.guard.approvals import NO_GRANTS, Approvals
        from workspace_agent.shared.todo import TodoList
        from workspace_agent.tools.base import ToolContext

        values = {"sandbox_mode": "required", "api_key": "sk-test"}
        self.ctx = ToolContext(
            root,
            replace(AgentSettings(), **values),  # type: ignore[arg-type]
            TodoList(),
            Approvals({"bash": "allow", "write": "allow"}, None, grants=NO_GRANTS),
            session_id="watch-property",
        )

    def run(self, command: str) -> None:
        from workspace_agent.tools.bash import BASH

        async def run() -> object:
            return await BASH.handler(self.ctx, {"command": command})

        answer = asyncio.run(run())
        assert not isinstance(answer, str), answer
        assert getattr(answer, "sandboxed", False), answer


def apply(op: Op, root: Path, sandbox: Sandbox) -> None:
    if op.sandboxed:
        sandbox.run(op.command())
    else:
        subprocess.run(["bash", "-c", op.command()], cwd=root, check=True, capture_output=True)


def check_sequence(ops: list[Op], how: str) -> None:
    said: list[str] = []
    with tempfile.TemporaryDirectory(prefix="wa-watch-") as base, every_scan_watched():
        root = repository(Path(base))
        store = CheckpointStore(root)
        try:
            store.refresh_excludes()
            feed = InotifyFeed(root, max_watches=10 if how == "limit" else None)
            feed.said = said.append
            store.watch(feed)
            sandbox = Sandbox(root)
            store.scan(MAX)
            assert store.write_tree() == full_tree(store)
            for n, op in enumerate(ops):
                if how == "overflow" and n % 2 == 0:
                    overflow(feed, lambda op=op: apply(op, root, sandbox))  # type: ignore[misc]
                else:
                    apply(op, root, sandbox)
                store.scan(MAX)
                assert store.write_tree() == full_tree(store), (op, n)
            assert store.verify() == []
            assert store.watcher_misses == 0
        finally:
            feed.close()
            store.close()
    if how == "normal":
        assert said == []
    elif how == "overflow":
        assert said == [f"checkpoints: a full scan of this workspace: {OVERFLOW_REASON}"]
    elif said:  # the limit is hit once the operations make folders enough
        assert said == [f"checkpoints: full scans in this workspace: {LIMIT_REASON}"]


def overflow(feed: InotifyFeed, change: object) -> None:
    """What the kernel does when the queue is full: the change's events are dropped and
    an IN_Q_OVERFLOW event (wd -1) comes instead."""
    from inotify_simple import Event, flags

    with feed._events:  # the feed's reader waits meanwhile
        change()  # type: ignore[operator]
        while feed._inotify.read(timeout=0):
            pass  # dropped
        feed._take([Event(-1, flags.Q_OVERFLOW, 0, "")])


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=operations)
def test_watched_scans_equal_full_scans(sandbox_works: None, ops: list[Op]) -> None:
    check_sequence(ops, "normal")


@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=operations, how=st.sampled_from(["overflow", "limit"]))
def test_overflow_and_watch_limit_fall_back_to_full_scans(
    sandbox_works: None, ops: list[Op], how: str
) -> None:
    check_sequence(ops, how)


def test_a_watch_limit_of_ten_is_said_once_and_scans_stay_right(sandbox_works: None) -> None:
    """Explicitly past the limit: twelve folders made by one command."""
    made = Op("mkdirs", "d/", "m", "", "", 0o644, False)
    many = [replace(made, name=f"m{n}") for n in range(4)]
    check_sequence(many, "limit")


def test_the_watcher_leaves_the_users_git_folder_and_the_store_alone(tmp_path: Path) -> None:
    root = repository(tmp_path)
    store = CheckpointStore(root)
    feed = InotifyFeed(root)
    try:
        store.watch(feed)
        store.scan(MAX)
        watched = set(feed._wds)
        assert not any(p.startswith((".git/", ".workspace-agent/checkpoints/")) for p in watched)
        assert {"", "a/", "a/b/", "a/b/c/", "d/"} <= watched
        at = feed.position()
        os.utime(root / ".git" / "HEAD")
        (root / ".workspace-agent" / "checkpoints" / "x").write_text("ours")
        (root / "d" / "new").write_text("theirs")
        feed.sync()
        assert feed.since(at) == ["d/new"]
    finally:
        feed.close()
        store.close()
