"""Approvals over ACP: `session/request_permission` about the tool call that needs one.

Options: "Allow" (allow_once), "Allow for this session" (allow_always: the core stops
asking for that kind of action until the session ends) and "Deny" (reject_once); an
action asked about for a reason (a command the guard cannot read with confidence) gets no
"for this session" option. A call of an MCP tool offers "Allow this tool for this
session" (allow_tool_session, kind allow_always) and "Allow this server for this session"
(allow_always). A network question (a sandboxed command reaching for a host) says so in
its content, and its "Allow for this session" is that host's. A `cancelled` outcome, a
client error or an answer we did not offer count as declined.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from acp import text_block, tool_content, update_tool_call
from acp.interfaces import Client
from acp.schema import AllowedOutcome, PermissionOption, ToolCallUpdate

from ..guard.approvals import Question, Reply
from .updates import AcpUpdates

log = logging.getLogger(__name__)

OPTIONS = (
    PermissionOption(option_id="allow_once", name="Allow", kind="allow_once"),
    PermissionOption(option_id="allow_always", name="Allow for this session", kind="allow_always"),
    PermissionOption(option_id="reject_once", name="Deny", kind="reject_once"),
)
ANSWERS = {
    "allow_once": "allow",
    "allow_tool_session": "allow_tool_session",
    "allow_always": "allow_session",
    "reject_once": "deny",
}
PER_TOOL = (
    PermissionOption(option_id="allow_once", name="Allow", kind="allow_once"),
    PermissionOption(
        option_id="allow_tool_session", name="Allow this tool for this session", kind="allow_always"
    ),
    PermissionOption(
        option_id="allow_always", name="Allow this server for this session", kind="allow_always"
    ),
    PermissionOption(option_id="reject_once", name="Deny", kind="reject_once"),
)


class AcpAsker:
    def __init__(self, client: Client, updates: AcpUpdates) -> None:
        self._client = client
        self._updates = updates
        self.session_id = ""
        """Set once the session exists (the core creates it after its asker)."""

    async def ask(self, kind: str, action: str, reason: str | None = None) -> Any:
        options = [o for o in OPTIONS if reason is None or o.kind != "allow_always"]
        return await self._ask(action, reason, options)

    async def ask_in_detail(self, question: Question) -> Reply:
        if question.kind == "network":  # about the host: "Allow for this session" is that host's
            return Reply(await self._ask(question.action, None, list(OPTIONS), question.message))
        if "allow_tool_session" in question.options:
            return Reply(await self._ask(question.action, question.reason, list(PER_TOOL)))
        return Reply(await self.ask(question.kind, question.action, question.reason))

    async def _ask(
        self,
        action: str,
        reason: str | None,
        options: list[PermissionOption],
        said: str | None = None,
    ) -> Any:
        call = self._updates.running.get(self.session_id)
        call_id = call.tool_call_id if call else f"approval-{uuid.uuid4().hex[:12]}"
        question = ToolCallUpdate(
            tool_call_id=call_id,
            title=call.title if call else action,
            kind=call.kind if call else None,
            status="pending",
            content=[tool_content(text_block(said or _question(action, reason)))],
            raw_input=call.raw_input if call else None,
        )
        try:
            answer = await self._client.request_permission(
                session_id=self.session_id, tool_call=question, options=options
            )
        except Exception as exc:  # the client failed to answer: nothing runs
            log.warning("permission request failed (counted as declined): %s", exc)
            return None
        outcome = answer.outcome
        offered = {option.option_id for option in options}
        chosen = outcome.option_id if isinstance(outcome, AllowedOutcome) else None
        choice = ANSWERS.get(chosen) if chosen in offered else None
        if choice in ("allow", "allow_tool_session", "allow_session"):
            self._updates.send(self.session_id, update_tool_call(call_id, status="in_progress"))
        return choice


def _question(action: str, reason: str | None) -> str:
    why = f" It is asked about because {reason}." if reason else ""
    return f"The agent wants to {action}.{why}"
