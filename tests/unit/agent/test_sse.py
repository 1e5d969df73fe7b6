"""Assembling a streamed answer from its SSE events (what the model client reads)."""

from __future__ import annotations

import pytest

from workspace_agent.agent.sse import MessageAssembler, StreamError, StreamIncomplete
from workspace_agent.testing.scripted_model import sse_events, text, tool


def message(*blocks: dict, stop: str = "end_turn") -> dict:
    content = [
        dict(b, id=f"toolu_{i}") if b["type"] == "tool_use" else b for i, b in enumerate(blocks)
    ]
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 7, "cache_read_input_tokens": 90},
    }


def assemble(events: list) -> tuple[MessageAssembler, list[str]]:
    deltas: list[str] = []
    answer = MessageAssembler(deltas.append)
    for _, data in events:
        answer.feed(data)
    return answer, deltas


def test_text_and_tool_calls_come_out_as_plain_blocks():
    answer, deltas = assemble(
        sse_events(
            message(text("Hello " * 10), tool("bash", {"command": "ls -la"}), stop="tool_use")
        )
    )
    (first, _), (second, raw) = answer.content()
    assert first == {"type": "text", "text": "Hello " * 10}
    assert "".join(deltas) == "Hello " * 10 and len(deltas) > 1  # streamed in pieces
    assert second == {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "bash",
        "input": {"command": "ls -la"},
    }
    assert raw == '{"command": "ls -la"}'
    assert answer.stop_reason == "tool_use"
    assert answer.usage == {"input_tokens": 10, "output_tokens": 7, "cache_read_input_tokens": 90}


def test_invalid_tool_json_is_kept_raw_for_the_caller_to_report():
    block = dict(tool("bash", {}), partial_json='{"command": "ls')
    answer, _ = assemble(sse_events(message(block, stop="tool_use")))
    ((tool_block, raw),) = answer.content()
    assert tool_block["input"] == {} and raw == '{"command": "ls'


def test_a_stream_without_message_stop_is_incomplete():
    events = sse_events(message(text("cut")))[:-1]
    answer, _ = assemble(events)
    with pytest.raises(StreamIncomplete):
        answer.content()


def test_an_error_event_raises_with_its_body():
    answer = MessageAssembler(lambda _: None)
    with pytest.raises(StreamError, match="overloaded_error: Overloaded") as raised:
        answer.feed(
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
        )
    assert raised.value.body["error"]["type"] == "overloaded_error"


def test_sse_lines_end_at_lf_or_crlf_only():
    """U+2028, U+0085 and a form feed are JSON string content, not line ends (str.splitlines,
    and so httpx's iter_lines, would cut the event there); a chunk may end mid-character."""
    from workspace_agent.agent.sse import SseLines

    event = 'data: {"t": "a\u2028b\x85c\x0cd\u00e9"}'.encode()
    lines = SseLines()
    cut = event.index("\u00e9".encode()) + 1  # inside the two bytes of é
    got = lines.feed(b"event: x\r\n" + event[:cut]) + lines.feed(event[cut:] + b"\n\n")
    assert got == ["event: x", event.decode(), ""]
