"""Assembling one streamed Messages API answer from its SSE events, as plain dicts.

The SDK's MessageStream builds pydantic objects and a full snapshot for every event and
re-parses the partial tool JSON on every delta; the agent needs none of that, only the
finished blocks, the text deltas as they come and the raw tool JSON. Reading the events
directly takes a few milliseconds off every model turn (the per-turn overhead and latency
benchmarks, bench/overhead.py and bench/latency.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any


class SseLines:
    """The lines of an SSE byte stream, fed in chunks cut anywhere (even inside a UTF-8
    character). SSE lines end at LF or CRLF only; httpx's `iter_lines` splits text the way
    str.splitlines does, also at U+0085, U+2028, U+2029 and a few control characters, which
    the API sends raw inside JSON strings (a tool input or text holding them): the event
    would come out cut in two and fail to parse."""

    def __init__(self) -> None:
        self._rest = b""

    def feed(self, chunk: bytes) -> list[str]:
        *lines, self._rest = (self._rest + chunk).split(b"\n")
        return [line.removesuffix(b"\r").decode("utf-8") for line in lines]


class StreamIncomplete(Exception):
    """The stream ended before `message_stop`: the answer is incomplete (a retry may help)."""


class StreamError(Exception):
    """An `error` event inside the stream (overloaded, ...): `body` is the event."""

    def __init__(self, body: dict[str, Any]) -> None:
        error = body.get("error")
        if not isinstance(error, dict):
            error = {}
        super().__init__(f"{error.get('type', 'error')}: {error.get('message', '')}")
        self.body = body


class MessageAssembler:
    """Feed it the `data:` payloads of one answer, in order; read the result when done."""

    def __init__(
        self, on_text: Callable[[str], None], on_thinking: Callable[[str], None] | None = None
    ) -> None:
        self._on_text = on_text
        self._on_thinking = on_thinking
        self.blocks: dict[int, dict[str, Any]] = {}
        self.raw_inputs: dict[int, str] = {}
        """The tool input JSON as streamed, per block index (it may not parse)."""
        self.stop_reason: str | None = None
        self.usage: dict[str, int] = {}
        self.done = False

    def feed(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "content_block_delta":
            self._delta(event["index"], event["delta"])
        elif kind == "content_block_start":
            block = dict(event["content_block"])
            if block.get("type") in ("tool_use", "server_tool_use"):
                block["input"] = {}
                self.raw_inputs[event["index"]] = ""
            self.blocks[event["index"]] = block
        elif kind == "content_block_stop":
            self._finish_block(event["index"])
        elif kind == "message_start":
            self.usage.update(_counts(event["message"].get("usage")))
        elif kind == "message_delta":
            self.stop_reason = event.get("delta", {}).get("stop_reason", self.stop_reason)
            self.usage.update(_counts(event.get("usage")))
        elif kind == "message_stop":
            self.done = True
        elif kind == "error":
            raise StreamError(event)

    def content(self) -> list[tuple[dict[str, Any], str | None]]:
        """The blocks in order, each with its raw tool JSON (None for other blocks)."""
        if not self.done:
            raise StreamIncomplete("the stream ended before the answer was complete")
        return [(self.blocks[i], self.raw_inputs.get(i)) for i in sorted(self.blocks)]

    def _delta(self, index: int, delta: dict[str, Any]) -> None:
        block = self.blocks[index]
        kind = delta.get("type")
        if kind == "text_delta":
            block["text"] = block.get("text", "") + delta["text"]
            if delta["text"]:
                self._on_text(delta["text"])
        elif kind == "input_json_delta":
            self.raw_inputs[index] += delta["partial_json"]
        elif kind == "thinking_delta":
            block["thinking"] = block.get("thinking", "") + delta["thinking"]
            if delta["thinking"] and self._on_thinking is not None:
                self._on_thinking(delta["thinking"])
        elif kind == "signature_delta":
            block["signature"] = delta["signature"]
        elif kind == "citations_delta":  # a text block's sources (web search, documents)
            block.setdefault("citations", []).append(delta["citation"])

    def _finish_block(self, index: int) -> None:
        raw = self.raw_inputs.get(index)
        if raw:
            try:
                self.blocks[index]["input"] = json.loads(raw)
            except json.JSONDecodeError:
                pass  # kept as {}: the caller reports the raw JSON's problem to the model


def _counts(usage: Any) -> dict[str, int]:
    """The usage's counts; the server tools' (`server_tool_use: {web_search_requests}`)
    flattened in."""
    if not isinstance(usage, dict):
        return {}
    counts = {key: value for key, value in usage.items() if isinstance(value, int)}
    server = usage.get("server_tool_use")
    if isinstance(server, dict):
        counts.update((k, v) for k, v in server.items() if isinstance(v, int))
    return counts
