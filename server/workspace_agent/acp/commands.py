"""`available_commands_update`: the slash commands (agent/saved_prompts.py: built-ins,
skills, saved prompts) as the ACP client lists them. Sent after session/new and
session/load, and again when the command files or skills change: their folders are
looked at every POLL_SECONDS (a stat of a few small files; no watcher library, no
thread) and around each prompt.

`/clear` is left out: an ACP client starts a new session itself (its new-thread command),
and this session's id is the client's.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from acp.schema import (
    AvailableCommand,
    AvailableCommandInput,
    AvailableCommandsUpdate,
    UnstructuredCommandInput,
)

from ..agent.saved_prompts import folders, list_commands

POLL_SECONDS = 1.0

CLEAR_REFUSED = (
    "/clear is not available over ACP: start a new session with your client's new thread "
    "(or new session) command; this one keeps its conversation"
)
NOT_OVER_ACP = {"clear": CLEAR_REFUSED}
"""Built-ins an ACP session cannot do, with what to do instead (the core refuses them,
and they are not offered)."""


class CommandList:
    def __init__(self, send: Callable[[str, Any], None]) -> None:
        self._send = send
        self._sent: dict[str, list[AvailableCommand]] = {}
        self._roots: dict[str, Path] = {}
        self._seen: dict[str, tuple[Any, ...]] = {}
        self._watch: asyncio.Task[None] | None = None

    def refresh(self, session_id: str, root: Path) -> None:
        """Send the session's commands if they differ from what the client has; from now
        on, the session's command folders are watched."""
        self._roots[session_id] = root
        self._seen[session_id] = signature(root)
        if self._watch is None:
            self._watch = asyncio.get_running_loop().create_task(self._poll())
        commands = available(root)
        if self._sent.get(session_id) == commands:
            return
        self._sent[session_id] = commands
        self._send(
            session_id,
            AvailableCommandsUpdate(
                session_update="available_commands_update", available_commands=commands
            ),
        )

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(POLL_SECONDS)
            for session_id, root in list(self._roots.items()):
                if signature(root) != self._seen.get(session_id):
                    self.refresh(session_id, root)

    async def close(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watch


def signature(root: Path) -> tuple[Any, ...]:
    """What changes when a command file or a skill is added, removed or edited."""
    from ..skills.discovery import folders as skill_folders
    from ..skills.discovery import skill_files

    found: list[Any] = []
    for _source, folder in folders(root):
        try:
            entries = sorted(folder.iterdir())
        except OSError:
            continue
        found += [_stamp(path) for path in entries if path.suffix == ".md"]
    for _scope, folder in skill_folders(root):
        found += [_stamp(path) for path in skill_files(folder)]
    return tuple(found)


def _stamp(path: Path) -> tuple[Any, ...]:
    try:
        stat = path.stat()
    except OSError:
        return (str(path),)
    return (str(path), stat.st_mtime_ns, stat.st_size)


def available(root: Path) -> list[AvailableCommand]:
    commands, _problems = list_commands(root)  # a bad file is reported when it is used
    return [
        AvailableCommand(
            name=command.name,
            description=command.description,
            input=AvailableCommandInput(root=UnstructuredCommandInput(hint=command.argument_hint))
            if command.argument_hint
            else None,
        )
        for command in commands
        if command.name not in NOT_OVER_ACP
    ]
