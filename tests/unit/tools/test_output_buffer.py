"""HeadTailBuffer keeps the head and the tail within its cap, whatever streams through."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from workspace_agent.tools.output_buffer import HeadTailBuffer


@given(st.lists(st.text(max_size=50), max_size=60), st.integers(2, 120))
def test_keeps_head_and_tail_and_counts_the_rest(chunks: list[str], cap: int):
    buffer = HeadTailBuffer(cap)
    for chunk in chunks:
        buffer.feed(chunk)
    whole = "".join(chunks)
    rendered = buffer.render()
    if len(whole) <= cap:
        assert rendered == whole and buffer.dropped == 0
    else:
        head, tail = whole[: cap // 2], whole[len(whole) - (cap - cap // 2) :]
        assert buffer.dropped == len(whole) - cap
        assert rendered.startswith(head) and rendered.endswith(tail)
        assert f"{buffer.dropped:,} characters of output cut" in rendered


def test_multibyte_characters_split_across_chunks():
    buffer = HeadTailBuffer(100)
    data = "héllo wörld ✓".encode()
    for i in range(len(data)):
        buffer.feed_bytes(data[i : i + 1])
    buffer.feed_bytes(b"", final=True)
    assert buffer.render() == "héllo wörld ✓"
