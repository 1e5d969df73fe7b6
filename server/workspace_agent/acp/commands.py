"""`available_commands_update`: the slash commands (agent/saved_prompts.py) as the ACP
client lists them. Sent after session/new and session/load, and again around each prompt
when the command files changed (they are re-read then: a few small files), so a command
added while the session is open shows up by the next prompt.

`/clear` is left out: an ACP client starts a new session itself (its new-thread command),
and this session's id is the client's.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from acp.schema import (
    AvailableCommand,
    AvailableCommandInput,
    AvailableCommandsUpdate,
    UnstructuredCommandInput,
)

from ..agent.saved_prompts import list_commands

NOT_OVER_ACP = ("clear",)
CLEAR_REFUSED = (
    "/clear is not available over ACP: start a new session with your client's new thread "
    "(or new session) command; this one keeps its conversation"
)


class CommandList:
    def __init__(self, send: Callable[[str, Any], None]) -> None:
        self._send = send
        self._sent: dict[str, list[AvailableCommand]] = {}

    def refresh(self, session_id: str, root: Path) -> None:
        """Send the session's commands if they differ from what the client has."""
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
