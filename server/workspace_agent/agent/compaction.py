"""Keeping a long conversation inside the model's context window.

When the last request used more than COMPACT_AT of the window, the conversation is
shrunk in place, in two stages, until it is estimated to fit TARGET of the window:

1. Tool results and large tool inputs older than the last KEEP_TURNS turns become short
   stubs (the model keeps what it decided, not every byte it read).
2. If that is not enough, the oldest turns are replaced by one summary message: the
   user's prompts, the tool calls made and the model's own notes, and the current plan.

The summary is built from the history itself, not by asking the model: it costs no
tokens, cannot invent anything, and works the same against the scripted test model.
Sizes are estimated by scaling the last measured token count by the change in characters.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

COMPACT_AT = 0.8
TARGET = 0.5
KEEP_TURNS = 4
STUB_ABOVE = 400
"""Tool results and inputs shorter than this (characters) are left as they are."""
SUMMARY_LINE = 200
HEADER = "[Earlier part of this session, summarised to fit the context window]"
ASKED, CALLS, NOTES, PLAN = (
    "The user asked:",
    "Tool calls you made, oldest first:",
    "Your notes at the time:",
    "The plan as it stands now:",
)


@dataclass
class Compaction:
    before_tokens: int
    after_tokens: int
    stubbed: int
    summarised_messages: int

    def describe(self) -> str:
        parts = []
        if self.stubbed:
            parts.append(f"{self.stubbed} old tool results and inputs shortened")
        if self.summarised_messages:
            parts.append(f"{self.summarised_messages} older messages summarised")
        return (
            f"Compacted the conversation to fit the context window: about "
            f"{self.before_tokens:,} → {self.after_tokens:,} tokens ({'; '.join(parts)})."
        )


def compaction_due(last_input_tokens: int, window: int) -> bool:
    """Whether the last request came near enough to `window` for `compact_if_needed` to act."""
    return last_input_tokens >= COMPACT_AT * window


def compact_if_needed(
    messages: list[dict[str, Any]], last_input_tokens: int, window: int, plan: str
) -> Compaction | None:
    """Shrink `messages` in place when the last request came close to `window` tokens."""
    if not compaction_due(last_input_tokens, window):
        return None
    chars_before = _chars(messages)
    target_chars = chars_before * (TARGET * window) / last_input_tokens

    def estimate() -> int:
        return round(last_input_tokens * _chars(messages) / max(chars_before, 1))

    stubbed = _stub_old_tool_io(messages)
    summarised = 0
    if _chars(messages) > target_chars:
        summarised = _summarise_oldest(messages, target_chars, plan)
    if not stubbed and not summarised:
        return None
    return Compaction(last_input_tokens, estimate(), stubbed, summarised)


def _stub_old_tool_io(messages: list[dict[str, Any]]) -> int:
    cutoff = _recent_start(messages)
    names = _tool_names(messages)
    stubbed = 0
    for message in messages[:cutoff]:
        for block in _blocks(message):
            if block.get("type") == "tool_result" and _size(block.get("content")) > STUB_ABOVE:
                name = names.get(block["tool_use_id"], "tool")
                block["content"] = (
                    f"[{name} output of {_size(block['content']):,} characters removed to save "
                    "context; run the tool again if you need it]"
                )
                stubbed += 1
            elif block.get("type") == "tool_use":
                for key, value in block.get("input", {}).items():
                    if isinstance(value, str) and len(value) > STUB_ABOVE:
                        block["input"][key] = f"[{len(value):,} characters removed to save context]"
                        stubbed += 1
    return stubbed


def _summarise_oldest(messages: list[dict[str, Any]], target_chars: float, plan: str) -> int:
    """Replace messages[:cut] with one summary, cutting before an assistant message so
    every kept tool_use still has its tool_result right after it."""
    recent = _recent_start(messages)
    cut = 0
    for index in range(1, recent + 1):
        if messages[index]["role"] != "assistant":
            continue
        cut = index
        if _chars(messages[index:]) + 4000 <= target_chars:
            break
    if cut == 0:
        return 0
    replacement = {
        "role": "user",
        "content": [{"type": "text", "text": _summary(messages[:cut], plan)}],
    }
    if _chars([replacement]) >= _chars(messages[:cut]):
        return 0  # what is left to summarise is already smaller than a summary of it
    messages[:cut] = [replacement]
    return cut


def _summary(old: list[dict[str, Any]], plan: str) -> str:
    items: dict[str, list[str]] = {ASKED: [], CALLS: [], NOTES: []}
    outcome = {
        block["tool_use_id"]: "error" if block.get("is_error") else "ok"
        for message in old
        for block in _blocks(message)
        if block.get("type") == "tool_result"
    }
    for message in old:
        for block in _blocks(message):
            kind = block.get("type")
            if kind == "text" and block["text"].startswith(HEADER):
                _merge_previous(block["text"], items)  # summarised before: carry it over
            elif kind == "text" and message["role"] == "user" and not block["text"].startswith("<"):
                items[ASKED].append(_line(block["text"]))
            elif kind == "text" and message["role"] == "assistant":
                items[NOTES].append(_line(block["text"]))
            elif kind == "tool_use":
                args = json.dumps(block.get("input", {}), ensure_ascii=False)
                result = outcome.get(block["id"], "no result")
                items[CALLS].append(f"{block['name']} {_line(args, 120)} -> {result}")
    limits = {ASKED: 40, CALLS: 60, NOTES: 20}
    sections = [HEADER]
    for heading, lines in items.items():
        if lines:
            kept = lines[-limits[heading] :]
            sections.append("\n".join([heading, *(f"- {line}" for line in kept)]))
    sections.append(f"{PLAN}\n{plan}")
    return "\n\n".join(sections)


def _merge_previous(text: str, items: dict[str, list[str]]) -> None:
    for section in text.split("\n\n")[1:]:
        heading, _, body = section.partition("\n")
        if heading in items:
            items[heading].extend(line[2:] for line in body.splitlines() if line.startswith("- "))


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message["content"]
    return content if isinstance(content, list) else []


def _recent_start(messages: list[dict[str, Any]]) -> int:
    """Index of the first message of the last KEEP_TURNS assistant turns."""
    seen = 0
    for index in range(len(messages) - 1, -1, -1):
        if messages[index]["role"] == "assistant":
            seen += 1
            if seen == KEEP_TURNS:
                return index
    return 0


def _tool_names(messages: list[dict[str, Any]]) -> dict[str, str]:
    return {
        block["id"]: block["name"]
        for message in messages
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_use"
    }


def _chars(messages: list[dict[str, Any]]) -> int:
    return len(json.dumps(messages, ensure_ascii=False))


def _size(content: Any) -> int:
    return len(content) if isinstance(content, str) else len(json.dumps(content))


def _line(text: str, limit: int = SUMMARY_LINE) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
