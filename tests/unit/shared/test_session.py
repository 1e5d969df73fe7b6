"""A session takes back a prompt the model never answered, and only such a prompt."""

from __future__ import annotations

from workspace_agent.shared.session import Session


def texts(session: Session) -> list[tuple[str, list[str]]]:
    return [(m["role"], [b["text"] for b in m["content"]]) for m in session.messages]


def test_a_first_prompt_is_taken_back_with_its_title():
    session = Session()
    mark = session.prompt_mark()
    session.add_prompt("Hello", "context")
    assert session.take_back(mark)
    assert session.messages == [] and session.title is None


def test_a_prompt_merged_into_a_trailing_user_message_leaves_what_was_there():
    session = Session(title="First")
    session.add_prompt("First")
    session.messages.append({"role": "assistant", "content": [{"type": "text", "text": "ok"}]})
    session.add_note("The user reverted step 1.")
    mark = session.prompt_mark()
    session.add_prompt("Second")
    assert session.take_back(mark)
    assert texts(session) == [
        ("user", ["First"]),
        ("assistant", ["ok"]),
        ("user", ["The user reverted step 1."]),
    ]
    assert session.title == "First" and session.history_rewritten


def test_nothing_is_taken_back_once_the_model_answered():
    session = Session()
    mark = session.prompt_mark()
    session.add_prompt("Hello")
    session.messages.append({"role": "assistant", "content": [{"type": "text", "text": "Hi"}]})
    assert not session.take_back(mark)
    assert texts(session) == [("user", ["Hello"]), ("assistant", ["Hi"])]
