"""One conversation with the agent: its messages, its plan and its token usage.

A session outlives a run: a follow-up prompt continues the same conversation and plan.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from typing import Any

from ..protocol import Usage
from .todo import TodoList


@dataclass
class Session:
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    messages: list[dict[str, Any]] = field(default_factory=list)
    todos: TodoList = field(default_factory=TodoList)
    usage: Usage = field(default_factory=Usage)
    allowed_kinds: set[str] = field(default_factory=set)
    """Kinds of action the user allowed "for this session" (see guard/approvals.py)."""
    rounds_without_todo: int = 0
    """Consecutive model turns that used tools but not `todo` (drives the reminder)."""
    title: str | None = None
    """The first prompt: how the session is named in lists."""
    last_input_tokens: int = 0
    """Size of the last request to the model, from its usage (drives compaction)."""
    history_rewritten: bool = False
    """Messages changed in place since the last save (compaction, a merged prompt)."""
    saved: Any = field(default=None, repr=False)
    """The session store's note of what is already on disk."""
    load_notes: list[str] = field(default_factory=list, repr=False)
    """Problems met when the session was loaded from disk, to tell the user once."""
    task: asyncio.Task[Any] | None = field(default=None, repr=False)
    """The run in progress, if any."""

    @property
    def busy(self) -> bool:
        return self.task is not None and not self.task.done()

    def add_note(self, text: str) -> None:
        """Tell the model of something that happened between runs (a revert): a text block
        in the next user message, so roles keep alternating and the next prompt joins it."""
        block = {"type": "text", "text": text}
        if self.messages and self.messages[-1]["role"] == "user":
            self.messages[-1]["content"].append(block)
            self.history_rewritten = True
        else:
            self.messages.append({"role": "user", "content": [block]})

    def add_prompt(
        self, prompt: str, context: str | None = None, images: list[dict[str, Any]] | None = None
    ) -> None:
        """Append the user's prompt (after the editor's context block and the image blocks,
        when there are some), merging into a trailing user message (left by a run cancelled
        while the model was answering) so roles keep alternating."""
        blocks: list[dict[str, Any]] = [{"type": "text", "text": context}] if context else []
        blocks += [*(images or []), {"type": "text", "text": prompt}]
        self.title = self.title or " ".join(prompt.split())[:120]
        if self.messages and self.messages[-1]["role"] == "user":
            self.messages[-1]["content"].extend(blocks)
            self.history_rewritten = True
        else:
            self.messages.append({"role": "user", "content": blocks})


def content_text(content: Any) -> str:
    """The text of a message's (or a tool_result's) `content`, which the Messages API
    allows to be a string or a list of blocks; non-text blocks count as empty."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""
