"""The checkpoint observer of one run: the workspace's state at the start of the run and
before each plan item's first workspace-changing call, and what every such call changed.

A tool that changes only the file it names (`ToolCall.reach` "named_file": write_file,
edit_file): that file alone is read before and after the call (no git process), unless
something else ran in the call's window (`CallReport.scan_workspace`: a PostToolUse hook),
when the workspace is scanned after it too. Any other workspace-changing tool (bash) is
preceded and followed by a scan of the whole workspace, so what a command changed counts
too and what changed before it (someone else) does not; a call that runs a shell command
(`ToolCall.command`) is listed with its exit status (`ToolResult.exit_code`).

Every changing call holds the workspace from the scan before it to the scan after it
(folder_lock.py): a call of another task on the same folder waits, and says so with a
`preparing` event naming it (`toolUseId`), so each step's changes are its own.

While a background command of the session runs (`RunScope.background`), what it writes
is the step's that started it (a `tool` record with `background`, docs/protocol.md
*Checkpoints*): every other changing call gets a scan before it, and what a scan finds
between calls (at the run's start and end, before a call) goes to that command; what the
scan after a command finds goes to the command, but for the files a background command
was seen writing before. A one-file call keeps exactly its file either way.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .. import protocol as p
from ..protocol import StopReason
from ..shared.documents import UserEdit
from ..shared.errors import ToolError
from ..shared.observers import BackgroundStep, CallReport, RunScope, ToolCall
from ..tools.paths import relative_path, safe_path
from .folder_lock import FolderLock
from .gitcmd import GitError
from .handle import buffers_on_loop
from .history import Stats, plan_rows, record_files
from .live_content import Observed, editor_buffer, holds
from .preparing import NOTICEABLE, Preparing
from .publisher import ChangesPublisher
from .store import BuffersOf, CheckpointStore
from .timeline import PROMPT_CHARS, Change, Record

if TYPE_CHECKING:
    from .. import contract
    from .handle import RunCheckpoints, StoreHandle

log = logging.getLogger(__name__)

UNSURE = "saved in the editor while the step's command ran"
"""Why a change a command's scan found may not all be the command's."""
INLINE_BYTES = 256 * 1024
"""Files up to this size are hashed on the event loop (about a tenth of a millisecond)."""
_NO_ITEM = object()


class CheckpointObserver:
    def __init__(self, checkpoints: RunCheckpoints, scope: RunScope) -> None:
        self._checkpoints = checkpoints
        self._scope = scope
        self._handle: StoreHandle | None = None
        self._item: object = _NO_ITEM
        self._seen_generation = -1
        self._before: tuple[str, str, Observed] | None = None
        """(tool_use_id, path, content) of the file a write_file / edit_file will change."""
        self._buffers_of: BuffersOf | None = None
        self._starting: asyncio.Future[None] | None = None
        self._preparing: Preparing | None = None
        """How far the first scan's storing of many files is, told to the user."""
        self._folder: FolderLock | None = None
        """The workspace, held from a changing call's scan before it to its scan after."""
        self._user_mark = 0
        """Where the user's editor edits stood at the scan before the call."""
        self._start_held = False
        """The first look at the workspace waits for another task's changing call."""
        self._start_blocked = asyncio.Event()
        """Set once the first look has found the folder held (a run's end waits for this
        or for the look to finish, whichever comes first)."""
        self._changing = False
        """The run called a workspace-changing tool (this observer sees only those)."""
        self._left: int | None = None
        """The folder lock's count when this run last let go of it (folder_lock.py)."""
        self._alone_since = False
        """No other task held the folder since this run's last scan: a command's scan
        after it finds only what it did (or the user), so none is needed before it."""
        self._last_look = 0.0
        """When this run last scanned the workspace (time.time()): a background command
        that ran since then may have written what the next scan finds."""
        self._publisher = ChangesPublisher(
            self._payload, scope.events.changes, start=checkpoints.in_background
        )
        """Sends workspaceAgent/changes: at once after a quiet spell, else coalesced."""

    @property
    def _session_id(self) -> str:
        return self._scope.session.id

    async def start_run(self) -> None:
        """Open the store and record the workspace as the run finds it, in the background:
        the first model call need not wait for git, the first workspace-changing call
        does (`_started`), so the record is complete before anything can change."""
        self._checkpoints.active.add(self._session_id)
        # The plan as the run finds it, taken now: the model may change it meanwhile.
        plan = [
            {"id": item.id, "text": item.text, "status": item.status}
            for item in self._scope.session.todos.items
        ]
        # Made now, not once the store is open: a call that comes before that waits too,
        # and is told so.
        self._preparing = Preparing(asyncio.get_running_loop(), self._scope.events.emit)
        self._starting = asyncio.ensure_future(self._open(self._preparing, plan))

    async def _started(self) -> None:
        """Wait for `start_run`'s work (shielded: a cancelled run does not cut it short)."""
        if self._starting is not None:
            await asyncio.shield(self._starting)

    async def _open(self, preparing: Preparing, plan: list[dict[str, str]]) -> None:
        try:
            try:
                watch = self._scope.settings.checkpoints_watch_files
                self._handle = await self._checkpoints.handle(self._scope.root, watch)
            except Exception as exc:  # CheckpointError and anything unexpected: run without
                self._give_up(exc)
                return
            loop = asyncio.get_running_loop()
            root = self._handle.store.root
            self._buffers_of = buffers_on_loop(loop, self._scope.documents, root)
            folder = self._handle.folder_lock()
            if not folder.try_take():  # not while another task's command runs: its files
                self._start_held = True  # are its own
                self._start_blocked.set()
                await folder.take()
                self._start_held = False
            try:
                self._user_mark = self._scope.documents.user_mark()
                steps = list(self._scope.background())  # read here, on the event loop
                await self._guarded(self._in_thread(self._start, plan, steps))
            except Exception as exc:  # never raised into every later call of the run
                log.exception("checkpoints failed at the start of session %s", self._session_id)
                self._give_up(exc)
            finally:
                self._left = folder.release()
        finally:
            preparing.finished()

    async def before_tool(self, call: ToolCall) -> None:
        self._changing = True
        preparing, starting = self._preparing, self._starting
        told = False
        if starting is not None and not starting.done() and preparing is not None:
            # The wait is said at once while progress is on screen, else once it is long.
            if preparing.shown or not (await asyncio.wait([starting], timeout=NOTICEABLE))[0]:
                if self._start_held:  # what it waits for is another task on the folder
                    self._waiting(call, ready=False)
                    told = True
                else:
                    preparing.waiting(call.name)
        await self._started()
        if self._handle is None:
            if told:
                self._waiting(call, ready=True)
            return
        await self._hold_folder(call, told)
        await self._guarded(self._before_tool(call))

    async def after_tool(self, report: CallReport) -> None:
        await self._started()
        try:
            if self._handle is None:
                return
            if self._folder is None:  # cancelled while it waited for the folder: never ran
                report.changes = []
                return
            await self._guarded(self._after_tool(report))
        finally:
            self._release_folder()

    async def _hold_folder(self, call: ToolCall, told: bool) -> None:
        """Take the workspace for this call; a wait for another task's call is said on its
        card (`told`: it was said already)."""
        assert self._handle is not None
        folder = self._handle.folder_lock()
        if not await folder.take(timeout=0 if told else NOTICEABLE):
            if not told:
                self._waiting(call, ready=False)
                told = True
            await folder.take()  # a cancel ends the wait: the call never runs
        if told:
            self._waiting(call, ready=True)
        self._folder = folder
        self._alone_since = self._left is not None and folder.found == self._left

    def _release_folder(self) -> None:
        folder, self._folder = self._folder, None
        if folder is not None:
            self._left = folder.release()

    def _waiting(self, call: ToolCall, *, ready: bool) -> None:
        message = (
            f"{call.name} goes on: the folder is free"
            if ready
            else f"{call.name} waits for another task on this folder"
        )
        self._scope.events.emit(
            p.EVENT_PREPARING,
            stored=0,
            total=0,
            ready=ready,
            waiting=call.name,
            toolUseId=call.tool_use_id,
            message=message,
        )

    async def end_run(self, stop: StopReason) -> None:
        """The last changes are sent before the run's answer (a client that has the answer
        has them); the store is brought up to date and packed after it, off its critical
        path."""
        await self._first_look_found()
        if self._waits_for_nothing():
            # It changed nothing, and its first look still waits for another task's command:
            # nothing of this run needs the record, and its end does not wait for that command.
            assert self._starting is not None
            self._starting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._starting
            self._handle = None
        else:
            await self._started()
        self._release_folder()
        steps = self._background_since(self._last_look)
        folder = self._handle.folder_lock() if steps and self._handle is not None else None
        # What they wrote during the last answer; not while another task's command runs
        # (its files are its own): the next look finds them then.
        if folder is not None and folder.try_take():
            try:
                scanned = not await self._glance()  # nothing moved: nothing to record
                if scanned:
                    await self._guarded(self._in_thread(self._background_scan, steps))
            finally:
                self._left = folder.release()
            if scanned:
                await self._publisher.changed()
        await self._publisher.flush()
        handle = self._handle
        if handle is None:
            self._checkpoints.active.discard(self._session_id)
        else:
            self._checkpoints.in_background(self._finish(handle))

    async def _first_look_found(self) -> None:
        """A run that changed nothing waits until its first look is done or found the
        folder held, whichever comes first: a run whose answer came back while the store was
        still opening must not then wait for another task's command to end."""
        starting = self._starting
        if self._changing or starting is None or starting.done():
            return
        blocked: asyncio.Future[Any] = asyncio.ensure_future(self._start_blocked.wait())
        try:
            await asyncio.wait([starting, blocked], return_when=asyncio.FIRST_COMPLETED)
        finally:
            blocked.cancel()

    def _waits_for_nothing(self) -> bool:
        """The run called no workspace-changing tool, and its first look at the workspace
        is still waiting for the folder (another task's command holds it)."""
        starting = self._starting
        return (
            not self._changing and self._start_held and starting is not None and not starting.done()
        )

    async def _finish(self, handle: StoreHandle) -> None:
        try:
            await self._upkeep(handle)
        finally:
            self._checkpoints.active.discard(self._session_id)

    async def _upkeep(self, handle: StoreHandle) -> None:
        store = handle.store
        await self._guarded(handle.run(store.finish_run, self._session_id))
        # Packing and pruning hold no lock: the next run need not wait for them. Only
        # once many loose objects piled up: until then they cost more than they save.
        if store.needs_packing(at_end=True):
            await self._guarded(asyncio.to_thread(store.upkeep))
        limit = self._scope.settings.checkpoints_max_bytes
        # The live set (this session is in it until the end of this): a run that starts
        # while the prune goes on is spared too.
        keep = self._checkpoints.active
        dropped = await self._guarded(asyncio.to_thread(store.prune, limit, keep))
        if dropped:
            self._notice(
                f"Checkpoints of {len(dropped)} older session(s) were removed to keep the store "
                f"under {limit:,} bytes (setting workspaceAgent.checkpoints.maxBytes)."
            )

    async def _pack(self, handle: StoreHandle) -> None:
        """Mid-run, once many loose objects piled up (a long run of big edits)."""
        await self._guarded(handle.run(handle.store.prepare_upkeep))
        await self._guarded(asyncio.to_thread(handle.store.upkeep))

    # -- the work ------------------------------------------------------------------------

    def _start(
        self,
        store: CheckpointStore,
        plan: list[dict[str, str]],
        background: Sequence[BackgroundStep] = (),
    ) -> None:
        store.refresh_excludes()
        progress = self._preparing.progress if self._preparing else None
        records = store.timeline(self._session_id).records
        since = records[-1].at if records else time.time()  # the session's last look
        steps = _ran_since(background, since)
        self._last_look = time.time()
        scan = store.scan(self._max_bytes, self._buffers, progress)
        changes = self._leave_to_background(store, scan.changes, steps, between_calls=True)
        tree = store.write_tree()
        record = Record("run", tree=tree, changes=changes, skipped=scan.skipped)
        # What tells this run's plan items from earlier runs' ones (history.py).
        record.prompt = self._scope.prompt[:PROMPT_CHARS]
        record.plan = plan
        self._append(store, record)

    async def _before_tool(self, call: ToolCall) -> None:
        assert self._handle is not None
        store = self._handle.store
        new_item = call.todo_id != self._item
        moved = store.generation != self._seen_generation
        steps = self._background_since(self._last_look)
        alone = self._alone_since and not steps  # a background command writes meanwhile
        if new_item or moved or (call.reach != "named_file" and not alone):
            # A command's changes are what the scan after it finds that this one did not.
            self._user_mark = self._scope.documents.user_mark()
            # Only a fresh look (another task, a background command): when not one stat
            # moved since the last, the scan would record nothing.
            if new_item or moved or not await self._glance():
                await self._in_thread(self._checkpoint, call, steps)
        self._before = None
        target = self._one_file(call)
        if target is not None:
            buffer = await editor_buffer(self._scope.documents, store.root / target)
            seen = await self._one_file_work(
                target, lambda s: s.observe(target, self._max_bytes, buffer)
            )
            self._before = (call.tool_use_id, target, seen)

    def _checkpoint(
        self, store: CheckpointStore, call: ToolCall, steps: Sequence[BackgroundStep] = ()
    ) -> None:
        """The state before a plan item's first workspace-changing call (or a fresh look
        when another session changed the workspace meanwhile, before a command, or while
        a background command may have written since the last look)."""
        todo_id = call.todo_id
        new_item = todo_id != self._item
        moved = store.generation != self._seen_generation
        self._last_look = time.time()
        scan = store.scan(self._max_bytes, self._buffers)
        record = Record("item" if new_item else "scan", todo_id=todo_id)
        if new_item:
            record.text = call.todo_text
        changes = self._leave_to_background(store, scan.changes, steps, between_calls=True)
        record.changes, record.skipped = changes, scan.skipped
        if moved and not new_item:
            record.tree = store.write_tree()
        self._item = todo_id
        if new_item or record.tree or record.changes or record.skipped:
            self._append(store, record)  # a scan that found nothing new is not kept

    async def _after_tool(self, report: CallReport) -> None:
        assert self._handle is not None
        handle = self._handle
        call, outcome = report.call, report.outcome
        if not outcome.ran:
            report.changes = []
            return
        record = Record(
            "tool",
            todo_id=call.todo_id,
            tool=call.name,
            text=call.todo_text,
            tool_use_id=call.tool_use_id,
        )
        if call.command is not None:
            record.command = call.command
            record.exit_code = outcome.exit_code
        if self._before is not None and self._before[0] == call.tool_use_id:
            _, target, before = self._before
            buffer = await editor_buffer(self._scope.documents, handle.store.root / target)
            if buffer is not None:
                handle.store.editor_paths.add(target)
            if report.scan_workspace:  # a hook ran in the call's window: it may have changed more
                steps = self._background_since(self._last_look)
                await self._in_thread(
                    lambda s: self._record_one(
                        s, record, target, before, buffer, scan=True, steps=steps
                    )
                )
            else:
                await self._one_file_work(
                    target, lambda s: self._record_one(s, record, target, before, buffer)
                )
            report.changes = await self._one_file_work(
                target, lambda _store: record_files(record, self._stats)
            )
        else:
            edits = self._scope.documents.user_edits_since(self._user_mark)
            root = handle.store.root
            users = {relative_path(root, path): edit for path, edit in edits.items()}
            mark = self._scope.documents.user_mark()
            steps = self._background_since(self._last_look)
            await self._in_thread(self._record_scan, record, users, steps)
            self._user_mark = mark  # what the user does from here on is not this call's
            report.changes = await self._in_thread(lambda _store: record_files(record, self._stats))
        await self._publisher.changed()
        if handle.store.needs_packing():
            self._checkpoints.in_background(self._pack(handle))

    def _record_one(
        self,
        store: CheckpointStore,
        record: Record,
        path: str,
        before: Observed,
        buffer: Any,
        scan: bool = False,
        steps: Sequence[BackgroundStep] = (),
    ) -> None:
        """The named file's change; with `scan`, what else changed in the workspace too
        (a PostToolUse hook ran in the call's window; what a background command was seen
        writing stays its)."""
        after = store.observe(path, self._max_bytes, buffer)
        if after.skipped is not None:
            record.skipped.append((path, after.skipped))
        elif before.skipped is not None:  # its old content was never stored: not revertible
            record.skipped.append((path, f"{before.skipped} before this change"))
            store.record_written(Change(path, None, after.entry), after.signature)
        else:
            change = Change(path, before.entry, after.entry, before.perm, after.perm)
            if after.entry != before.entry or change.perm_changed:
                record.changes.append(change)
                store.record_written(change, after.signature)
        if scan:
            self._last_look = time.time()
            found = store.scan(self._max_bytes, self._buffers)
            others = [change for change in found.changes if change.path != path]
            record.changes += self._leave_to_background(store, others, steps, False)
            record.skipped += [skip for skip in found.skipped if skip[0] != path]
        self._append(store, record)

    def _record_scan(
        self,
        store: CheckpointStore,
        record: Record,
        users: dict[str, UserEdit],
        steps: Sequence[BackgroundStep] = (),
    ) -> None:
        """What the command changed; what the user saved in the editor meanwhile is theirs
        (a record of its own before the call's), and a file both may have written is the
        call's but `unsure` (a revert asks before taking it back); what a background
        command was seen writing before is its (a record of its own before the call's)."""
        self._last_look = time.time()
        scan = store.scan(self._max_bytes, self._buffers)
        theirs = []
        changes = self._leave_to_background(store, scan.changes, steps, between_calls=False)
        for change in changes:
            edit = users.get(change.path)
            if edit is None:
                record.changes.append(change)
            elif change.after is not None and holds(
                store.objects.read_blob(change.after.sha), edit
            ):
                theirs.append(change)
            elif edit.saved or change.path in store.editor_paths:
                record.changes.append(change)
                record.unsure[change.path] = UNSURE
            else:  # edited in the editor, not saved: the disk's change is the command's
                record.changes.append(change)
        record.skipped = scan.skipped
        for step in steps:  # the call that started it: what it found is the command's
            if step.tool_use_id == record.tool_use_id:
                step.claimed.update(change.path for change in record.changes)
        if theirs:
            self._append(store, Record("scan", todo_id=record.todo_id, changes=theirs))
        self._append(store, record)

    async def _glance(self) -> bool:
        """A look between calls that needs no scan: True when nothing in the (small) work
        tree moved since the last scan (store.unchanged_at_a_glance), made on the event
        loop; it counts as a look, so a background command that ended before it wrote
        nothing the next scan finds."""
        assert self._handle is not None
        handle = self._handle
        async with handle.lock:
            looked = time.time()
            if not handle.store.unchanged_at_a_glance():
                return False
        self._last_look = looked
        return True

    # -- background commands -------------------------------------------------------------

    def _background_since(self, since: float) -> list[BackgroundStep]:
        """The session's background commands that ran at some time after `since` (read on
        the event loop, where the registry changes)."""
        return _ran_since(self._scope.background(), since)

    def _background_scan(self, store: CheckpointStore, steps: Sequence[BackgroundStep]) -> None:
        """A look between calls: all it finds is the background commands'."""
        self._last_look = time.time()
        scan = store.scan(self._max_bytes, self._buffers)
        left = self._leave_to_background(store, scan.changes, steps, between_calls=True)
        if left or scan.skipped:  # none left when a command ran; kept as someone else's
            self._append(store, Record("scan", todo_id=self._current_item(), changes=left))

    def _leave_to_background(
        self,
        store: CheckpointStore,
        changes: list[Change],
        steps: Sequence[BackgroundStep],
        between_calls: bool,
    ) -> list[Change]:
        """Record the changes that are the background commands' (a `tool` record each,
        under the step that started it, before the record the rest go to) and return the
        rest. A file one was seen writing is its; `between_calls`, every change is one's
        (the latest started, when several ran): no call of the agent ran meanwhile."""
        if not steps or not changes:
            return changes
        theirs: dict[int, tuple[BackgroundStep, list[Change]]] = {}
        kept = []
        for change in changes:
            owner = next((step for step in steps if change.path in step.claimed), None)
            if owner is None and between_calls:
                owner = steps[-1]
            if owner is None:
                kept.append(change)
                continue
            owner.claimed.add(change.path)
            theirs.setdefault(id(owner), (owner, []))[1].append(change)
        for owner, found in theirs.values():
            record = Record(
                "tool",
                todo_id=owner.todo_id,
                text=owner.todo_text,
                tool="bash",
                tool_use_id=owner.tool_use_id,
                changes=found,
                background=True,
            )
            self._append(store, record)
        return kept

    def _current_item(self) -> str | None:
        return self._item if isinstance(self._item, str) else None

    async def _payload(self) -> contract.Changes | None:
        """The session's workspaceAgent/changes payload as the store has it now, built in
        the store's thread when the publisher sends it (None: checkpoints gave up)."""
        if self._handle is None:
            return None
        plan = plan_rows(self._scope.session.todos)
        payload: contract.Changes | None = await self._guarded(
            self._handle.changes(self._session_id, plan)
        )
        return payload

    # -- helpers -------------------------------------------------------------------------

    def _append(self, store: CheckpointStore, record: Record) -> None:
        store.timeline(self._session_id).append(record)
        self._seen_generation = store.generation

    def _one_file(self, call: ToolCall) -> str | None:
        """The file a one-file call (write_file, edit_file) changes, relative to the workspace."""
        if call.reach != "named_file" or self._handle is None:
            return None
        raw = call.input.get("path")
        if not isinstance(raw, str):
            return None
        root = self._handle.store.root
        try:
            path = safe_path(root, raw)
        except ToolError:
            return None
        relative = relative_path(root, path)
        return None if relative == "." else relative

    def _buffers(self, paths: Any) -> Any:
        return self._buffers_of(paths) if self._buffers_of else {}

    @property
    def _stats(self) -> Stats:
        assert self._handle is not None and self._handle.stats is not None
        return self._handle.stats

    @property
    def _max_bytes(self) -> int:
        return self._scope.settings.max_file_bytes

    async def _one_file_work(self, path: str, work: Any) -> Any:
        """Work on one file the agent writes: a small file is read right here (a thread
        would cost more than the reading), a large one in the worker thread."""
        assert self._handle is not None
        handle = self._handle
        try:
            small = os.lstat(handle.store.root / path).st_size <= INLINE_BYTES
        except OSError:
            small = True
        if not small:
            return await handle.run(work, handle.store)
        async with handle.lock:
            return work(handle.store)

    async def _in_thread(self, func: Any, *args: Any) -> Any:
        assert self._handle is not None
        return await self._handle.run(func, self._handle.store, *args)

    async def _guarded(self, work: Any) -> Any:
        """Checkpoint trouble never fails a tool or a run: the user is told once and the
        run goes on without checkpoints."""
        try:
            return await work
        except (GitError, OSError, ValueError) as exc:
            log.exception("checkpoints failed in session %s", self._session_id)
            self._give_up(exc)
            return None
        finally:
            for message in self._checkpoints.take_notices():  # the file watcher's, once
                self._notice(message)

    def _give_up(self, exc: BaseException) -> None:
        self._handle = None
        message = str(exc)
        if not message.startswith("Checkpoints are off"):
            message = f"Checkpoints are off for the rest of this run: {message}"
        self._notice(message)

    def _notice(self, message: str) -> None:
        self._scope.events.emit(p.EVENT_NOTICE, message=message)


def _ran_since(steps: Sequence[BackgroundStep], since: float) -> list[BackgroundStep]:
    return [
        step
        for step in steps
        if step.tool_use_id and (step.ended_wall is None or step.ended_wall >= since)
    ]
