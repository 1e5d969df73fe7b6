"""At `planReady` over ACP: ask the user about the plan with `session/request_permission`.

ACP has no message for "here is a plan, run it?", so the question is a tool call of its
own (kind `switch_mode`, as the plan would switch the agent from planning to acting): a
`tool_call` showing the model's summary and the plan, the permission request about it,
then a `tool_call_update` saying what was chosen. Options: "Run this plan"
(`run_plan`, allow_once), "Keep planning" (`keep_planning`: the model revises it, still in
plan mode) and "Reject" (`reject`, reject_once: the turn ends, the plan stays the
session's). A client error or an option not offered counts as a reject; a `cancelled`
outcome (or session/cancel while the question is open) as a cancel.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Sequence
from typing import Any, Literal

from acp import text_block, tool_content, update_tool_call
from acp.interfaces import Client
from acp.schema import (
    AllowedOutcome,
    DeniedOutcome,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallStart,
    ToolCallStatus,
    ToolCallUpdate,
)

from ..protocol import TodoItem
from .updates import AcpUpdates

log = logging.getLogger(__name__)

Choice = Literal["run", "revise", "reject", "cancelled"]
RUN = "run_plan"
KEEP = "keep_planning"
REJECT = "reject"
OPTIONS = (
    PermissionOption(option_id=RUN, name="Run this plan", kind="allow_once"),
    PermissionOption(option_id=KEEP, name="Keep planning", kind="reject_once"),
    PermissionOption(option_id=REJECT, name="Reject", kind="reject_once"),
)
CHOICES: dict[str, Choice] = {RUN: "run", KEEP: "revise", REJECT: "reject"}
TITLE = "Run this plan?"
AFTER: dict[Choice, str] = {
    "run": "Running the plan.",
    "revise": "Planning on: the agent revises the plan.",
    "reject": "Not run: the plan is kept, nothing was changed.",
    "cancelled": "Not run: cancelled, the plan is kept.",
}


class PlanQuestion:
    def __init__(self, client: Client, updates: AcpUpdates) -> None:
        self._client = client
        self._updates = updates
        self._open: dict[str, asyncio.Future[RequestPermissionResponse]] = {}
        self._cancelled: set[str] = set()

    async def ask(self, session_id: str, summary: str, plan: Sequence[TodoItem]) -> Choice:
        """What the user wants done with the plan the run ended with."""
        call_id = f"plan-{uuid.uuid4().hex[:12]}"
        content: list[Any] = [tool_content(text_block(plan_text(summary, plan)))]
        raw = {"plan": [{"id": item.id, "text": item.text} for item in plan]}
        self._updates.send(
            session_id,
            ToolCallStart(
                session_update="tool_call",
                tool_call_id=call_id,
                title=TITLE,
                kind="switch_mode",
                status="pending",
                content=content,
                raw_input=raw,
            ),
        )
        question = ToolCallUpdate(
            tool_call_id=call_id,
            title=TITLE,
            kind="switch_mode",
            status="pending",
            content=content,
            raw_input=raw,
        )
        choice = await self._answer(session_id, question)
        status: ToolCallStatus = "completed" if choice in ("run", "revise") else "failed"
        self._updates.send(
            session_id,
            update_tool_call(
                call_id, status=status, content=[tool_content(text_block(AFTER[choice]))]
            ),
        )
        return choice

    def cancel(self, session_id: str) -> None:
        """session/cancel while the question is open: it is answered "cancelled"."""
        waiting = self._open.get(session_id)
        if waiting is not None:
            self._cancelled.add(session_id)
            waiting.cancel()

    async def _answer(self, session_id: str, question: ToolCallUpdate) -> Choice:
        asking = asyncio.ensure_future(
            self._client.request_permission(
                session_id=session_id, tool_call=question, options=[*OPTIONS]
            )
        )
        self._open[session_id] = asking
        try:
            answer = await asking
        except asyncio.CancelledError:
            if session_id not in self._cancelled:
                raise  # the prompt itself is cancelled (the agent is shutting down)
            return "cancelled"
        except Exception as exc:  # the client failed to answer: nothing runs
            log.warning("plan question failed (counted as a reject): %s", exc)
            return "reject"
        finally:
            self._cancelled.discard(session_id)
            with contextlib.suppress(KeyError):
                del self._open[session_id]
        outcome = answer.outcome
        if isinstance(outcome, DeniedOutcome):
            return "cancelled"
        chosen = outcome.option_id if isinstance(outcome, AllowedOutcome) else None
        return CHOICES.get(chosen or "", "reject")


def plan_text(summary: str, plan: Sequence[TodoItem]) -> str:
    """The question's text: the model's summary, then the plan as a numbered list."""
    lines = [summary.strip(), ""] if summary.strip() else []
    lines.append("The plan:")
    lines += [f"{n}. {item.text}" for n, item in enumerate(plan, 1)]
    return "\n".join(lines)
