"""Seeding a fresh store's index from the user's git index, so that the first scan of a
big repository hashes only what differs from it (modified, untracked and not ignored),
instead of every file (94 s on 200,000 files).

Why this shape:
- The user's index file is copied byte for byte, with its mtime (git's racy-clean rule
  compares entries with the index file's time, so the copy trusts exactly what git
  would), and then cleaned of what a fresh scan would not have: entries git does not
  stat (skip-worktree, assume-unchanged), unmerged stages, submodule gitlinks (a nested
  repository is scanned with its own index, seeded from its own) and tracked files our
  excludes leave out (listed beside the first status, `Seeded`). Nothing of the user's
  `.git` is written; only files are read.
- The user's objects are never made visible to commands that write objects: git
  "freshens" an object it would have written by touching the file it found, which
  would change the mtime of the user's packs. Commands that only read (cat-file, the
  repack's traversal) see them through GIT_ALTERNATE_OBJECT_DIRECTORIES (gitcmd.py).
- Seeding is refused where the index's blobs may differ from the bytes on disk: clean
  filters (LFS), `eol=crlf`, `ident`, `working-tree-encoding`, `core.autocrlf`; and for
  a split or sparse index. Then the first scan hashes everything, as before.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from .gitcmd import Git, GitError, bare_env, git_program

SOURCES = "user-objects"
"""A file in the store's git dir: the user's object folders blobs may be read from."""
CONVERTING = re.compile(rb"\b(filter|ident|working-tree-encoding|eol\s*=\s*crlf|crlf)\b")
"""Attributes under which the index's blob is not the file's bytes."""
ODD_MODES = (b"160000", b"040000")
"""Submodule gitlinks (scanned as nested repositories) and a sparse index's folders."""


@dataclass(frozen=True)
class UserRepo:
    """A git repository whose work tree's top is a folder of the workspace."""

    git_dir: Path
    index: Path
    objects: Path


def user_repository(top: Path) -> UserRepo | None:
    """The repository whose work tree starts at `top` (a `.git` folder, or a `.git` file
    naming one: worktrees, submodules), or None."""
    dot_git = top / ".git"
    try:
        if dot_git.is_dir():
            git_dir = dot_git
        elif dot_git.is_file():
            text = dot_git.read_text(encoding="utf-8", errors="replace").strip()
            if not text.startswith("gitdir:"):
                return None
            git_dir = (top / text[len("gitdir:") :].strip()).resolve()
        else:
            return None
        common = git_dir
        commondir = git_dir / "commondir"
        if commondir.is_file():
            common = (git_dir / commondir.read_text(encoding="utf-8").strip()).resolve()
    except OSError:
        return None
    index, objects = git_dir / "index", common / "objects"
    if not index.is_file() or not objects.is_dir():
        return None
    return UserRepo(git_dir, index, objects)


class Seeded:
    """A store's index seeded from the user's, but for the tracked files our excludes leave
    out: git lists them (0.55 s on 200,000 files, most of the seeding) while the first
    `git status` runs, and `drop_ignored` takes them out of the index after it."""

    def __init__(self, git: Git) -> None:
        self._git = git
        self._listing: subprocess.Popen[bytes] | None = git.popen(
            "ls-files", "-z", "-c", "-i", "--exclude-standard"
        )

    def drop_ignored(self) -> list[str]:
        """The paths dropped (relative to the work tree); GitError if git failed."""
        listing, self._listing = self._listing, None
        if listing is None:
            return []
        assert listing.stdin is not None and listing.stdout is not None
        listing.stdin.close()
        listed = listing.stdout.read()
        if listing.wait() != 0:
            raise GitError("git ls-files of the ignored files failed")
        paths = [p for p in listed.split(b"\0") if p]
        if paths:
            payload = b"".join(b"0 " + b"0" * 40 + b"\t" + p + b"\0" for p in paths)
            self._git.run("update-index", "-z", "--index-info", stdin=payload)
        return [os.fsdecode(p) for p in paths]


def seed_index(store: Git, user: UserRepo, top: Path) -> Seeded | None:
    """Write `store`'s index (which must not exist yet) from the user's; None when the
    user's index cannot be trusted for a byte-for-byte store (nothing is written). The
    caller drops the ignored tracked files once its first status ran (`Seeded`)."""
    if any(user.git_dir.glob("sharedindex.*")):
        return None  # a split index: its entries live in another file
    tmp = store.index.with_name(store.index.name + ".seeding")
    try:
        st = os.stat(user.index)
        with open(user.index, "rb") as f:
            header = f.read(12)
        if header[:4] != b"DIRC" or int.from_bytes(header[4:8], "big") not in (2, 3, 4):
            return None
        shutil.copyfile(user.index, tmp)
        os.utime(tmp, ns=(st.st_atime_ns, st.st_mtime_ns))
        staged = Git(store.git_dir, store.work_tree, tmp)
        if _converts(user, top, staged):
            tmp.unlink()
            return None
        copied = _copy_head_trees(store, user, top)
        try:
            cleaned = _clean(staged)
        finally:
            copied()
        if not cleaned:
            tmp.unlink()
            return None
        os.replace(tmp, store.index)
        seeded = Seeded(store)
    except (OSError, GitError):
        tmp.unlink(missing_ok=True)
        return None
    add_source(store.git_dir, user.objects)
    return seeded


