"""The editor's context block as the model reads it: bounded, delimited, lines from 1."""

from __future__ import annotations

from workspace_agent.agent.editor_context import (
    MAX_DIAGNOSTICS,
    describe_context,
    format_problem,
    render_context,
)
from workspace_agent.protocol import ContextDiagnostic, RunContext, Selection, Span


def problem(line: int, message: str = "bad", **extra: object) -> ContextDiagnostic:
    return ContextDiagnostic("a.py", Span(line, 0, line, 3), message, **extra)  # type: ignore[arg-type]


def test_nothing_attached_renders_nothing():
    assert render_context(None, 100) is None
    assert RunContext.from_wire({}) is None
    assert describe_context(None) is None


def test_problems_are_listed_up_to_the_bound_each_on_one_short_line():
    many = tuple(problem(n, "word " * 200) for n in range(MAX_DIAGNOSTICS + 5))
    block = render_context(RunContext(diagnostics=many), 100) or ""
    lines = block.splitlines()
    listed = [line for line in lines if line.startswith("- a.py:")]
    assert len(listed) == MAX_DIAGNOSTICS
    assert all(len(line) < 330 and line.endswith("…") for line in listed)
    assert "- … and 5 more" in lines
    assert f"Problems the editor reports ({MAX_DIAGNOSTICS + 5}):" in lines


def test_a_problem_names_where_what_and_who_said_it():
    assert (
        format_problem(problem(11, "x\n  is   unused", severity=2, source="ruff", code="F841"))
        == "a.py:12:1 warning: x is unused [ruff F841]"
    )
    assert format_problem(problem(0, code=7)) == "a.py:1:1 problem: bad [7]"


def test_selection_of_whole_lines_names_the_lines_it_covers():
    whole_lines = Selection("a.py", Span(2, 0, 5, 0), "x\ny\nz\n")
    assert describe_context(RunContext(selection=whole_lines)) == "selection a.py:3-5"
    one_line = Selection("a.py", Span(2, 4, 2, 9), "value")
    context = RunContext(active_file="a.py", selection=one_line, diagnostics=(problem(2),))
    assert describe_context(context) == "selection a.py:3, 1 problem"
    assert describe_context(RunContext(active_file="b.py")) == "b.py"


def test_the_block_is_delimited_and_the_prompt_is_not_in_it():
    block = render_context(RunContext(active_file="src/x.py"), 100) or ""
    assert block.splitlines()[0] == "<editor-context>"
    assert block.splitlines()[-1] == "</editor-context>"
    assert "Active file: src/x.py" in block
