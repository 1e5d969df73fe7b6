"""The checkpoint store of one workspace: a private git repository and index under
`<workspace>/.workspace-agent/checkpoints/`, with the workspace as work tree.

Why this shape:
- A persistent private index keeps git's stat cache, so finding what changed costs one
  `git status` (which skips ignored folders and only re-reads files whose stat changed).
- The user's `.git` is never written: GIT_DIR, the index, the refs and the config are
  the store's own; nothing of the user's is renamed, not even nested `.git` folders (a
  nested repository is scanned with an index of its own, see nested.py).
- Files the agent wrote are hashed in Python (no process per call) and their index
  entries are written with the next scan ("pending").
- Each session keeps its objects alive with one ref to a tree listing them; the index
  keeps the current state alive. Old sessions are pruned first when the store outgrows
  `checkpoints.maxBytes`, and packs give deltas so many edits of a big file stay small.

Every method blocks (git runs as subprocesses): callers run them in a worker thread,
one at a time per store (`lock`), and across processes a file lock serialises them
(but `unchanged_at_a_glance`, a bounded stat walk the event loop may make).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
import stat
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..shared.documents import Buffer
from ..shared.local_state import make_folder
from .bulk import BulkStore, Progress
from .changefeed import ChangeFeed
from .excludes import exclude_lines
from .fsmonitor import Monitor
from .gitcmd import Git, GitError, init_repository
from .live_content import Observed, observe, signature_of
from .nested import NestedRepo
from .objects import Entry, ObjectStore
from .quicklook import QuickLook, Snapshot
from .seed import (
    MANY_PACKS,
    Seeded,
    keep_local,
    pack_loose,
    repack_seeded,
    seed_index,
    sources,
    user_repository,
)
from .timeline import Change, JournalFormatError, Timeline

log = logging.getLogger(__name__)

FOLDER = Path(".workspace-agent") / "checkpoints"
REF_PREFIX = "refs/workspace-agent/sessions/"
BULK = 256
"""More changed files than this are hashed by git itself, and HEAD is moved at once."""
REPACK_AFTER = 2000
"""Loose objects in the store before packing them pays (a run's end, a process's exit, or
mid-run). Below it they stay loose: as safe as packed ones, and packing on every exit put
100-500 ms of `git repack` and `git prune` between the last answer and the exit."""
REPACK_AFTER_BYTES = 64 << 20
"""Or, mid-run, this much content written as loose objects by this process."""
PACK_AT_END_BYTES = 1 << 20
"""At a run's end or a process's exit, this much content written loose is packed: versions
of big files, each a whole compressed copy until packing makes them deltas."""
FANOUT_SAMPLE = "17"
"""The object folder counted for the estimate of all loose objects (git's `gc --auto`
does the same: one folder of 256, times 256)."""
FULL_REPACK_BYTES = 64 << 20
"""Up to this much packed data, packing rewrites everything into one pack (best deltas)."""
KNOWN_LIMIT = 20_000
"""Files remembered with the entry this process wrote (`_known`) before starting over."""
SMALL_INDEX_BYTES = 256 * 1024
"""An index this small (a few thousand files) is checked faster without git's threads."""
LOCK_WAIT_SECONDS = 30.0
PRUNE_EXPIRY = "1.hour.ago"
"""Unreferenced loose objects younger than this survive a prune (another process may
have written them and not yet referenced them)."""

BuffersOf = Callable[[Sequence[str]], dict[str, Buffer]]
"""Open editor buffers for some paths (relative); safe to call from the worker thread."""


def no_buffers(paths: Sequence[str]) -> dict[str, Buffer]:
    return {}


@dataclass
class ScanResult:
    changes: list[Change] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


