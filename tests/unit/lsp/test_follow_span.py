"""The range followAgent selects: what differs between the text before and after."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from workspace_agent.lsp.follow import changed_span


def test_an_insertion_a_replacement_and_a_deletion():
    assert changed_span("abc\ndef\n", "abc\nXYZ\ndef\n") == (4, 8)
    assert changed_span("return 'hi'\n", "return 'hello'\n") == (9, 13)
    assert changed_span("one\ntwo\nfour\n", "one\nfour\n") == (4, 4)
    assert changed_span("same", "same") == (4, 4)
    assert changed_span("", "new file\n") == (0, 9)


@given(st.text(max_size=40), st.text(max_size=10), st.text(max_size=10), st.text(max_size=40))
def test_the_span_is_exactly_what_differs(head: str, old: str, new: str, tail: str):
    before, after = head + old + tail, head + new + tail
    start, end = changed_span(before, after)
    # Outside the span the texts agree, and the span is no larger than the edit made.
    assert after[:start] == before[:start]
    assert after[end:] == before[len(before) - (len(after) - end) :]
    assert start >= 0 and end - start <= len(new) + 0 and start <= end <= len(after)
    assert before[:start] + after[start:end] + before[len(before) - (len(after) - end) :] == after
