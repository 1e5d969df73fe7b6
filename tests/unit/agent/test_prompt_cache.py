"""The scripted API's prompt-cache accounting, and the agent's cache breakpoints."""

from __future__ import annotations

from workspace_agent.agent.model import with_cache_breakpoints
from workspace_agent.testing.prompt_cache import MIN_CACHEABLE, PromptCache, billed


def tokens(block: dict) -> int:
    return len(block.get("text", "")) or 1


def request(*texts: str, mark_last: bool = True) -> dict:
    messages = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": [{"type": "text", "text": t}]}
        for i, t in enumerate(texts)
    ]
    system = [{"type": "text", "text": "s" * MIN_CACHEABLE}]
    tools: list[dict] = []
    if mark_last:
        system, tools, messages = with_cache_breakpoints(system, tools, messages)
    return {"system": system, "tools": tools, "messages": messages}


def test_each_request_reads_the_prefix_the_previous_one_wrote():
    cache = PromptCache()
    first = cache.account(request("a" * 100), tokens)
    assert (
        first.cache_read_input_tokens,
        first.cache_creation_input_tokens,
        first.input_tokens,
    ) == (0, MIN_CACHEABLE + 100, 0)
    second = cache.account(request("a" * 100, "b" * 50, "c" * 30), tokens)
    assert second.cache_read_input_tokens == MIN_CACHEABLE + 100
    assert second.cache_creation_input_tokens == 80 and second.input_tokens == 0


def test_without_breakpoints_everything_is_uncached_input():
    cache = PromptCache()
    for _ in range(2):
        usage = cache.account(request("a" * 100, mark_last=False), tokens)
        assert (
            usage.input_tokens,
            usage.cache_read_input_tokens,
            usage.cache_creation_input_tokens,
        ) == (MIN_CACHEABLE + 100, 0, 0)


def test_short_prefixes_are_not_cached():
    cache = PromptCache()
    body = {
        "system": [{"type": "text", "text": "tiny", "cache_control": {"type": "ephemeral"}}],
        "messages": [],
    }
    assert cache.account(body, tokens).input_tokens == 4
    assert cache.account(body, tokens).cache_read_input_tokens == 0


def test_a_changed_prefix_misses():
    cache = PromptCache()
    cache.account(request("a" * 100), tokens)
    changed = cache.account(request("z" * 100), tokens)
    # Only the system prompt (its own breakpoint) is shared; the new conversation is written.
    assert (changed.cache_read_input_tokens, changed.cache_creation_input_tokens) == (
        MIN_CACHEABLE,
        100,
    )


def test_breakpoints_leave_the_session_messages_alone():
    messages = [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    system, tools, marked = with_cache_breakpoints(
        [{"type": "text", "text": "s"}], [{"name": "t"}], messages
    )
    assert marked[-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in messages[0]["content"][0]
    assert system[-1]["cache_control"] and tools[-1]["cache_control"]


def test_billed_cost_weights():
    assert billed(100, 100, 100) == 100 + 125 + 10
