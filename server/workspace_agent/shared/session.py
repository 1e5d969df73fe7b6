"""One conversation with the agent: its messages, its plan and its token usage.

A session outlives a run: a follow-up prompt continues the same conversation and plan.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from typing import Any, Literal

from ..protocol import StopCause, Usage
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
    stop_cause: StopCause | None = field(default=None, repr=False)
    """Why the run in progress is being cancelled (its runEnd's `cause`); the first
    cause given wins (a client's `reload`, then the `shutdown` that follows it)."""
    restarted: Literal["clear", "compact"] | None = field(default=None, repr=False)
    """The session (re)started by /clear or /compact: its next run's SessionStart hooks get
    that `source`, as Claude Code's do. Kept in memory only, for the next run."""

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

    def prompt_mark(self) -> PromptMark:
        """Where the conversation stands before a prompt is added (see `take_back`)."""
        last = self.messages[-1] if self.messages else None
        blocks = len(last["content"]) if last and last["role"] == "user" else None
        return PromptMark(len(self.messages), blocks, self.title)

    def take_back(self, mark: PromptMark) -> bool:
        """Remove the prompt added since `mark`, when the model never answered it (a run
        that failed on its first request: no key, a refused request, an API outage), so
        the session holds what the user saw answered and a retry is not sent twice. False,
        and nothing changes, when the conversation moved on otherwise (an answer, a
        compaction)."""
        merged = mark.blocks is not None
        if len(self.messages) != mark.messages + (0 if merged else 1):
            return False
        last = self.messages[-1]
        if last["role"] != "user":
            return False
        if merged:
            del last["content"][mark.blocks :]
        else:
            self.messages.pop()
        self.title = mark.title
        self.history_rewritten = True
        return True

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


@dataclass(frozen=True)
class PromptMark:
    """The conversation before a prompt: how many messages, the trailing user message's
    block count (None when the last message is not the user's), the title."""

    messages: int
    blocks: int | None
    title: str | None


def content_text(content: Any) -> str:
    """The text of a message's (or a tool_result's) `content`, which the Messages API
    allows to be a string or a list of blocks; non-text blocks count as empty."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""