class CheckpointStore:
    def __init__(self, root: Path, *, seed: bool = True) -> None:
        self.root = root.resolve()
        self.folder = self.root / FOLDER
        _prepare_folder(self.folder)
        self.git: Git = init_repository(self.folder / "repo", self.root)
        self.git.alternates = sources(self.git.git_dir)
        self.seed = seed
        """A fresh index starts from the user's git index (seed.py)."""
        self.objects = ObjectStore(self.git)
        self.lock = threading.RLock()
        self.generation = 0
        """Bumped whenever the index changes: a session that sees it moved re-anchors."""
        self.editor_paths: set[str] = set()
        """Files the agent changed while they were open in the editor (read from there)."""
        self._pending: dict[str, Entry | None] = {}
        self._pending_signature: dict[str, tuple[int, ...]] = {}
        self._known: dict[str, tuple[Entry, tuple[int, ...] | None]] = {}
        """Files whose index entry (or pending one) this process wrote, with the stat they
        had: a watcher event for one of them alone is checked without git. Forgotten when
        anyone else writes the index."""
        self._quick = QuickLook(self.root, FOLDER.parts[0])
        self._perms: dict[str, int] = {}
        """Each regular file's permission bits as last seen (git keeps only the x bit): a
        change's before-state gets them."""
        self._seen_skipped: dict[str, tuple[int, str]] = {}
        self._tree: str | None = None
        self._index_signature: tuple[int, int, int] | None = None
        self._timelines: dict[str, Timeline] = {}
        self._excludes_written = ""
        self._depth = 0
        self._upkeep = threading.Lock()
        self._referenced_at: float | None = None
        """When everything the index and the sessions need was last made reachable."""
        self._seeded: Seeded | None = None
        """A store just seeded: its ignored tracked files are dropped after the first status."""
        self._nested: dict[str, NestedRepo] = {}
        """Nested git repositories by folder ("sub/"), each with its own private index."""
        self._presence = os.open(self.folder / "users", os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(self._presence, fcntl.LOCK_SH)  # held while this process uses the store
        self._monitor: Monitor | None = None
        """git's fsmonitor backed by a file watcher (`watch`): a scan looks at what changed."""
        self._scanned_at: int | None = None
        """The feed's position the last scan saw everything up to (None: a full scan next)."""
        self.watcher_misses = 0
        """Paths a verification scan found changed that the watcher had not reported."""

    # -- the file watcher ---------------------------------------------------------------

    def watch(self, feed: ChangeFeed) -> None:
        """Find changes through `feed` from now on (the first scan after this is full)."""
        with self.lock:
            self._monitor = Monitor(self.git.git_dir, feed)
            self.git.env.update(self._monitor.env())
            self._scanned_at = None

    @property
    def feed(self) -> ChangeFeed | None:
        return self._monitor.feed if self._monitor is not None else None

    def _monitor_usable(self) -> bool:
        """The feed still vouches for what changed; when it stopped, git goes back to
        looking at everything (and drops the monitor's data from the index)."""
        if self._monitor is None:
            return False
        if self._monitor.feed.usable:
            return True
        for key in self._monitor.env():
            self.git.env.pop(key, None)
        self._monitor.close()
        self._monitor = None
        return False

    def verify(self) -> list[str]:
        """A full scan (read-only: the index is not written) against what the watcher
        reported since the last scan: a path that changed since then and that it did not
        report is a watcher miss, logged and counted; the next scan is then full. Run
        when idle, now and then."""
        with self._locked():
            if not self._monitor_usable() or self._scanned_at is None:
                return []
            assert self._monitor is not None
            feed = self._monitor.feed
            feed.sync()
            reported = feed.since(self._scanned_at)
            at = feed.position()
            full, _ = self._status(read_only=True, plain=True)
            feed.sync()
            late = feed.since(at)
            if reported is None or late is None:
                return []  # the next scan is a full one anyway
            changed = [p for p in full if self._changed_since_scan(p)]
            missed = sorted(p for p in changed if not _covered(p, reported + late))
            if missed:
                self.watcher_misses += len(missed)
                log.warning("checkpoints: watcher missed %d: %s", len(missed), missed[:20])
                self._scanned_at = None
            return missed

    def _changed_since_scan(self, path: str) -> bool:
        """`path` differs from its index entry: is that news since the last scan (not a
        change it recorded already, whose index entry waits; not a file it skipped)?"""
        if path in self._pending:
            signature = self._pending_signature.get(path)
            return signature is not None and signature_of(self.root / path) != signature
        skipped = self._seen_skipped.get(path)
        if skipped is not None:
            try:
                return os.lstat(self.root / path).st_mtime_ns != skipped[0]
            except OSError:
                return True
        return True

    # -- sessions ----------------------------------------------------------------------

    def timeline(self, session_id: str) -> Timeline:
        if session_id not in self._timelines:
            if not session_id.replace("-", "").isalnum():
                raise ValueError(f"bad session id {session_id!r}")
            self._timelines[session_id] = Timeline(self.folder / "sessions" / f"{session_id}.jsonl")
        timeline = self._timelines[session_id]
        timeline.refresh()
        return timeline

    # -- scanning ----------------------------------------------------------------------

    def refresh_excludes(self) -> None:
        """Write info/exclude from the defaults and the user's exclude files (each run)."""
        text = exclude_lines(self.root)
        if text != self._excludes_written:
            path = self.git.git_dir / "info" / "exclude"
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
                self._quick.snapshot = None  # what git leaves out changed: ask it again
                self._known.clear()
            self._excludes_written = text

    def scan(
        self,
        max_bytes: int,
        buffers_of: BuffersOf = no_buffers,
        progress: Progress | None = None,
    ) -> ScanResult:
        """Find and store everything that changed since the last scan. What changed goes
        into the index with the next tree (or once many files are waiting): a scan that
        finds nothing new costs one `git status`. `progress` hears how far the storing of
        many files is (a first scan without a git index to start from)."""
        with self._locked():
            look = None
            if not any(sig is None for sig in self._editor_pending()):
                look = self._quick.take()
                if self._quick.unchanged(look):
                    return ScanResult()  # not one stat moved: nothing to ask git about
            position = None
            known = None
            if self._monitor_usable():  # git asks the hook: its answers must be fresh
                assert self._monitor is not None
                self._monitor.feed.sync()
                at, feed = self._scanned_at, self._monitor.feed
                changed = feed.since(at) if at is not None and self.git.index.exists() else None
                if look is None and changed == []:
                    if all(sig is not None for sig in self._editor_pending()):
                        return ScanResult()  # the watcher saw nothing change
                if changed is None:
                    self._monitor.full_scans += 1
                if look is None and changed:
                    known = self._known_entries(changed)
                if known is None:
                    position = self._monitor.prepare(full=changed is None)
                else:  # every changed path is a file whose entry we wrote: no git
                    position = feed.position()
            earlier = self._quick.snapshot
            self._quick.snapshot = look  # the tree as this scan sees it (or not known)
            if self.seed and not self.git.index.exists():
                self._seed()
            candidates: dict[str, Entry | None] = (
                dict(known) if known is not None else self._changed_paths()
            )
            if position is not None:
                self._scanned_at = position
            if self._seeded is not None:  # listed while git status ran
                seeded, self._seeded = self._seeded, None
                for path in seeded.drop_ignored():
                    candidates.pop(path, None)
                self._tree = None
            for path in self._pending:
                candidates.setdefault(path, None)
            for path, signature in self._pending_signature.items():
                if signature_of(self.root / path) == signature:
                    del candidates[path]  # as stored: the index is merely behind
            for path in list(known or ()):
                wrote = self._known[path][1]
                if path in candidates and path not in self._pending and wrote is not None:
                    if signature_of(self.root / path) == wrote:
                        del candidates[path]  # as stored: only its stat data moved
            before_perms = self._perms_before(earlier, look, candidates)
            befores = {
                p: self._pending[p] if p in self._pending else e for p, e in candidates.items()
            }
            result = ScanResult()
            bulk = BulkStore(self.git, self.root) if len(candidates) > BULK else None
            if bulk is not None:
                observed = self._observe_bulk(bulk, list(candidates), max_bytes, progress)
            else:
                editor = [p for p in candidates if p in self.editor_paths]
                buffers = buffers_of(editor) if editor else {}
                observed = {
                    p: observe(self.root, p, max_bytes, self.objects, buffers.get(p))
                    for p in candidates
                }
            for path, seen in observed.items():
                if seen.skipped is not None:
                    self._note_skipped(result, path, seen.size, seen.skipped)
                    continue
                self._seen_skipped.pop(path, None)
                change = Change(path, befores[path], seen.entry, before_perms.get(path), seen.perm)
                if seen.entry != befores[path] or change.perm_changed:
                    result.changes.append(change)
                    self._remember(path, seen.entry, seen.signature)
                self._note_perm(path, seen.perm)
            if self.git.alternates:
                self._keep_befores(result)
            if result.changes:
                self.generation += 1
            if bulk is not None or len(self._pending) > BULK:  # else: with the next tree
                self._flush_pending()
            if bulk is not None:
                bulk.release()  # the index names what it stored
            if len(result.changes) > BULK:
                self._move_head()
            return result

    def observe(
        self, path: str, max_bytes: int, buffer: Buffer | None, *, keep: bool = True
    ) -> Observed:
        """Store the current content of one file (the agent's write_file / edit_file);
        `keep` False only hashes it."""
        return observe(self.root, path, max_bytes, self.objects, buffer, keep=keep)

    def record_written(self, change: Change, signature: tuple[int, ...] | None = None) -> None:
        """A file the agent wrote: its index entry goes in with the next tree."""
        with self.lock:
            self._remember(change.path, change.after, signature)
            self._note_perm(change.path, change.after_perm)
            self._quick.touched(change.path)
            self.generation += 1

    def forget_look(self) -> None:
        """Much moved at once (a revert moved a folder): the next scan asks git."""
        self._quick.snapshot = None
        self._known.clear()

    def unchanged_at_a_glance(self) -> bool:
        """True when a stat walk of the work tree proves that nothing in it moved since
        the last scan, so a scan now would find nothing: the same proof `scan` starts
        with (quicklook.py), without git, the file lock or a worker thread. Only a small
        tree has a snapshot to compare with (at most quicklook.LIMIT `lstat` calls: the
        event loop can afford it, where a hop to the store's thread costs more). False
        when it cannot tell: a large tree, content the agent wrote through the editor
        still pending, or the store busy in another thread."""
        if not self.lock.acquire(blocking=False):
            return False
        try:
            if self._quick.snapshot is None or any(s is None for s in self._editor_pending()):
                return False
            return self._quick.unchanged(self._quick.take())
        finally:
            self.lock.release()

    def _note_perm(self, path: str, perm: int | None) -> None:
        if perm is None:
            self._perms.pop(path, None)
        else:
            self._perms[path] = perm

    def _perms_before(
        self, earlier: Snapshot | None, now: Snapshot | None, candidates: dict[str, Entry | None]
    ) -> dict[str, int]:
        """The permission bits the candidates had before (as last seen: by a scan, or in the
        tree's stat snapshot of a small workspace), and, in a small workspace, the tracked
        files whose permission bits alone changed (git does not see that) added to the
        candidates."""
        known = {p: self._perms[p] for p in candidates if p in self._perms}
        if earlier is None:
            return known
        for path in candidates:
            seen = earlier.get(path)
            if path not in known and seen is not None and stat.S_ISREG(seen[4]):
                known[path] = stat.S_IMODE(seen[4])
        if now is None:
            return known
        moved = [
            p
            for p, sig in now.items()
            if p not in candidates
            and stat.S_ISREG(sig[4])
            and (old := earlier.get(p)) is not None
            and stat.S_ISREG(old[4])
            and stat.S_IMODE(old[4]) != stat.S_IMODE(sig[4])
            and not any(p.startswith(prefix) for prefix in self._nested)
        ]
        for path, entry in self._tracked(moved).items():
            candidates[path] = self._pending.get(path, entry)
            known[path] = stat.S_IMODE(earlier[path][4])
        return known

    def _tracked(self, paths: list[str]) -> dict[str, Entry]:
        """The index entries of those of `paths` the index (or the pending entries) has."""
        found = {p: e for p in paths if (e := self._pending.get(p)) is not None}
        rest = [p for p in paths if p not in self._pending]
        if not rest:
            return found
        out = self.git.run("ls-files", "-z", "-s", "--", *(f":(literal){p}" for p in rest))
        for item in out.split(b"\0"):
            meta, _, name = item.partition(b"\t")
            if meta:
                mode, sha, _stage = meta.decode().split()
                found[os.fsdecode(name)] = Entry(mode, sha)
        return found

    def _editor_pending(self) -> list[tuple[int, ...] | None]:
        """Signatures of the pending files the agent changed in the editor (None when the
        content came from an editor buffer, which the disk's stat does not follow)."""
        return [self._pending_signature.get(p) for p in self._pending if p in self.editor_paths]

    def _known_entries(self, changed: list[str]) -> dict[str, Entry] | None:
        """The index entries of `changed` when each is a file whose entry this process
        wrote (a scan found it changed, or the agent wrote it) and nothing else moved
        (no folder, nothing in a nested repository): then the scan needs no git."""
        found: dict[str, Entry] = {}
        for path in changed:
            seen = self._known.get(path)
            if seen is None or path.endswith("/") or path.rpartition("/")[2] == ".gitignore":
                return None  # a .gitignore changes what git lists beside it: git looks
            if any(path.startswith(prefix) for prefix in self._nested):
                return None
            found[path] = seen[0]
        return found

    def _remember(self, path: str, entry: Entry | None, signature: tuple[int, ...] | None) -> None:
        """An entry for the index, and the disk's stat when it was read: while that stat
        holds, scans need not read the file again (the index lags behind until the next
        tree, so git keeps listing it)."""
        self._pending[path] = entry
        if entry is None:
            self._known.pop(path, None)
        else:
            if len(self._known) >= KNOWN_LIMIT:
                self._known.clear()
            self._known[path] = (entry, signature)
        if signature is None:
            self._pending_signature.pop(path, None)
        else:
            self._pending_signature[path] = signature

    def write_tree(self) -> str:
        """The tree of the whole workspace as last scanned."""
        with self._locked():
            self._flush_pending()
            if self._tree is None:
                self._tree = self.git.run(*_write_tree(self.git)).decode().strip()
                self._remember_index()
            return self._tree

    # -- end of a run: HEAD, the session's objects, packing ------------------------------

    def finish_run(self, session_id: str) -> None:
        """Move HEAD to the current state and make everything the sessions need safe from
        packing (quick, holding the store); then `upkeep` packs, without holding it."""
        with self._locked():
            timeline = self.timeline(session_id)
            updates = self._head_update()
            updates += [f"update {repo.ref} {repo.tree()}" for repo in self._nested.values()]
            keep = self._keep_tree(session_id, timeline)
            if keep is not None:
                updates.append(f"update {REF_PREFIX}{session_id} {keep}")
            self.git.run("update-ref", "--stdin", stdin=("\n".join(updates) + "\n").encode())
            timeline.sync()
            self._keep_sessions()
            self._referenced_at = time.time()

    def needs_packing(self, at_end: bool = False) -> bool:
        """Many loose objects: written by this process, or by any (estimated from one of
        the 256 object folders, as git's `gc --auto` does); or much content written loose
        (less of it `at_end` of a run or of the process than mid-run)."""
        limit = PACK_AT_END_BYTES if at_end else REPACK_AFTER_BYTES
        if self.objects.written >= REPACK_AFTER or self.objects.written_bytes >= limit:
            return True
        sample = self.git.git_dir / "objects" / FANOUT_SAMPLE
        try:
            return len(os.listdir(sample)) * 256 >= REPACK_AFTER
        except FileNotFoundError:
            return False

    def prepare_upkeep(self) -> None:
        """Mid-run, before `upkeep`: what the index and the sessions name is referenced."""
        with self._locked():
            self._flush_pending()
            self._keep_sessions()
            self._referenced_at = time.time()

    def upkeep(self, everything: bool = False) -> bool:
        """Pack loose objects and prune what nothing names, while runs go on: git packs
        safely beside new loose objects, and the prune spares every object written or
        used again since the upkeep began (write_blob freshens the ones it finds). A
        store of moderate size is rewritten as one pack, so new versions of a file become
        deltas of the old ones (a pack cannot delta against another pack); a large one
        gets a cheap geometric repack. False when another upkeep is under way."""
        if not self._upkeep.acquire(blocking=False):
            return False
        try:
            # Everything needed was referenced at `_referenced_at`: what is older and named
            # by nothing is garbage. Objects written in the second before it may be in use
            # by work that went on meanwhile; the next upkeep takes them.
            marked = self._referenced_at
            self._pack(everything)
            alone = self._alone() and marked is not None
            expiry = f"@{int(marked) - 1}" if alone and marked else PRUNE_EXPIRY
            self.git.run("prune", f"--expire={expiry}")
            return True
        finally:
            self._upkeep.release()

    def last_upkeep(self) -> None:
        """Before this process leaves (nothing of it runs any more): when no other process
        uses the store, pack and prune what nothing names at once (what the upkeep after
        the last run had to spare). Else the next upkeep, anyone's, does it."""
        with self._upkeep, self._locked():
            self._flush_pending()
            self._keep_sessions()
            if self._alone():
                self._pack(everything=False)
                self.git.run("prune", "--expire=now")
                self.objects.unpruned_bytes = 0

    def leave(self) -> None:
        """Before this process leaves: everything the sessions need referenced (no git
        process when the run's end did it already); packing and pruning only when
        `needs_packing` or when much content was written since the last such prune
        (`last_upkeep`), else a later upkeep does them."""
        if self.needs_packing(at_end=True) or self.objects.unpruned_bytes >= PACK_AT_END_BYTES:
            self.last_upkeep()
            return
        with self._upkeep, self._locked():
            self._flush_pending()
            self._keep_sessions()

    def _pack(self, everything: bool) -> None:
        self.objects.settle()
        # What is written while git packs stays loose, and counted for the next packing.
        written, written_bytes = self.objects.written, self.objects.written_bytes
        if self.git.alternates:  # the user's objects are never copied into ours
            if everything or len(list(self._pack_folder().glob("*.pack"))) > MANY_PACKS:
                repack_seeded(self.git)
            else:
                pack_loose(self.git)
        elif everything or self._pack_bytes() <= FULL_REPACK_BYTES:
            self.git.run("repack", "-a", "-d", "-q", "--no-write-bitmap-index")
        else:
            self.git.run("repack", "-d", "-q", "--geometric=2", "--no-write-bitmap-index")
        self.objects.written -= written
        self.objects.written_bytes -= written_bytes

    def size(self) -> int:
        total = 0
        for folder, _dirs, files in os.walk(self.folder):
            for name in files:
                with contextlib.suppress(OSError):
                    total += os.lstat(os.path.join(folder, name)).st_size
        return total

    def prune(self, max_bytes: int, keep: set[str]) -> list[str]:
        """Drop the oldest sessions' checkpoints (never those in `keep`) until the store is
        within `max_bytes`; returns the session ids dropped."""
        dropped: list[str] = []
        if self.size() > max_bytes and not self.upkeep(everything=True):
            return dropped  # packed first: loose objects may be all that is too big
        while self.size() > max_bytes:
            with self._locked():
                oldest = [s for s in self._sessions_oldest_first() if s not in keep]
                if not oldest:
                    break
                self._drop_session(oldest[0])
                dropped.append(oldest[0])
                self._flush_pending()
                self._keep_sessions()
                self._referenced_at = time.time()
            if not self.upkeep(everything=True):
                break
        return dropped

    def close(self) -> None:
        if self._monitor is not None:
            self._monitor.feed.close()
            self._monitor.close()
        self.objects.close()
        for timeline in self._timelines.values():
            timeline.close()
        os.close(self._presence)

    # -- internals -----------------------------------------------------------------------

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """This thread's turn with the store, and the other processes' turn excluded."""
        with self.lock:
            if self._depth:
                yield
                return
            with _file_lock(self.folder / "lock"):
                self.objects.settle()  # git sees every object we have handed out
                if self._index_signature != _signature(self.git.index):
                    self._tree = None  # another process wrote the index: forget its tree
                    self._known.clear()
                    self.generation += 1
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                    self._remember_index()

    def _seed(self) -> None:
        """A fresh store in a git work tree: its index starts as the user's, and HEAD as
        its tree (so `git status` reports only what differs on disk)."""
        self._known.clear()
        user = user_repository(self.root)
        seeded = seed_index(self.git, user, self.root) if user is not None else None
        if seeded is None:
            return
        self._seeded = seeded
        self._add_sources()
        self._tree = None
        self._move_head()

    def _add_sources(self) -> None:
        for folder in sources(self.git.git_dir):
            if folder not in self.git.alternates:
                self.git.alternates.append(folder)  # shared with the nested repositories

    def _keep_befores(self, result: ScanResult) -> None:
        """Changes whose before-state only the user's objects hold: copied into ours now,
        so a revert does not depend on the user's history (a rewrite, a `gc`)."""
        befores = [c.before.sha for c in result.changes if c.before is not None]
        lost = keep_local(self.git, self.objects.write_blob, befores)
        if not lost:
            return
        kept = []
        for change in result.changes:
            if change.before is not None and change.before.sha in lost:
                reason = "its earlier content is gone from the repository's objects"
                result.skipped.append((change.path, f"{reason}; not revertible"))
            else:
                kept.append(change)
        result.changes = kept

    def _changed_paths(self) -> dict[str, Entry | None]:
        """Every path that differs from its index, the workspace's and those of the nested
        repositories in it: {path: index entry, or None when untracked}."""
        candidates, folders = self._status()
        while folders:
            prefix = folders.pop(0)
            repo = self._nested.get(prefix)
            if repo is None:
                repo = self._nested[prefix] = NestedRepo(self.git, self.root, prefix, self.seed)
                self._add_sources()
            found, deeper = repo.changes()
            candidates.update(found)
            folders += deeper
        return candidates

    def _status(
        self, *, read_only: bool = False, plain: bool = False
    ) -> tuple[dict[str, Entry | None], list[str]]:
        """Paths whose work tree content differs from the index: {path: index entry or None
        (untracked)}, and folders that are nested repositories. `read_only`: the index is
        not written; `plain`: without the watcher's answers (every file looked at)."""
        small = _index_bytes(self.git) < SMALL_INDEX_BYTES
        env = None
        if plain and self._monitor is not None:
            monitor_keys = self._monitor.env()
            env = {k: v for k, v in self.git.env.items() if k not in monitor_keys}
        out = self.git.run(
            *(("--no-optional-locks",) if read_only else ()),
            *(("-c", "core.preloadIndex=false") if small else ()),  # no threads for a few files
            # The untracked cache (core.untrackedCache) serves --untracked-files=all only when
            # it is the configured mode: unchanged folders are then not read again (on 20,000
            # files 27 ms instead of 100).
            "-c",
            "status.showUntrackedFiles=all",
            "status",
            "--porcelain=v2",
            "-z",
            "--untracked-files=all",
            "--no-renames",
            "--ignore-submodules=all",
            env=env,
        )
        candidates: dict[str, Entry | None] = {}
        nested: list[str] = []
        for item in out.split(b"\0"):
            if item.startswith(b"1 "):
                fields = item.split(b" ", 8)
                if fields[1][1:2] == b".":  # only the index differs from HEAD
                    continue
                candidates[os.fsdecode(fields[8])] = Entry(fields[4].decode(), fields[7].decode())
            elif item.startswith(b"? "):
                path = os.fsdecode(item[2:])
                if path.endswith("/"):
                    nested.append(path)
                else:
                    candidates[path] = None
        return candidates, nested

    def _observe_bulk(
        self, bulk: BulkStore, paths: list[str], max_bytes: int, progress: Progress | None
    ) -> dict[str, Observed]:
        """Many files at once (the first scan of a workspace, a generator, an install):
        regular files go into one pack (bulk.py); the rest, and a file that changed into
        something else meanwhile, are looked at one by one."""
        observed: dict[str, Observed] = {}
        plain: list[str] = []
        for path in paths:
            try:
                st = os.lstat(self.root / path)
            except OSError:  # gone, or its folder is a file or a link loop now
                observed[path] = Observed(None)
                continue
            if _is_plain(st) and st.st_size <= max_bytes:
                plain.append(path)
            else:
                observed[path] = observe(self.root, path, max_bytes, self.objects)
        stored = bulk.store(plain, max_bytes, progress) if plain else {}
        for path in plain:
            seen = stored.get(path)
            observed[path] = seen or observe(self.root, path, max_bytes, self.objects)
        return observed

    def _note_skipped(self, result: ScanResult, path: str, size: int, reason: str) -> None:
        """Report a file that cannot be stored once, and again only when it changes."""
        try:
            mark = (os.lstat(self.root / path).st_mtime_ns, reason)
        except OSError:
            mark = (size, reason)
        if self._seen_skipped.get(path) != mark:
            self._seen_skipped[path] = mark
            result.skipped.append((path, reason))

    def _flush_pending(self) -> None:
        if not self._pending:
            return
        for prefix in sorted(self._nested, key=len, reverse=True):  # the innermost first
            mine = {p: e for p, e in self._pending.items() if p.startswith(prefix)}
            if mine:
                self._nested[prefix].flush(mine)
                for path in mine:
                    del self._pending[path]
        if not self._pending:
            self._pending_signature.clear()
            self._tree = None
            return
        removals = [p for p, e in self._pending.items() if e is None]
        additions = [(p, e) for p, e in self._pending.items() if e is not None]
        lines = [f"0 {'0' * 40}\t{p}" for p in removals]
        lines += [f"{e.mode} {e.sha}\t{p}" for p, e in additions]
        payload = "\0".join(lines) + "\0"
        self.git.run(
            "update-index", "-z", "--index-info", stdin=payload.encode("utf-8", "surrogateescape")
        )
        self._pending.clear()
        self._pending_signature.clear()
        self._tree = None

    def _head_update(self) -> list[str]:
        tree = self.write_tree()
        commit = self.git.run("commit-tree", tree, "-m", "workspace state").decode().strip()
        if len(commit) != 40:
            raise GitError(f"git commit-tree gave {commit!r}")
        return ["option no-deref", f"update HEAD {commit}"]

    def _move_head(self) -> None:
        """HEAD follows the index, so `git status` has nothing staged to report."""
        updates = self._head_update()
        self.git.run("update-ref", "--stdin", stdin=("\n".join(updates) + "\n").encode())

    def _keep_tree(self, session_id: str, timeline: Timeline) -> str | None:
        """A tree naming every object the session's history needs, so that packing and
        pruning keep them (None: nothing new since the last one)."""
        if timeline.objects_kept == len(timeline.records):
            return None
        kept = timeline.kept_objects()
        lines = "".join(
            f"{'040000' if kind == 'tree' else '100644'} {kind} {sha}\t{name}\0"
            for name, (kind, sha) in kept.items()
        )
        tree = self.git.run(
            "mktree", "-z", "--missing", stdin=lines.encode("utf-8", "surrogateescape")
        )
        timeline.objects_kept = len(timeline.records)
        return tree.decode().strip()

    def _keep_sessions(self) -> None:
        """Update the keep-refs of the sessions this process holds, and of any session
        whose journal changed since the last time (another process, or a run a crash cut
        short), so nothing a journal names is packed away or pruned."""
        marker = self.folder / "kept"
        since = marker.stat().st_mtime_ns if marker.exists() else 0
        marker.touch()
        folder = self.folder / "sessions"
        journals = folder.glob("*.jsonl") if folder.is_dir() else []
        recent = {p.stem for p in journals if p.stat().st_mtime_ns >= since}
        for session_id in sorted(recent | set(self._timelines)):
            try:
                self._write_keep_ref(session_id)
            except JournalFormatError:  # a newer version's journal: that one keeps its ref
                continue

    def keep(self, session_id: str) -> None:
        """Make the session's newest records safe from packing and pruning now (after a
        revert, which no run end follows)."""
        with self._locked():
            self._flush_pending()
            self._write_keep_ref(session_id)

    def _write_keep_ref(self, session_id: str) -> None:
        keep = self._keep_tree(session_id, self.timeline(session_id))
        if keep is not None:
            self.git.run("update-ref", REF_PREFIX + session_id, keep)

    def _alone(self) -> bool:
        """No other process has this store open (see `_presence`)."""
        try:
            fcntl.flock(self._presence, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        fcntl.flock(self._presence, fcntl.LOCK_SH)
        return True

    def _pack_folder(self) -> Path:
        return self.git.git_dir / "objects" / "pack"

    def _pack_bytes(self) -> int:
        folder = self._pack_folder()
        return sum(p.stat().st_size for p in folder.glob("*.pack")) if folder.is_dir() else 0

    def _sessions_oldest_first(self) -> list[str]:
        folder = self.folder / "sessions"
        if not folder.is_dir():
            return []
        journals = sorted(folder.glob("*.jsonl"), key=lambda p: p.stat().st_mtime)
        return [p.stem for p in journals]

    def _drop_session(self, session_id: str) -> None:
        with contextlib.suppress(GitError):
            self.git.run("update-ref", "-d", REF_PREFIX + session_id)
        with contextlib.suppress(FileNotFoundError):
            (self.folder / "sessions" / f"{session_id}.jsonl").unlink()
        dropped = self._timelines.pop(session_id, None)
        if dropped is not None:
            dropped.close()

    def _remember_index(self) -> None:
        self._index_signature = _signature(self.git.index)


def _covered(path: str, changed: list[str]) -> bool:
    """`path` or a folder above it is among `changed`."""
    return any(path == c or (c.endswith("/") and path.startswith(c)) for c in changed)


def _write_tree(git: Git) -> tuple[str, ...]:
    """A seeded index names blobs only the user's objects hold, which this store's
    git does not see (it must not: see seed.py)."""
    return ("write-tree", "--missing-ok") if git.alternates else ("write-tree",)


def _index_bytes(git: Git) -> int:
    """The size of the index, its shared part (core.splitIndex) included."""
    size = (_signature(git.index) or (0, 0, 0))[1]
    shared = [p.stat().st_size for p in git.git_dir.glob("sharedindex.*")]
    return size + max(shared, default=0)


def _is_plain(st: os.stat_result) -> bool:
    return stat.S_ISREG(st.st_mode)


def _signature(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def _prepare_folder(folder: Path) -> None:
    """Create the store's folder; `.workspace-agent/` ignores itself for git."""
    make_folder(folder)


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """An exclusive lock shared with other processes on the same workspace (another
    server, the headless CLI); waits at most LOCK_WAIT_SECONDS."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + LOCK_WAIT_SECONDS
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
                if time.monotonic() > deadline:
                    raise GitError("the checkpoint store is locked by another process") from None
                time.sleep(0.02)
        yield
    finally:
        os.close(fd)
