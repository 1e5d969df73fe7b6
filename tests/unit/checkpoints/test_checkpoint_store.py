"""The checkpoint store on its own: a private git repository and index beside a real
workspace (real git processes), what it records, what it leaves out, its size."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from workspace_agent.checkpoints.bulk import BulkStore
from workspace_agent.checkpoints.linediff import line_stats
from workspace_agent.checkpoints.objects import blob_id
from workspace_agent.checkpoints.store import FOLDER, CheckpointStore
from workspace_agent.checkpoints.timeline import Change, Record

from tests.support.git import git
from tests.support.journal import items_of

MAX = 1_000_000


def tree_digest(folder: Path) -> dict[str, str]:
    """Every file under `folder` (symlinks as their target) by its content hash."""
    digest = {}
    for dirpath, _dirs, files in os.walk(folder):
        for name in files:
            path = Path(dirpath) / name
            rel = str(path.relative_to(folder))
            if path.is_symlink():
                digest[rel] = "link:" + os.readlink(path)
            else:
                digest[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digest


def finish(store: CheckpointStore, session_id: str) -> None:
    """A run's end and the process's: the store brought up to date, packed and pruned."""
    store.finish_run(session_id)
    assert store.upkeep()
    store.last_upkeep()


def changes_of(store: CheckpointStore) -> dict[str, tuple[str | None, str | None]]:
    """What a scan found, as {path: (sha before, sha after)}."""
    scan = store.scan(MAX)
    return {
        c.path: (c.before.sha if c.before else None, c.after.sha if c.after else None)
        for c in scan.changes
    }


def test_a_workspace_without_git_gets_checkpoints(tmp_path: Path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("x = 1\n")
    (tmp_path / "README.md").write_text("# hi\n")
    store = CheckpointStore(tmp_path)

    assert changes_of(store) == {
        "README.md": (None, blob_id(b"# hi\n")),
        "src/app.py": (None, blob_id(b"x = 1\n")),
    }
    assert changes_of(store) == {}  # nothing changed since

    (tmp_path / "src" / "app.py").write_text("x = 2\n")
    (tmp_path / "README.md").unlink()
    (tmp_path / "src" / "new.py").write_text("y = 1\n")
    assert changes_of(store) == {
        "src/app.py": (blob_id(b"x = 1\n"), blob_id(b"x = 2\n")),
        "README.md": (blob_id(b"# hi\n"), None),
        "src/new.py": (None, blob_id(b"y = 1\n")),
    }
    listing = store.git.run("ls-tree", "-r", "--name-only", store.write_tree()).decode()
    assert listing.split() == ["src/app.py", "src/new.py"]
    assert store.git.run("cat-file", "blob", f"{store.write_tree()}:src/app.py") == b"x = 2\n"
    assert store.objects.read_blob(blob_id(b"y = 1\n")) == b"y = 1\n"
    assert not (tmp_path / ".git").exists()


def test_gitignore_the_default_excludes_and_the_store_itself_are_left_out(tmp_path: Path):
    (tmp_path / ".gitignore").write_text("*.log\nsecret/\n")
    (tmp_path / "app.log").write_text("noise\n")
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "key.txt").write_text("k\n")
    for folder in ("node_modules/pkg", "build/lib", "dist", "__pycache__", "env-py/bin"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "f.txt").write_text("generated\n")
    (tmp_path / "env-py" / "pyvenv.cfg").write_text("home = /usr\n")  # a venv by any name
    (tmp_path / "main.py").write_text("print()\n")
    store = CheckpointStore(tmp_path)
    store.refresh_excludes()

    assert set(changes_of(store)) == {".gitignore", "main.py"}
    assert (tmp_path / FOLDER / "repo").is_dir()  # the store is in the workspace...
    (tmp_path / "build" / "lib" / "more.txt").write_text("x\n")
    assert changes_of(store) == {}  # ...and never records itself or ignored output


def test_a_gitignore_line_brings_a_default_exclude_back(tmp_path: Path):
    (tmp_path / ".gitignore").write_text("!build/\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "script.sh").write_text("echo\n")
    store = CheckpointStore(tmp_path)
    store.refresh_excludes()
    assert set(changes_of(store)) == {".gitignore", "build/script.sh"}


def test_the_users_repository_exclude_file_is_honoured_and_never_written(tmp_path: Path):
    git(tmp_path, "init", "-q")
    (tmp_path / ".git" / "info" / "exclude").write_text("local-only.txt\n")
    (tmp_path / "local-only.txt").write_text("mine\n")
    (tmp_path / "tracked.txt").write_text("t\n")
    before = tree_digest(tmp_path / ".git")
    store = CheckpointStore(tmp_path)
    store.refresh_excludes()
    assert set(changes_of(store)) == {"tracked.txt"}
    assert tree_digest(tmp_path / ".git") == before


def test_files_over_the_size_limit_are_named_as_skipped(tmp_path: Path):
    (tmp_path / "big.bin").write_bytes(b"x" * 2000)
    (tmp_path / "small.txt").write_text("s\n")
    store = CheckpointStore(tmp_path)

    scan = store.scan(1000)
    assert [c.path for c in scan.changes] == ["small.txt"]
    assert scan.skipped == [
        ("big.bin", "larger than maxFileBytes (2,000 bytes > 1,000); not checkpointed")
    ]
    assert store.scan(1000).skipped == []  # said once...
    os.utime(tmp_path / "big.bin", ns=(1, 1))
    assert [p for p, _ in store.scan(1000).skipped] == ["big.bin"]  # ...and again on a change


def test_nested_repositories_are_scanned_with_their_own_index_and_left_alone(tmp_path: Path):
    outer = tmp_path / "vendor" / "lib"
    inner = outer / "plugins" / "deep"
    for repo in (outer, inner):
        repo.mkdir(parents=True)
        git(repo, "init", "-q")
    (outer / "lib.py").write_text("v = 1\n")
    (outer / ".gitignore").write_text("*.tmp\n")
    (outer / "junk.tmp").write_text("ignored by the nested repository's own .gitignore\n")
    (inner / "deep.py").write_text("d = 1\n")
    (tmp_path / "top.py").write_text("t = 1\n")
    git(outer, "add", "lib.py")
    git(outer, "commit", "-qm", "lib", "--no-verify")
    before = {repo: tree_digest(repo / ".git") for repo in (outer, inner)}
    store = CheckpointStore(tmp_path)

    assert set(changes_of(store)) == {  # lib.py: as in vendor/lib's index (seed.py)
        "top.py",
        "vendor/lib/.gitignore",
        "vendor/lib/plugins/deep/deep.py",
    }
    (outer / "lib.py").write_text("v = 2\n")  # what a command inside it does
    (inner / "deep.py").unlink()
    (outer / "new.py").write_text("n\n")
    assert changes_of(store) == {
        "vendor/lib/lib.py": (blob_id(b"v = 1\n"), blob_id(b"v = 2\n")),
        "vendor/lib/plugins/deep/deep.py": (blob_id(b"d = 1\n"), None),
        "vendor/lib/new.py": (None, blob_id(b"n\n")),
    }
    store.write_tree()
    finish(store, "s")  # the nested indexes are written and kept
    assert changes_of(store) == {}
    (outer / "lib.py").write_text("v = 3\n")
    assert changes_of(store) == {"vendor/lib/lib.py": (blob_id(b"v = 2\n"), blob_id(b"v = 3\n"))}
    for repo in (outer, inner):
        assert tree_digest(repo / ".git") == before[repo]  # never renamed, never written


def test_content_is_stored_byte_for_byte_whatever_gitattributes_say(tmp_path: Path):
    (tmp_path / ".gitattributes").write_text("*.txt text eol=crlf filter=lfs\n")
    data = b"line one\r\nline two\n\xff\xfe latin\r\n"
    (tmp_path / "mixed.txt").write_bytes(data)
    store = CheckpointStore(tmp_path)
    changes = changes_of(store)
    assert changes["mixed.txt"] == (None, blob_id(data))
    assert store.objects.read_blob(blob_id(data)) == data
    assert changes_of(store) == {}  # git sees the same bytes: no phantom change


def test_files_the_agent_wrote_are_not_reported_again_by_the_next_scan(tmp_path: Path):
    (tmp_path / "a.py").write_text("old\n")
    store = CheckpointStore(tmp_path)
    store.scan(MAX)
    (tmp_path / "a.py").write_text("new\n")
    seen = store.observe("a.py", MAX, None)
    store.record_written(Change("a.py", None, seen.entry), seen.signature)
    assert changes_of(store) == {}
    (tmp_path / "a.py").write_text("NEW\n")  # the same size, by a command, at once
    assert changes_of(store) == {"a.py": (blob_id(b"new\n"), blob_id(b"NEW\n"))}
    (tmp_path / "a.py").unlink()  # a command deletes the file the agent wrote
    assert changes_of(store) == {"a.py": (blob_id(b"NEW\n"), None)}


def test_many_files_at_once_go_into_one_pack_and_say_how_far_they_are(tmp_path: Path):
    for n in range(600):
        (tmp_path / f"f{n:03d}.txt").write_text(f"file {n}\n")
    (tmp_path / "run.sh").write_text("#!/bin/sh\n")
    (tmp_path / "run.sh").chmod(0o755)
    (tmp_path / "link").symlink_to("f000.txt")
    store = CheckpointStore(tmp_path)
    heard: list[tuple[int, int]] = []
    scan = store.scan(MAX, progress=lambda done, total: heard.append((done, total)))
    entries = {c.path: c.after for c in scan.changes}
    assert len(entries) == 602
    assert entries["f599.txt"].sha == blob_id(b"file 599\n")
    assert entries["run.sh"].mode == "100755" and entries["f000.txt"].mode == "100644"
    assert entries["link"].mode == "120000" and entries["link"].sha == blob_id(b"f000.txt")
    assert heard[0] == (0, 601) and heard[-1] == (601, 601)  # the regular files; the link
    # is stored on its own
    objects = store.git.git_dir / "objects"
    loose = [p for p in objects.glob("??/*")]
    assert len(loose) <= 3, loose  # the link, and the tree and commit of HEAD
    assert len(list((objects / "pack").glob("*.pack"))) == 1
    assert not list((objects / "pack").glob("*.keep"))  # the index names them now
    assert store.objects.read_blob(entries["f123.txt"].sha) == b"file 123\n"
    assert changes_of(store) == {}


def test_a_bulk_pack_survives_a_repack_until_the_index_names_it(tmp_path: Path):
    for n in range(150):  # fast-import leaves fewer than 100 objects loose
        (tmp_path / f"f{n}.txt").write_text(f"file {n}\n")
    store = CheckpointStore(tmp_path)
    bulk = BulkStore(store.git, store.root)
    stored = bulk.store([f"f{n}.txt" for n in range(150)], MAX)
    sha = stored["f7.txt"].entry.sha
    store.git.run("repack", "-a", "-d", "-q")  # another process's upkeep: nothing names it
    assert store.objects.read_blob(sha) == b"file 7\n"
    bulk.release()
    store.git.run("repack", "-a", "-d", "-q")
    missing = store.git.run("cat-file", "--batch-check", stdin=f"{sha}\n".encode())
    assert missing.decode().strip() == f"{sha} missing"  # released: packing may drop it


def _session(store: CheckpointStore, session_id: str, edits: int, size: int) -> None:
    path = store.root / f"{session_id}.dat"
    timeline = store.timeline(session_id)
    timeline.append(Record("run", tree=store.write_tree()))
    for n in range(edits):  # one plan item per edit: every version is a checkpoint
        timeline.append(Record("item", todo_id=str(n)))
        path.write_bytes(os.urandom(size))  # incompressible: each version costs `size`
        scan = store.scan(MAX)
        timeline.append(Record("tool", todo_id=str(n), tool="bash", changes=scan.changes))
    timeline.append(Record("item", todo_id="last"))
    path.unlink()
    timeline.append(Record("tool", todo_id="last", tool="bash", changes=store.scan(MAX).changes))
    finish(store, session_id)


def test_the_oldest_sessions_are_pruned_when_the_store_outgrows_its_limit(tmp_path: Path):
    store = CheckpointStore(tmp_path)
    for session_id in ("old", "middle", "new"):
        _session(store, session_id, edits=3, size=200_000)
    total = store.size()
    assert total > 1_800_000
    kept_blob = store.timeline("new").records[2].changes[0].after
    assert kept_blob is not None

    dropped = store.prune(total - 500_000, keep={"new"})

    assert dropped == ["old"]  # oldest first, and only as many as needed
    assert store.size() <= total - 500_000
    assert not (tmp_path / FOLDER / "sessions" / "old.jsonl").exists()
    assert store.objects.read_blob(kept_blob.sha)  # what the kept session needs is there
    assert store.prune(10, keep={"new"}) == ["middle"]  # never the session in `keep`
    assert (tmp_path / FOLDER / "sessions" / "new.jsonl").exists()
    assert store.objects.read_blob(kept_blob.sha)
    assert store.prune(store.size(), keep=set()) == []  # within the limit: nothing to do


def test_many_edits_of_a_big_file_cost_their_deltas_not_copies(tmp_path: Path):
    lines = [f"{n:06d} {os.urandom(24).hex()}\n".encode() for n in range(4000)]  # ~220 KB
    path = tmp_path / "big.txt"
    path.write_bytes(b"".join(lines))
    store = CheckpointStore(tmp_path)
    timeline = store.timeline("s")
    timeline.append(Record("run", tree=store.write_tree(), changes=store.scan(MAX).changes))
    finish(store, "s")
    start = store.size()
    changed = 0
    for n in range(30):
        new_line = f"{n:06d} edited {os.urandom(30).hex()}\n".encode()
        lines[n * 100] = new_line
        changed += len(new_line)
        path.write_bytes(b"".join(lines))
        seen = store.observe("big.txt", MAX, None)
        change = Change("big.txt", None, seen.entry)
        store.record_written(change)
        timeline.append(Record("tool", todo_id="1", tool="edit_file", changes=[change]))
    finish(store, "s")
    growth = store.size() - start
    print(f"growth {growth} for {changed} changed bytes")
    assert growth < 3 * changed + 30 * 600, growth  # deltas (+ a tree and ref per edit)


def test_line_counts():
    assert line_stats(None, b"a\nb\n") == (2, 0, False)
    assert line_stats(b"a\nb\n", None) == (0, 2, False)
    assert line_stats(b"a\nb\nc\n", b"a\nB\nc\nd\n") == (2, 1, False)
    assert line_stats(b"a\nb", b"a\nb\n") == (1, 1, False)  # the missing last newline
    assert line_stats(b"\x00\x01", b"\x00\x02") == (0, 0, True)
    assert line_stats(b"x\n", b"x\n") == (0, 0, False)


def test_items_follow_the_plan_item_in_progress(tmp_path: Path):
    store = CheckpointStore(tmp_path)
    timeline = store.timeline("s")
    a1, a2, b1 = (
        store.objects.write_blob(b"a1\n"),
        store.objects.write_blob(b"a2\na\n"),
        store.objects.write_blob(b"b\n"),
    )
    from workspace_agent.checkpoints.objects import Entry

    e = lambda sha: Entry("100644", sha)  # noqa: E731
    timeline.append(Record("tool", todo_id=None, tool="bash", command="make", exit_code=2))
    timeline.append(
        Record("tool", todo_id="1", tool="write_file", changes=[Change("a", None, e(a1))])
    )
    timeline.append(
        Record(
            "tool",
            todo_id="2",
            tool="bash",
            command="gen",
            exit_code=0,
            changes=[Change("b", None, e(b1))],
        )
    )
    timeline.append(
        Record("tool", todo_id="1", tool="edit_file", changes=[Change("a", e(a1), e(a2))])
    )
    timeline.append(
        Record(
            "tool",
            todo_id="2",
            tool="bash",
            command="rm b",
            exit_code=0,
            changes=[Change("b", e(b1), None)],
        )
    )

    items = {item.todo_id: item for item in items_of(timeline)}
    assert list(items) == [None, "1", "2"]
    assert items[None].commands == [("make", 2, None)] and not items[None].changed_files()
    (a,) = items["1"].changed_files()
    assert (a.path, a.change, a.before, a.after) == ("a", "added", None, e(a2))
    assert items["2"].changed_files() == []  # created then deleted: nothing left to show
    assert items["2"].commands == [("gen", 0, None), ("rm b", 0, None)]


def test_what_a_run_cut_short_recorded_survives_packing_and_pruning(tmp_path: Path):
    (tmp_path / "f.txt").write_text("one\n")
    crashed = CheckpointStore(tmp_path)
    timeline = crashed.timeline("crashed")
    timeline.append(Record("run", tree=crashed.write_tree(), changes=crashed.scan(MAX).changes))
    timeline.append(Record("item", todo_id="1"))
    (tmp_path / "f.txt").write_text("two\n")
    timeline.append(Record("tool", todo_id="1", tool="bash", changes=crashed.scan(MAX).changes))
    crashed.close()  # the process died before the run's end

    (tmp_path / "f.txt").write_text("three\n")
    store = CheckpointStore(tmp_path)
    other = store.timeline("other")
    other.append(Record("run", tree=store.write_tree(), changes=store.scan(MAX).changes))
    finish(store, "other")  # packs and prunes what nothing names (alone: right away)

    assert not list((store.git.git_dir / "objects").glob("??/*"))  # all loose objects went
    for text in (b"one\n", b"two\n", b"three\n"):
        assert store.objects.read_blob(blob_id(text)) == text


def test_file_names_with_tabs_and_newlines_are_kept_through_packing(tmp_path: Path):
    name = "odd\tname\nwith breaks.txt"
    (tmp_path / name).write_text("first\n")
    store = CheckpointStore(tmp_path)
    timeline = store.timeline("s")
    timeline.append(Record("run", tree=store.write_tree(), changes=store.scan(MAX).changes))
    timeline.append(Record("item", todo_id="1"))
    (tmp_path / name).write_text("second\n")
    timeline.append(Record("tool", todo_id="1", tool="bash", changes=store.scan(MAX).changes))
    (tmp_path / name).write_text("third\n")  # the store's index moves on
    timeline.append(Record("item", todo_id="2"))
    timeline.append(Record("tool", todo_id="2", tool="bash", changes=store.scan(MAX).changes))
    finish(store, "s")
    for text in (b"first\n", b"second\n", b"third\n"):
        assert store.objects.read_blob(blob_id(text)) == text


LINE = st.sampled_from([b"a\n", b"b\n", b"ab\n", b"\n", b"x", b"\r\n", b"y y\n"])


@given(st.lists(LINE, max_size=12), st.lists(LINE, max_size=12))
def test_line_counts_add_up_to_the_difference_in_lines(old_lines, new_lines):
    old, new = b"".join(old_lines), b"".join(new_lines)
    additions, deletions, binary = line_stats(old, new)
    count = lambda data: data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)  # noqa: E731
    assert not binary
    assert additions - deletions == count(new) - count(old)
    assert 0 <= additions <= count(new) and 0 <= deletions <= count(old)
    assert line_stats(old, old) == (0, 0, False)


def test_a_small_tree_that_did_not_change_is_checked_without_git(tmp_path: Path):
    (tmp_path / "a.txt").write_text("abc\n")
    (tmp_path / "build").mkdir()
    store = CheckpointStore(tmp_path)
    store.refresh_excludes()
    store.scan(MAX)
    calls: list[tuple[str, ...]] = []
    real_run = store.git.run

    def counting(*args: str, **kw: object) -> bytes:
        calls.append(args)
        return real_run(*args, **kw)  # type: ignore[arg-type]

    store.git.run = counting  # type: ignore[method-assign]
    assert changes_of(store) == {} and calls == []  # nothing moved: no git at all

    before = os.stat(tmp_path / "a.txt")
    (tmp_path / "a.txt").write_text("xyz\n")  # same size...
    os.utime(tmp_path / "a.txt", ns=(before.st_atime_ns, before.st_mtime_ns))  # ...same mtime
    assert changes_of(store) == {"a.txt": (blob_id(b"abc\n"), blob_id(b"xyz\n"))}  # ctime moved
    assert any("status" in args for args in calls)

    (tmp_path / "build" / "out.o").write_bytes(b"\0")  # ignored: git is asked, nothing found
    assert changes_of(store) == {}
    (tmp_path / "new.txt").write_text("n\n")
    assert changes_of(store) == {"new.txt": (None, blob_id(b"n\n"))}


def test_a_glance_tells_an_unchanged_small_tree_and_leaves_every_change_to_the_scan(
    tmp_path: Path,
):
    """The look the event loop makes before a command while a background command runs:
    True only when not one stat moved since the last scan; it takes nothing away from
    the scan after it (the change is still found), and cannot tell for a large tree or
    while another thread has the store."""
    import threading

    from workspace_agent.checkpoints.quicklook import LIMIT

    (tmp_path / "a.txt").write_text("abc\n")
    store = CheckpointStore(tmp_path)
    store.refresh_excludes()
    assert not store.unchanged_at_a_glance()  # no scan yet: nothing to compare with
    store.scan(MAX)
    assert store.unchanged_at_a_glance()

    before = os.stat(tmp_path / "a.txt")
    (tmp_path / "a.txt").write_text("xyz\n")  # same size and mtime: only the ctime moves
    os.utime(tmp_path / "a.txt", ns=(before.st_atime_ns, before.st_mtime_ns))
    assert not store.unchanged_at_a_glance()
    assert not store.unchanged_at_a_glance()  # a glance does not take the change in
    assert changes_of(store) == {"a.txt": (blob_id(b"abc\n"), blob_id(b"xyz\n"))}
    assert store.unchanged_at_a_glance()

    (tmp_path / "gen").mkdir()  # a new folder, empty: its parent's stat moved
    assert not store.unchanged_at_a_glance()
    store.scan(MAX)
    assert store.unchanged_at_a_glance()

    taken, release = threading.Event(), threading.Event()

    def hold() -> None:
        with store.lock:
            taken.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert taken.wait(10)
        assert not store.unchanged_at_a_glance()  # busy elsewhere: it cannot tell
    finally:
        release.set()
        holder.join()

    for n in range(LIMIT + 1):
        (tmp_path / f"f{n}").write_text("x")
    store.scan(MAX)
    assert not store.unchanged_at_a_glance()  # a large tree has no snapshot: git decides


def test_a_large_tree_is_left_to_git(tmp_path: Path):
    from workspace_agent.checkpoints.quicklook import LIMIT, QuickLook

    for n in range(LIMIT + 1):
        (tmp_path / f"f{n}").write_text("x")
    assert QuickLook(tmp_path, ".workspace-agent").take() is None
    (tmp_path / "f0").unlink()
    assert QuickLook(tmp_path, ".workspace-agent").take() is not None


def test_a_process_leaves_a_few_loose_objects_unpacked_and_packs_many(tmp_path: Path):
    """Packing on every exit cost more than a short run; objects stay loose (and safe)
    until enough piled up, then `leave` packs and prunes them."""
    (tmp_path / "small.txt").write_text("one\n")
    store = CheckpointStore(tmp_path)
    timeline = store.timeline("s")
    changes = store.scan(MAX).changes  # as the observer does: the scan, then the tree
    timeline.append(Record("run", tree=store.write_tree(), changes=changes))
    (tmp_path / "small.txt").write_text("two\n")
    timeline.append(Record("tool", todo_id="1", tool="bash", changes=store.scan(MAX).changes))
    store.finish_run("s")
    store.leave()
    objects = store.git.git_dir / "objects"
    assert list(objects.glob("??/*")) and not list(objects.glob("pack/*.pack"))

    big = os.urandom(2 << 20)  # more content than PACK_AT_END_BYTES, as loose objects
    (tmp_path / "big.bin").write_bytes(big)
    timeline.append(Record("tool", todo_id="1", tool="bash", changes=store.scan(20 << 20).changes))
    assert store.needs_packing(at_end=True) and not store.needs_packing()  # not mid-run
    store.finish_run("s")
    store.leave()
    assert not list(objects.glob("??/*")) and list(objects.glob("pack/*.pack"))
    assert not store.needs_packing(at_end=True)
    for content in (b"one\n", b"two\n", big):
        assert store.objects.read_blob(blob_id(content)) == content


def test_the_store_config_written_in_one_go_is_what_git_reads(tmp_path: Path):
    store = CheckpointStore(tmp_path)

    def value(key: str) -> str:
        return store.git.run("config", "--get", key).decode().strip()

    assert [value(k) for k in ("core.bare", "core.autocrlf", "core.looseCompression")] == [
        "false",
        "false",
        "1",
    ]
    assert [value(k) for k in ("gc.auto", "index.version", "pack.depth")] == ["0", "4", "250"]
    assert store.git.run("rev-parse", "--is-bare-repository").decode().strip() == "false"


def test_a_blob_lands_when_a_prune_removes_its_empty_folder_meanwhile(tmp_path: Path, monkeypatch):
    """Packing and pruning run beside the object writer; git removes the object folders
    it emptied, possibly between the writer making one and creating its file there."""
    import tempfile

    from workspace_agent.checkpoints import objects as objects_module

    store = CheckpointStore(tmp_path)
    real_mkstemp = tempfile.mkstemp
    removed: list[str] = []

    def mkstemp_after_a_prune(*args, **kwargs):
        folder = Path(kwargs["dir"])
        if not removed:
            folder.rmdir()  # what `git prune` does to an emptied folder
            removed.append(folder.name)
        return real_mkstemp(*args, **kwargs)

    monkeypatch.setattr(objects_module.tempfile, "mkstemp", mkstemp_after_a_prune)
    sha = store.objects.write_blob(b"kept through the race\n")
    store.objects.settle()
    assert removed == [sha[:2]]
    assert (store.git.git_dir / "objects" / sha[:2] / sha[2:]).is_file()
    assert store.git.run("cat-file", "blob", sha) == b"kept through the race\n"
