"""A fresh store in a git work tree seeded from the user's index (seed.py): the first
scan hashes only what differs from it, the tree is the one a fresh index gives, the
user's `.git` is untouched, and a step's before-states survive the user's `gc`."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workspace_agent.checkpoints.objects import blob_id
from workspace_agent.checkpoints.store import FOLDER, CheckpointStore
from workspace_agent.checkpoints.timeline import Record

from tests.support.git import git

MAX = 1_000_000

NAMES = ["a.txt", "b.py", "run.sh", "src/c.txt", "src/deep/d.txt", "docs/e.md", "x.log"]


def make_repo(root: Path, files: dict[str, str]) -> None:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init", "--allow-empty")


def dot_git_facts(root: Path) -> dict[str, tuple[int, int]]:
    """Every file of the user's `.git`: (mtime in ns, size)."""
    facts = {}
    for folder, _dirs, files in os.walk(root / ".git"):
        for name in files:
            st = os.lstat(os.path.join(folder, name))
            facts[os.path.join(folder, name)] = (st.st_mtime_ns, st.st_size)
    return facts


def stored_objects(root: Path) -> int:
    repo = root / FOLDER / "repo"
    env = {"PATH": os.environ["PATH"], "GIT_DIR": str(repo)}
    out = subprocess.run(
        ["git", "count-objects", "-v"], env=env, capture_output=True, text=True, check=True
    ).stdout
    facts = dict(line.split(": ") for line in out.splitlines())
    return int(facts["count"]) + int(facts["in-pack"])


def first_scan(root: Path, seed: bool) -> tuple[set[str], str]:
    """A fresh store's first scan: the paths it reported and the workspace's tree."""
    shutil.rmtree(root / FOLDER.parts[0], ignore_errors=True)
    store = CheckpointStore(root, seed=seed)
    try:
        store.refresh_excludes()
        scan = store.scan(MAX)
        tree = store.write_tree()
        store.finish_run("s1")
        assert store.upkeep(everything=True)
        store.last_upkeep()
        return {c.path for c in scan.changes}, tree
    finally:
        store.close()


def test_the_first_scan_hashes_only_modified_and_untracked_files(tmp_path: Path):
    files = {f"pkg{i % 7}/m{i}.py": f"x = {i}\n" for i in range(300)}
    files[".gitignore"] = "*.log\n"
    make_repo(tmp_path, files)
    (tmp_path / "pkg1" / "m1.py").write_text("x = 'changed'\n")
    (tmp_path / "new.txt").write_text("new\n")
    (tmp_path / "debug.log").write_text("ignored\n")
    (tmp_path / "pkg2" / "m2.py").unlink()
    git(tmp_path, "gc", "-q")
    before = dot_git_facts(tmp_path)

    seeded, tree = first_scan(tmp_path, seed=True)

    assert seeded == {"pkg1/m1.py", "new.txt", "pkg2/m2.py"}
    assert stored_objects(tmp_path) < 20  # trees, a commit, 3 blobs: none of the user's
    assert dot_git_facts(tmp_path) == before  # not one file of .git written or touched
    fresh, fresh_tree = first_scan(tmp_path, seed=False)
    assert len(fresh) == 301  # every file hashed: 299 left, .gitignore, new.txt
    assert fresh_tree == tree


