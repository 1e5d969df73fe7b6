"""A background command as ACP shows it: the `bash` call that started it stays
`in_progress` with its output in the content until the command ends (then `completed`,
or `failed` when it failed or was stopped); the ports it opens and its end are also said
as a quoted line of the agent's message (agent/front_end.py BackgroundLines), so every
client shows where to open them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from acp import update_agent_message_text, update_tool_call
from acp.schema import ToolCallProgress

from ..agent.front_end import BackgroundLines, ended
from .tool_calls import command_text

OUTPUT_CHARS = 20_000
"""The output a call's content holds at most (its end: a dev server's latest lines)."""


@dataclass
class _Call:
    tool_call_id: str
    shown: str = ""
    """What the call's content showed when it answered (bash's first answer)."""
    more: str = ""
    """Output since."""
    answered: bool = False


class BackgroundCalls:
    def __init__(self, send: Callable[[str, Any], None]) -> None:
        self._send = send
        self._calls: dict[tuple[str, str], _Call] = {}
        self._lines = BackgroundLines()

    def answered(
        self, session_id: str, fields: Mapping[str, Any], update: ToolCallProgress
    ) -> None:
        """The starting call's result: it stays in progress while the command runs."""
        key = (session_id, str(fields["background"]))
        call = self._calls.setdefault(key, _Call(str(fields["toolUseId"])))
        call.answered, call.more = True, ""
        call.shown = str(fields.get("fullOutput", fields.get("output", "")))
        if fields.get("exitCode") is None and call.tool_call_id:  # still running
            update.status = "in_progress"

    def state(self, session_id: str, fields: Mapping[str, Any]) -> None:
        """A `background` event: its ports and its end as message lines; the call closed
        when it ended."""
        key = (session_id, str(fields.get("id")))
        call = self._calls.setdefault(key, _Call(str(fields.get("toolUseId") or "")))
        lines = self._lines.state(session_id, fields)
        if lines:
            said = "".join(f"\n\n> {line}" for line in lines)
            self._send(session_id, update_agent_message_text(said + "\n\n"))
        if fields.get("state") == "running" or not call.answered:
            return
        self._calls.pop(key, None)
        failed = fields.get("state") == "stopped" or fields.get("exitCode") != 0
        text = _joined(call) + f"\n[{ended(fields)}]"
        self._send(
            session_id,
            update_tool_call(
                call.tool_call_id,
                status="failed" if failed else "completed",
                content=[command_text(text)],
            ),
        )

    def output(self, session_id: str, fields: Mapping[str, Any]) -> None:
        """A `backgroundOutput` event: the call's content with it."""
        call = self._calls.get((session_id, str(fields.get("id"))))
        if call is None or not call.answered:
            return  # its first answer will show it
        call.more = (call.more + str(fields.get("text", "")))[-OUTPUT_CHARS:]
        self._send(
            session_id,
            update_tool_call(
                call.tool_call_id,
                status="in_progress",
                content=[command_text(_joined(call))],
            ),
        )


def _joined(call: _Call) -> str:
    text = call.shown.rstrip("\n")
    if call.more:
        text += "\n" + call.more.rstrip("\n")
    return text[-OUTPUT_CHARS:]