def _copy_head_trees(store: Git, user: UserRepo, top: Path) -> Callable[[], None]:
    """Start copying the trees of the user's HEAD into one pack of ours (reused as they
    are packed: 0.2 s on 200,000 files, while the index is cleaned); returns the wait
    for it. The user's index names them in its cache of trees, so our first
    `write-tree`, finding them, writes only the folders that differ, instead of every
    folder as a loose object (0.5 s, and their packing at the exit 0.4 s)."""
    head = _user_git(top, "rev-parse", "-q", "--verify", "HEAD^{tree}")
    if not head:
        return lambda: None
    reading = {**store.env, "GIT_ALTERNATE_OBJECT_DIRECTORIES": str(user.objects)}
    safe = ("-c", "safe.directory=*")
    try:
        packer = subprocess.Popen(
            [
                git_program(),
                *safe,
                "pack-objects",
                "--revs",
                "--filter=blob:none",
                "-q",
                "--stdout",
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=reading,
        )
        indexer = subprocess.Popen(
            [git_program(), *safe, "index-pack", "--stdin"],
            stdin=packer.stdout,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=store.env,
        )
    except (OSError, GitError):
        return lambda: None  # only slower: write-tree writes them
    assert packer.stdin is not None and packer.stdout is not None
    packer.stdout.close()  # the indexer's now
    with contextlib.suppress(OSError):
        packer.stdin.write(head)
        packer.stdin.close()

    def wait() -> None:
        packer.wait()
        indexer.wait()

    return wait


def _clean(git: Git) -> bool:
    """Drop the entries git does not stat or a fresh scan would not have; False for a
    sparse index."""
    out = git.run("ls-files", "-z", "-s", "-v")
    drop: list[bytes] = []
    for item in out.split(b"\0"):
        # "H 100644 <sha> 0\tpath": a plain, merged entry that git stats
        if item[:2] == b"H " and item[50:52] == b"0\t" and item[2:8] not in ODD_MODES:
            continue
        if not item:
            continue
        if item[2:8] == b"040000" or item[51:52] != b"\t":
            return False  # a sparse index's folder entry, or not what we read
        drop.append(item[52:])
    if drop:
        payload = b"".join(b"0 " + b"0" * 40 + b"\t" + p + b"\0" for p in dict.fromkeys(drop))
        git.run("update-index", "-z", "--index-info", stdin=payload)
    return True


def _converts(user: UserRepo, top: Path, staged: Git) -> bool:
    """Whether git may store other bytes than the file's for some path of this repo."""
    config = _user_config(top)
    if config is None:
        return True
    if config.get("core.autocrlf", "false").lower() not in ("false", "no", "off", "0"):
        return True
    candidates = [user.git_dir / "info" / "attributes", top / ".gitattributes"]
    if "core.attributesfile" in config:
        candidates.append(Path(os.path.expanduser(config["core.attributesfile"])))
    else:
        home = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
        candidates.append(Path(home) / "git" / "attributes")
    listed = staged.run("ls-files", "-z", "--", "*.gitattributes")
    candidates += [top / os.fsdecode(p) for p in listed.split(b"\0") if p]
    for path in candidates:
        try:
            data = path.read_bytes()
        except OSError:
            continue
        for line in data.splitlines():
            if CONVERTING.search(line.split(b"#", 1)[0]):
                return True
    return False


def _user_config(top: Path) -> dict[str, str] | None:
    """The user's effective core.autocrlf / core.attributesFile (None: git cannot read
    the repository's configuration, so do not seed)."""
    out = _user_git(top, "config", "-z", "--get-regexp", r"^core\.(autocrlf|attributesfile)$")
    if out is None:
        return None
    config: dict[str, str] = {}
    for item in out.split(b"\0"):
        key, _, value = item.decode("utf-8", "replace").partition("\n")
        if key:
            config[key.lower()] = value
    return config


def _user_git(top: Path, *args: str) -> bytes | None:
    """A read-only git command in the user's repository (no index refresh, no lock):
    stdout, or None when it fails. `config --get-regexp` exits 1 when nothing matches."""
    try:
        done = subprocess.run(
            [git_program(), "-C", str(top), "--no-optional-locks", *args],
            capture_output=True,
            env={**bare_env(), "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"},
        )
    except (OSError, GitError):
        return None
    if done.returncode == 1 and args[0] == "config" and not done.stdout:
        return b""
    return done.stdout if done.returncode == 0 else None


def sources(git_dir: Path) -> list[Path]:
    """The user's object folders this store was seeded from."""
    try:
        text = (git_dir / SOURCES).read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    return [Path(line) for line in text.splitlines() if line]


def add_source(git_dir: Path, objects: Path) -> None:
    known = sources(git_dir)
    if objects not in known:
        with open(git_dir / SOURCES, "a", encoding="utf-8") as f:
            f.write(f"{objects}\n")


LOOSE_COPIES = 64
"""Up to this many blobs copied at once are written loose; more go into one pack."""


def keep_local(git: Git, write_blob: Callable[[bytes], str], shas: Iterable[str]) -> set[str]:
    """Copy into the store the blobs among `shas` that only the user's object folders
    hold (a step's before-state must survive the user's `git gc`); returns the ids found
    nowhere (their content is lost to us)."""
    wanted = sorted({s for s in shas if s})
    if not wanted or not git.alternates:
        return set()
    names = ("\n".join(wanted) + "\n").encode()
    checked = git.run("cat-file", "--batch-check=%(objectname)", stdin=names)
    missing = [
        line.split()[0].decode() for line in checked.splitlines() if line.endswith(b" missing")
    ]
    if not missing:
        return set()
    listing = ("\n".join(missing) + "\n").encode()
    if len(missing) > LOOSE_COPIES:
        pack = git.git_dir / "objects" / "pack"
        pack.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(GitError):
            git.run("pack-objects", "-q", str(pack / "pack"), stdin=listing, reading=True)
        again = git.run("cat-file", "--batch-check=%(objectname)", stdin=listing)
        return {
            line.split()[0].decode() for line in again.splitlines() if line.endswith(b" missing")
        }
    out = git.run("cat-file", "--batch", stdin=listing, reading=True)
    lost: set[str] = set()
    at = 0
    for sha in missing:
        end = out.index(b"\n", at)
        header = out[at:end].split()
        at = end + 1
        if len(header) != 3:
            lost.add(sha)
            continue
        size = int(header[2])
        data = out[at : at + size]
        at += size + 1
        if header[1] != b"blob" or write_blob(data) != sha:
            lost.add(sha)
    return lost


def repack_seeded(git: Git) -> None:
    """`git repack -a -d -l` for a seeded store. Its trees (HEAD, the runs' trees) name
    the user's blobs, which this store's git does not see and which the user's `gc` may
    have removed: they are left out of the pack (`--missing=allow-any`), where `repack`
    would stop at the first one it cannot read. Packs with a `.keep` are left alone."""
    folder = git.git_dir / "objects" / "pack"
    folder.mkdir(parents=True, exist_ok=True)
    old = [p for p in folder.glob("pack-*.pack") if not p.with_suffix(".keep").exists()]
    out = git.run(
        "pack-objects",
        "--all",
        "--reflog",
        "--indexed-objects",
        "--missing=allow-any",
        "--delta-base-offset",
        "--non-empty",
        "-q",
        str(folder / "pack"),
        stdin=b"",
    )
    made = out.decode().strip()
    for pack in old:
        if pack.stem != f"pack-{made}":
            for suffix in (".pack", ".idx", ".rev", ".bitmap"):
                pack.with_suffix(suffix).unlink(missing_ok=True)
    git.run("prune-packed", "-q")


NO_DELTAS_ABOVE = 1000
MANY_PACKS = 16
"""A seeded store with more packs than this is packed again whole (`repack_seeded`)."""


def pack_loose(git: Git) -> None:
    """Pack a seeded store's loose objects as they are, without walking its trees (which
    name every blob of the user's repository: 0.8 s on 200,000 files for a full repack).
    What is garbage among them is dropped by the next whole packing (`repack_seeded`,
    once there are many packs or the store outgrows its size)."""
    objects = git.git_dir / "objects"
    names: list[str] = []
    with os.scandir(objects) as folders:
        for folder in folders:
            if len(folder.name) == 2 and folder.is_dir():
                names += [folder.name + n for n in os.listdir(folder.path) if len(n) == 38]
    if not names:
        return
    (objects / "pack").mkdir(exist_ok=True)
    listing = ("\n".join(names) + "\n").encode()
    # Thousands at once are the first scan's trees and files: no search for deltas (a
    # third of the time); the next whole packing finds them. A few are versions of
    # edited files, where deltas keep the store small.
    window = ("--window=0",) if len(names) > NO_DELTAS_ABOVE else ()
    pack = str(objects / "pack" / "pack")
    git.run("pack-objects", "-q", "--delta-base-offset", *window, pack, stdin=listing)
    git.run("prune-packed", "-q")