def test_a_before_state_survives_the_users_history_rewrite_and_gc(tmp_path: Path):
    make_repo(tmp_path, {"keep.txt": "original content\n", "other.txt": "o\n"})
    store = CheckpointStore(tmp_path)
    try:
        store.refresh_excludes()
        assert store.scan(MAX).changes == []
        timeline = store.timeline("s1")
        timeline.append(Record("run", tree=store.write_tree()))  # names other.txt's blob
        (tmp_path / "keep.txt").write_text("the agent's version\n")  # a command changed it
        [change] = store.scan(MAX).changes
        assert change.before is not None
        timeline.append(Record("tool", todo_id="1", tool="bash", changes=[change]))
        store.finish_run("s1")
        # The user rewrites history: the original blob is unreachable, then pruned.
        git(tmp_path, "checkout", "-q", "--orphan", "fresh")
        git(tmp_path, "add", "-A")
        git(tmp_path, "rm", "-q", "--cached", "other.txt")  # only our trees name it now
        git(tmp_path, "commit", "-qm", "rewritten")
        git(tmp_path, "branch", "-D", "main")
        git(tmp_path, "reflog", "expire", "--expire=now", "--all")
        git(tmp_path, "gc", "-q", "--prune=now")
        assert not has_object(tmp_path, change.before.sha)  # the user's repository lost it
        assert not has_object(tmp_path, blob_id(b"o\n"))
        assert store.upkeep(everything=True)  # packing does not stop at what the user lost
        store.last_upkeep()
        assert store.objects.read_blob(change.before.sha) == b"original content\n"
        (tmp_path / "keep.txt").write_text("again\n")
        assert [c.path for c in store.scan(MAX).changes] == ["keep.txt"]
        store.finish_run("s1")
        assert store.upkeep(everything=True)
    finally:
        store.close()


def has_object(root: Path, sha: str) -> bool:
    done = subprocess.run(["git", "cat-file", "-e", sha], cwd=root, capture_output=True)
    return done.returncode == 0


def test_a_repository_with_clean_filters_is_not_seeded(tmp_path: Path):
    make_repo(tmp_path, {".gitattributes": "*.bin filter=lfs diff=lfs\n", "a.txt": "a\n"})
    seeded, _tree = first_scan(tmp_path, seed=True)
    assert seeded == {".gitattributes", "a.txt"}  # hashed from disk, as without seeding


def test_a_nested_repository_is_seeded_from_its_own_index(tmp_path: Path):
    make_repo(tmp_path, {"top.txt": "top\n"})
    make_repo(tmp_path / "vendor" / "lib", {f"f{i}.c": f"int f{i};\n" for i in range(40)})
    (tmp_path / "vendor" / "lib" / "f3.c").write_text("int changed;\n")
    seeded, tree = first_scan(tmp_path, seed=True)
    assert seeded == {"vendor/lib/f3.c"}
    fresh, fresh_tree = first_scan(tmp_path, seed=False)
    assert len(fresh) == 41
    assert fresh_tree == tree


FILES = st.dictionaries(
    st.sampled_from(NAMES), st.sampled_from(["one\n", "two\n", "", "three\nlines\n"]), min_size=1
)
EDITS = st.lists(
    st.tuples(
        st.sampled_from([*NAMES, "new/n.txt", "u.log"]), st.sampled_from(["edit", "rm", "x"])
    ),
    max_size=6,
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(files=FILES, edits=EDITS, ignore_logs=st.booleans())
def test_a_seeded_first_scan_gives_the_tree_of_a_fresh_index(
    tmp_path_factory, files: dict[str, str], edits: list[tuple[str, str]], ignore_logs: bool
):
    root = tmp_path_factory.mktemp("repo")
    if ignore_logs:
        files = {**files, ".gitignore": "*.log\n"}
    make_repo(root, files)
    for name, what in edits:
        path = root / name
        if what == "rm":
            path.unlink(missing_ok=True)
        elif what == "x" and path.is_file():
            path.chmod(0o755)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"edited {name}\n")
    before = dot_git_facts(root)
    seeded, tree = first_scan(root, seed=True)
    assert dot_git_facts(root) == before
    _fresh, fresh_tree = first_scan(root, seed=False)
    assert fresh_tree == tree
    assert seeded <= {name for name, _ in edits}  # what changed, nothing else hashed


def test_entries_git_does_not_stat_are_hashed_again(tmp_path: Path):
    """assume-unchanged and skip-worktree entries would hide a change from our scan."""
    make_repo(tmp_path, {"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n"})
    git(tmp_path, "update-index", "--assume-unchanged", "a.txt")
    git(tmp_path, "update-index", "--skip-worktree", "b.txt")
    (tmp_path / "a.txt").write_text("changed a\n")
    (tmp_path / "b.txt").write_text("changed b\n")
    seeded, tree = first_scan(tmp_path, seed=True)
    assert seeded == {"a.txt", "b.txt"}
    assert first_scan(tmp_path, seed=False)[1] == tree
