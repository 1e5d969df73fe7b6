"""`workspace-agent changes | revert | undo-revert`: a session's checkpoints, headless.

The same core as the language server (SessionManager), on disk only: files are read and
restored on disk, the conversation is told about a revert in the saved session.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..agent.errors import SessionError
from ..config import resolve_settings
from ..protocol import RevertParams, TodoItem, UndoRevertParams
from .terminal import file_line

if TYPE_CHECKING:
    from ..agent.sessions import SessionManager

EXIT_SKIPPED, EXIT_ERROR = 1, 2


class _Quiet:
    """Nothing to show while reverting: the result is printed at the end."""

    def on_event(self, session_id: str, kind: str, fields: dict[str, Any]) -> None: ...

    def on_todos(self, session_id: str, items: list[TodoItem]) -> None: ...

    def on_changes(self, session_id: str, changes: dict[str, Any]) -> None: ...


def _manager(root: Path) -> SessionManager:
    from ..agent.sessions import SessionManager  # the core loads only for these commands

    return SessionManager(_Quiet(), root=lambda: root, settings=lambda r: resolve_settings(r))


async def show_changes(args: argparse.Namespace) -> int:
    agent = _manager(args.workspace)
    try:
        session = agent.get(args.session)
        changes = await agent.changes(session.id)
    except SessionError as exc:
        print(f"workspace-agent: {exc}")
        return EXIT_ERROR
    if args.json:
        print(json.dumps({"sessionId": session.id, **changes}, indent=2, ensure_ascii=False))
        return 0
    texts = {item.id: item.text for item in session.todos.items}
    if not changes["items"]:
        print(f"session {session.id}: no changes recorded")
    for item in changes["items"]:
        todo_id = item["todoId"]
        print("before the plan" if todo_id is None else f"#{todo_id} {texts.get(todo_id, '')}")
        for file in item["files"]:
            print(f"   {file_line(file)}")
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
    )
    try:
        result = await agent.revert(params)
    except SessionError as exc:
        print(f"workspace-agent: {exc}")
        return EXIT_ERROR
    _print_result(result)
    print(
        f"undo with: workspace-agent undo-revert --session {args.session} --undo {result['undoId']}"
    )
    return EXIT_SKIPPED if result["skipped"] else 0


async def undo_revert(args: argparse.Namespace) -> int:
    agent = _manager(args.workspace)
    try:
        result = await agent.undo_revert(UndoRevertParams(args.session, args.undo, args.force))
    except SessionError as exc:
        print(f"workspace-agent: {exc}")
        return EXIT_ERROR
    _print_result(result)
    return EXIT_SKIPPED if result["skipped"] else 0


def _print_result(result: dict[str, Any]) -> None:
    for label, key in (("restored", "restored"), ("deleted", "deleted")):
        print(f"{label}: {', '.join(result[key]) if result[key] else '(none)'}")
    for skipped in result["skipped"]:
        print(f"skipped: {skipped['path']} ({skipped['reason']})")
    if result["skipped"]:
        print("(--force overwrites the skipped files)")
