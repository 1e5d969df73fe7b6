"""New problems after an edit: matched by what they say, not where; errors and warnings
only; a bounded note."""

from __future__ import annotations

from typing import Any

from workspace_agent.agent.new_problems import (
    MAX_LISTED,
    new_problems,
    note,
    problems_of,
    summary,
)


def diag(line: int, message: str, severity: int | None = 1, **extra: Any) -> dict[str, Any]:
    raw: dict[str, Any] = {
        "range": {"start": {"line": line, "character": 2}, "end": {"line": line, "character": 5}},
        "message": message,
        **extra,
    }
    if severity is not None:
        raw["severity"] = severity
    return raw


def test_an_old_problem_that_moved_is_not_new():
    before = problems_of("a.py", [diag(3, "undefined name 'x'", source="pyflakes")])
    after = problems_of(
        "a.py",
        [diag(5, "undefined name 'x'", source="pyflakes"), diag(1, "Expected ':'", code=1)],
    )
    (fresh,) = new_problems(before, after)
    assert (fresh.message, fresh.line) == ("Expected ':'", 1)


def test_a_second_copy_of_an_old_problem_is_new():
    before = problems_of("a.py", [diag(3, "unused import")])
    after = problems_of("a.py", [diag(3, "unused import"), diag(9, "unused import")])
    assert [p.line for p in new_problems(before, after)] == [9]


def test_only_errors_and_warnings_count_and_no_severity_means_error():
    after = problems_of(
        "a.py",
        [diag(0, "info", 3), diag(1, "hint", 4), diag(2, "warn", 2), diag(3, "bare", None), "junk"],
    )
    assert [(p.message, p.severity) for p in after] == [("warn", 2), ("bare", 1)]


def test_the_note_says_how_many_where_and_lists_them_bounded():
    many = problems_of("big.json", [diag(n, f"problem {n}\nsecond line") for n in range(12)])
    one = problems_of("app.py", [diag(0, "Expected comma", 1, source="json", code=514)])
    text = note({"big.json": many, "app.py": one}) or ""
    lines = text.splitlines()
    assert lines[0] == (
        "The editor reports 13 new problems after this change (12 in big.json, 1 in app.py):"
    )
    assert lines[1] == "- big.json:1:3 error: problem 0 second line"
    assert len(lines) == 1 + MAX_LISTED + 1 and lines[-1] == "- … and 3 more"
    assert summary({"app.py": one}) == "1 new problem in app.py"
    assert note({"app.py": []}) is None and summary({}) is None
    assert (note({"app.py": one}) or "").splitlines() == [
        "The editor reports 1 new problem in app.py after this change:",
        "- app.py:1:3 error: Expected comma [json 514]",
    ]
