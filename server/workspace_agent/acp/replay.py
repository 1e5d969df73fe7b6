"""`session/load`: a saved conversation told again as the `session/update`s of its runs.

User prompts → `user_message_chunk` (an image the prompt carried as an image chunk),
the model's text → `agent_message_chunk`, each
tool_use and its tool_result → `tool_call` and its closing `tool_call_update` (an edit
with the diffs the live run showed, when they were kept; a todo call only when it
failed, as live: the plan is shown once, at the end), then the plan as it stands. The
reminders the agent slipped in for the model are left out.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from acp import (
    image_block,
    update_agent_message_text,
    update_user_message,
    update_user_message_text,
)
from acp.schema import ToolCallStart

from ..agent.loop import REMINDER
from ..shared.session import Session
from . import tool_calls
from .updates import plan_update


def replay(session: Session, root: Path, diffs: dict[str, dict[str, Any]]) -> Iterator[Any]:
    """`diffs`: what the live run's edits ended with, by tool_use id (diff_log.py)."""
    calls: dict[str, ToolCallStart] = {}
    names: dict[str, str] = {}
    for message in session.messages:
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks or []:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text" and block.get("text") and block["text"] != REMINDER:
                if message.get("role") == "user":
                    yield update_user_message_text(block["text"])
                else:
                    yield update_agent_message_text(block["text"])
            elif kind == "image" and message.get("role") == "user":
                source = block.get("source")
                if isinstance(source, dict) and source.get("type") == "base64":
                    yield update_user_message(
                        image_block(str(source.get("data")), str(source.get("media_type")))
                    )
            elif kind == "tool_use":
                call = tool_calls.replayed_call(block, root)
                calls[call.tool_call_id] = call
                names[call.tool_call_id] = str(block.get("name", ""))
                if not tool_calls.is_plan(call):
                    yield call
            elif kind == "tool_result":
                started = calls.get(str(block.get("tool_use_id")))
                if started is not None and tool_calls.is_plan(started):
                    if block.get("is_error"):
                        output = tool_calls.result_text(block)
                        yield tool_calls.failed_plan_call(started, {"fullOutput": output})
                    continue
                name = names.get(started.tool_call_id, "") if started else ""
                logged = diffs.get(str(block.get("tool_use_id")))
                yield tool_calls.replayed_result(block, name, logged)
    if session.todos.items:
        yield plan_update(session.todos.items)
