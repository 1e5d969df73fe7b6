"""`workspace-agent changes | revert | undo-revert`: a session's checkpoints, headless.

The same core as the language server (the session's checkpoints from SessionManager), on
disk only: files are read and restored on disk, the conversation is told about a revert
in the saved session. A refused request prints its reason and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..agent.errors import SessionError
from ..protocol import RevertParams, TodoItem, UndoRevertParams
from ..shared.errors import CheckpointError
from .terminal import file_line

if TYPE_CHECKING:
    from .. import contract
    from ..agent.sessions import SessionManager

REFUSED = (SessionError, CheckpointError)
"""The core's refusals: an unknown session, a checkpoint request that cannot be done."""

EXIT_SKIPPED, EXIT_ERROR = 1, 2


class _Quiet:
    """Nothing to show while reverting: the result is printed at the end."""

    def on_event(self, session_id: str, kind: str, fields: dict[str, Any]) -> None: ...

    def on_todos(self, session_id: str, items: list[TodoItem]) -> None: ...

    def on_changes(self, session_id: str, changes: contract.Changes) -> None: ...

    def on_context(self, session_id: str, meter: contract.ContextMeter) -> None: ...


def _manager(root: Path) -> SessionManager:
    from ..agent.front_end import NO_OPTIONS, session_manager  # the core loads only now

    return session_manager(_Quiet(), root, NO_OPTIONS.settings())


async def show_changes(args: argparse.Namespace) -> int:
    agent = _manager(args.workspace)
    try:
        session = agent.get(args.session)
        changes = await agent.checkpoints(session.id).changes()
    except REFUSED as exc:
        return _refused(exc)
    if args.json:
        print(json.dumps({"sessionId": session.id, **changes}, indent=2, ensure_ascii=False))
        return 0
    if not changes["items"]:
        print(f"session {session.id}: no changes recorded")
    ids = [item["todoId"] for item in changes["items"]]
    prompts: dict[int | None, str | None] = {
        run["run"]: run["prompt"] for run in changes.get("runs", [])
    }
    shown_run = None
    for item in changes["items"]:
        todo_id = item["todoId"]
        if len(prompts) > 1 and item.get("run") != shown_run:  # several runs: say which
            shown_run = item.get("run")
            print(f"run {shown_run}: {_first_line(prompts.get(shown_run) or '')}")
        name = item["displayName"]  # the server's one name for it, as in its messages
        line = name[:1].upper() + name[1:]
        if ids.count(todo_id) > 1:  # the id names several items: --key tells them apart
            line += f"  (--key {item['key']})"
        print(line)
        for file in item["files"]:
            unsure = f"  (unsure: {file['unsure']})" if "unsure" in file else ""
            print(f"   {file_line(file)}{unsure}")
        for run in item["commands"]:
            status = "no exit status" if run["exitCode"] is None else f"exit {run['exitCode']}"
            print(f"   $ {run['command']}  ({status})")
        for skipped in item.get("skipped", []):
            print(f"   ! {skipped['path']}: {skipped['reason']}")
    for revert in changes["reverts"]:
        state = "undone" if revert["undone"] else f"undo id {revert['undoId']}"
        print(f"reverted to {revert['target']} ({state})")
    return 0


async def revert(args: argparse.Namespace) -> int:
    agent = _manager(args.workspace)
    params = RevertParams(
        args.session,
        None if args.before_plan or args.last_run else args.item,
        last_run=args.last_run,
        force=args.force,
        key=args.key,
        dry_run=args.dry_run,
        todo_id_given=args.key is None,
        only=args.only,
    )
    try:
        result = await agent.checkpoints(params.session_id).revert(params)
    except REFUSED as exc:
        return _refused(exc)
    _print_result(result)
    for conflict in result.get("conflicts", []):
        print(f"conflict: {conflict['path']} ({conflict['reason']})")
    if result.get("conflicts"):
        print("nothing was changed: later steps changed the same lines")
        return EXIT_SKIPPED
    if not args.dry_run:
        undo_id = result["undoId"]
        print(f"undo with: workspace-agent undo-revert --session {args.session} --undo {undo_id}")
    return EXIT_SKIPPED if result["skipped"] else 0


async def undo_revert(args: argparse.Namespace) -> int:
    agent = _manager(args.workspace)
    try:
        params = UndoRevertParams(args.session, args.undo, args.force, args.dry_run)
        result = await agent.checkpoints(params.session_id).undo_revert(params)
    except REFUSED as exc:
        return _refused(exc)
    _print_result(result)
    return EXIT_SKIPPED if result["skipped"] else 0


def _refused(exc: Exception) -> int:
    print(f"workspace-agent: {exc}")
    return EXIT_ERROR


def _print_result(result: contract.RevertOutcome | contract.UndoRevertResult) -> None:
    if result.get("dryRun"):
        print("dry run: nothing was changed; this is what would be done")
    would = "would be " if result.get("dryRun") else ""
    for key in ("restored", "deleted"):
        print(f"{would}{key}: {', '.join(result[key]) if result[key] else '(none)'}")
    for skipped in result["skipped"]:
        print(f"{would}skipped: {skipped['path']} ({skipped['reason']})")
    if result["skipped"]:
        print("(--force overwrites the skipped files)")


def _first_line(text: str) -> str:
    line = text.strip().split("\n", 1)[0]
    return line if len(line) <= 80 else line[:79] + "…"
