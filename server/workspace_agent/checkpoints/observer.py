"""The checkpoint observer of one run: the workspace's state at the start of the run and
before each plan item's first workspace-changing call, and what every such call changed.

A tool that changes only the file it names (`ToolCall.reach` "named_file": write_file,
edit_file): that file alone is read before and after the call (no git process). Any
other workspace-changing tool (bash) is followed by a scan of the whole workspace, so
what a command changed counts too; a call that runs a shell command (`ToolCall.command`)
is listed with its exit status (`ToolResult.exit_code`).

While a background command of the session runs (`RunScope.background`), what it writes
is the step's that started it (a `tool` record with `background`, docs/checkpoints.md):
every other changing call gets a scan before it too, and what a scan finds between
calls (at the run's start and end, before a call) goes to that command; what the scan
after a command finds goes to the command, but for the files a background command was
seen writing before. A one-file call keeps exactly its file either way.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .. import protocol as p
from ..protocol import StopReason
from ..shared.errors import ToolError
from ..shared.observers import BackgroundStep, CallReport, RunScope, ToolCall
from ..tools.paths import display_path, safe_path
from .gitcmd import GitError
from .handle import buffers_on_loop
from .history import Stats, plan_rows, record_files
from .live_content import Observed, editor_buffer
from .preparing import NOTICEABLE, Preparing
from .publisher import ChangesPublisher
from .store import BuffersOf, CheckpointStore
from .timeline import PROMPT_CHARS, Change, Record

if TYPE_CHECKING:
    from .. import contract
    from .handle import RunCheckpoints, StoreHandle

log = logging.getLogger(__name__)

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
        self._last_look = 0.0
        """When this run last scanned the workspace (time.time()): a background command
        that ran since then may have written what the next scan finds."""
        self._starting: asyncio.Future[None] | None = None
        self._preparing: Preparing | None = None
        """How far the first scan's storing of many files is, told to the user."""
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
                self._handle = await self._checkpoints.handle(self._scope.root)
            except Exception as exc:  # CheckpointError and anything unexpected: run without
                self._give_up(exc)
                return
            loop = asyncio.get_running_loop()
            root = self._handle.store.root
            self._buffers_of = buffers_on_loop(loop, self._scope.documents, root)
            try:
                steps = list(self._scope.background())  # read here, on the event loop
                await self._guarded(self._in_thread(self._start, plan, steps))
            except Exception as exc:  # never raised into every later call of the run
                log.exception("checkpoints failed at the start of session %s", self._session_id)
                self._give_up(exc)
        finally:
            preparing.finished()

    async def before_tool(self, call: ToolCall) -> None:
        preparing, starting = self._preparing, self._starting
        if starting is not None and not starting.done() and preparing is not None:
            # The wait is said at once while progress is on screen, else once it is long.
            if preparing.shown or not (await asyncio.wait([starting], timeout=NOTICEABLE))[0]:
                preparing.waiting(call.name)
        await self._started()
        if self._handle is None:
            return
        await self._guarded(self._before_tool(call))

    async def after_tool(self, report: CallReport) -> None:
        await self._started()
        if self._handle is None:
            return
        await self._guarded(self._after_tool(report))

    async def end_run(self, stop: StopReason) -> None:
        """The last changes are sent before the run's answer (a client that has the answer
        has them); the store is brought up to date and packed after it, off its critical
        path."""
        await self._started()
        steps = self._background_since(self._last_look)
        if steps and self._handle is not None:  # what they wrote during the last answer
            await self._guarded(self._in_thread(self._background_scan, steps))
            await self._publisher.changed()
        await self._publisher.flush()
        handle = self._handle
        if handle is None:
            self._checkpoints.active.discard(self._session_id)
        else:
            self._checkpoints.in_background(self._finish(handle))

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
        steps = self._background_since(self._last_look)
        command_call = call.reach != "named_file"
        if (
            call.todo_id != self._item
            or store.generation != self._seen_generation
            or (
                steps and command_call  # what the background wrote so far is not this call's
            )
        ):
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
        when another session changed the workspace meanwhile, or a background command may
        have written since the last look)."""
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
            self._append(store, record)  # a look that found nothing new is not kept

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
            await self._one_file_work(
                target, lambda s: self._record_one(s, record, target, before, buffer)
            )
            report.changes = await self._one_file_work(
                target, lambda _store: record_files(record, self._stats)
            )
        else:
            steps = self._background_since(self._last_look)
            await self._in_thread(self._record_scan, record, steps)
            report.changes = await self._in_thread(lambda _store: record_files(record, self._stats))
        await self._publisher.changed()
        if handle.store.needs_packing():
            self._checkpoints.in_background(self._pack(handle))

    def _record_one(
        self, store: CheckpointStore, record: Record, path: str, before: Observed, buffer: Any
    ) -> None:
        after = store.observe(path, self._max_bytes, buffer)
        if after.skipped is not None:
            record.skipped.append((path, after.skipped))
        elif before.skipped is not None:  # its old content was never stored: not revertible
            record.skipped.append((path, f"{before.skipped} before this change"))
            store.record_written(Change(path, None, after.entry), after.signature)
        elif after.entry != before.entry:
            change = Change(path, before.entry, after.entry)
            record.changes.append(change)
            store.record_written(change, after.signature)
        self._append(store, record)

    def _record_scan(
        self, store: CheckpointStore, record: Record, steps: Sequence[BackgroundStep] = ()
    ) -> None:
        self._last_look = time.time()
        scan = store.scan(self._max_bytes, self._buffers)
        changes = self._leave_to_background(store, scan.changes, steps, between_calls=False)
        record.changes, record.skipped = changes, scan.skipped
        for step in steps:  # the call that started it: what it found is the command's
            if step.tool_use_id == record.tool_use_id:
                step.claimed.update(change.path for change in changes)
        self._append(store, record)

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
        shown = display_path(root, path)
        return None if shown == "." else shown

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
