"""The todo list's rules, example by example and as properties."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workspace_agent.shared.todo import MAX_ITEMS, TodoError, TodoList, parse_items

statuses = st.sampled_from(["pending", "in_progress", "completed"])
item = st.fixed_dictionaries(
    {
        "id": st.one_of(st.text(min_size=1, max_size=5), st.integers(0, 99)),
        "text": st.text(max_size=20),
        "status": st.one_of(statuses, st.text(max_size=8)),
    }
)


def is_valid(items: list[dict]) -> bool:
    ids = [" ".join(str(i["id"]).split()) for i in items]
    return (
        len(items) <= MAX_ITEMS
        and all(i["text"].strip() for i in items)
        and all(i["status"] in ("pending", "in_progress", "completed") for i in items)
        and all(ids)
        and len(set(ids)) == len(ids)
        and sum(i["status"] == "in_progress" for i in items) <= 1
    )


@given(st.lists(item, max_size=25), st.lists(item, max_size=25))
def test_a_list_is_installed_exactly_when_it_follows_the_rules(
    first: list[dict], second: list[dict]
):
    todos = TodoList()
    for proposal in (first, second):
        before = todos.items
        if is_valid(proposal):
            todos.replace(proposal)
            assert [(i.id, i.text, i.status) for i in todos.items] == [
                (" ".join(str(p["id"]).split()), " ".join(p["text"].split()), p["status"])
                for p in proposal
            ]
        else:
            with pytest.raises(TodoError):
                todos.replace(proposal)
            assert todos.items == before  # a rejected list leaves the old one in place


@given(
    st.lists(
        st.tuples(st.text(min_size=1, max_size=8).filter(str.strip), statuses),
        max_size=MAX_ITEMS,
        unique_by=lambda t: " ".join(t[0].split()),
    )
)
def test_render_counts_completed_items(pairs: list[tuple[str, str]]):
    working = [i for i, (_, s) in enumerate(pairs) if s == "in_progress"]
    pairs = [(t, "pending" if i in working[1:] else s) for i, (t, s) in enumerate(pairs)]
    todos = TodoList()
    todos.replace([{"id": t, "text": f"do {t}", "status": s} for t, s in pairs])
    rendered = todos.render().splitlines()
    if not pairs:
        assert rendered == ["(no todos)"]
        return
    done = sum(s == "completed" for _, s in pairs)
    assert rendered[-1] == f"({done}/{len(pairs)} completed)"
    marks = {"pending": "[ ]", "in_progress": "[>]", "completed": "[x]"}
    assert rendered[:-1] == [
        f"{marks[s]} #{' '.join(t.split())}: {' '.join(f'do {t}'.split())}" for t, s in pairs
    ]


def test_messages_name_the_rule_and_the_item():
    with pytest.raises(TodoError, match=r"too many items: 21 \(at most 20\)"):
        parse_items([{"id": i, "text": "x", "status": "pending"} for i in range(21)])
    with pytest.raises(
        TodoError,
        match=re.escape(
            "item 2 (#b): status 'done' is not one of pending | in_progress | completed"
        ),
    ):
        parse_items(
            [
                {"id": "a", "text": "x", "status": "pending"},
                {"id": "b", "text": "y", "status": "done"},
            ]
        )
    with pytest.raises(TodoError, match="'items' must be a list"):
        parse_items({"id": 1})
    with pytest.raises(TodoError, match="item 1: 'id' must be a non-empty string"):
        parse_items([{"id": True, "text": "x", "status": "pending"}])
