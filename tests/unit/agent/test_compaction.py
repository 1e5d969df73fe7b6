"""Compaction keeps the history valid for the API and within its target, whatever its shape."""

from __future__ import annotations

import itertools
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from workspace_agent.agent.compaction import HEADER, compact_if_needed

from tests.support.lsp import assert_valid_history


@st.composite
def conversations(draw) -> list[dict]:
    messages: list[dict] = [
        {
            "role": "user",
            "content": [{"type": "text", "text": draw(st.text(min_size=1, max_size=50))}],
        }
    ]
    ids = itertools.count()
    for _ in range(draw(st.integers(1, 30))):
        calls = draw(st.integers(0, 3))
        assistant = [{"type": "text", "text": draw(st.text(min_size=1, max_size=300))}]
        tool_ids = [f"t{next(ids)}" for _ in range(calls)]
        assistant += [
            {
                "type": "tool_use",
                "id": t,
                "name": "read_file",
                "input": {"path": "x", "note": "n" * draw(st.integers(0, 2000))},
            }
            for t in tool_ids
        ]
        messages.append({"role": "assistant", "content": assistant})
        if not calls:
            messages.append({"role": "user", "content": [{"type": "text", "text": "go on"}]})
            continue
        results = [
            {
                "type": "tool_result",
                "tool_use_id": t,
                "content": "r" * draw(st.integers(0, 5000)),
                **({"is_error": True} if draw(st.booleans()) else {}),
            }
            for t in tool_ids
        ]
        messages.append({"role": "user", "content": results})
    return messages


@settings(max_examples=300)
@given(conversations(), st.integers(500, 50_000))
def test_compaction_keeps_the_history_valid(messages: list[dict], window: int):
    size = len(json.dumps(messages)) // 4
    before = json.dumps(messages)
    report = compact_if_needed(messages, size, window, "(no todos)")
    assert_valid_history(messages)
    if size < 0.8 * window:
        assert report is None and json.dumps(messages) == before
    elif report is not None:
        assert len(json.dumps(messages)) < len(before)
        assert report.after_tokens < report.before_tokens


def test_a_second_compaction_carries_the_first_summary_over():
    messages = [{"role": "user", "content": [{"type": "text", "text": "the original task"}]}]
    for n in range(30):
        messages.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": f"step {n} " + "z" * 2000},
                    {
                        "type": "tool_use",
                        "id": f"t{n}",
                        "name": "bash",
                        "input": {"command": f"echo {n}"},
                    },
                ],
            }
        )
        messages.append(
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": "x" * 3000}],
            }
        )
    compact_if_needed(messages, 30_000, 20_000, "[ ] #1: plan")
    messages.append({"role": "assistant", "content": [{"type": "text", "text": "more"}]})
    messages.append({"role": "user", "content": [{"type": "text", "text": "a second task"}]})
    for n in range(30, 40):
        messages.append(
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": f"t{n}",
                        "name": "bash",
                        "input": {"command": f"echo {n}"},
                    }
                ],
            }
        )
        messages.append(
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": "y" * 3000}],
            }
        )
    compact_if_needed(messages, 19_000, 20_000, "[x] #1: plan")
    summary = messages[0]["content"][0]["text"]
    assert summary.count(HEADER) == 1
    assert "- the original task" in summary  # carried over from the first summary
    assert "a second task" in json.dumps(messages)  # summarised or still there, never lost
    assert 'bash {"command": "echo 0"} -> ok' in summary and "[x] #1: plan" in summary
    assert_valid_history(messages)


def test_thinking_blocks_are_kept_whole_or_dropped_with_their_turn():
    """The API takes thinking blocks back only exactly as it sent them: compaction drops
    whole turns and never edits one (it may stub the tool_use and tool_result beside it)."""
    messages: list[dict] = [{"role": "user", "content": [{"type": "text", "text": "go"}]}]
    for n in range(12):
        messages.append(
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "thinking",
                        "thinking": f"thought {n} " + "t" * 900,
                        "signature": f"s{n}",
                    },
                    {"type": "redacted_thinking", "data": f"d{n}" + "=" * 900},
                    {
                        "type": "tool_use",
                        "id": f"t{n}",
                        "name": "read_file",
                        "input": {"path": "x" * 900},
                    },
                ],
            }
        )
        messages.append(
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": "r" * 3000}],
            }
        )
    originals = {
        json.dumps(block, sort_keys=True)
        for message in messages
        for block in message["content"]
        if block["type"] in ("thinking", "redacted_thinking")
    }
    report = compact_if_needed(messages, 90_000, 100_000, "(no todos)")

    assert report is not None and report.summarised_messages
    assert_valid_history(messages)
    kept = [
        json.dumps(block, sort_keys=True)
        for message in messages
        for block in message["content"]
        if block["type"] in ("thinking", "redacted_thinking")
    ]
    assert kept and set(kept) <= originals  # unchanged, byte for byte
    for message in messages:
        if message["role"] == "assistant":  # each kept turn still starts with its thinking
            assert [b["type"] for b in message["content"]][:2] == ["thinking", "redacted_thinking"]
