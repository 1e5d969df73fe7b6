"""Plan mode's pieces in this process: the `/plan ` prefix, the tools it refuses (and the
words the model gets), when a run is ready with a plan, and the diff of a revised plan."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from workspace_agent.agent import plan_mode
from workspace_agent.config import resolve_settings
from workspace_agent.guard.approvals import Approvals
from workspace_agent.protocol import PlanItem, TodoItem
from workspace_agent.shared.todo import TodoList
from workspace_agent.tools import TOOLS
from workspace_agent.tools.base import Tool, ToolContext, ToolError


@pytest.mark.parametrize(
    ("prompt", "mode", "text"),
    [
        ("/plan Fix the parser", "plan", "Fix the parser"),
        ("  /plan\nFix it\nnow", "plan", "Fix it\nnow"),
        ("/planet names", "act", "/planet names"),
        ("/plan", "act", "/plan"),  # nothing to plan: an ordinary prompt
        ("Fix /plan later", "act", "Fix /plan later"),
    ],
)
def test_a_plan_prefix_means_plan_mode(prompt: str, mode: str, text: str):
    assert plan_mode.requested_mode(prompt, "act") == (mode, text)


def test_plan_mode_keeps_every_tool_but_refuses_those_that_could_change_something(
    tmp_path: Path,
):
    async def writes(ctx: ToolContext, args: dict) -> str:
        raise AssertionError("must not run")

    mcp = Tool("mcp__fs__write", "writes", {"type": "object"}, writes, kind="execute")
    reader = Tool("mcp__fs__read", "reads", {"type": "object"}, writes, plan_safe=True)
    tools = plan_mode.PlanTools({**TOOLS, mcp.name: mcp, reader.name: reader})
    assert list(tools) == [*TOOLS, mcp.name, reader.name]
    assert [t.schema() for t in tools.values()][: len(TOOLS)] == [
        t.schema() for t in TOOLS.values()
    ]
    for name in ("bash", "read_file", "todo", reader.name):
        assert tools[name] is ({**TOOLS, reader.name: reader})[name]  # run as they are
    assert tools["write_file"] is tools["write_file"]  # one twin per tool
    ctx = ToolContext(tmp_path, resolve_settings(tmp_path, {}), TodoList(), Approvals())

    def refusal(name: str) -> str:
        with pytest.raises(ToolError) as refused:
            asyncio.run(tools[name].handler(ctx, {}))
        return str(refused.value)

    assert refusal("write_file") == refusal("edit_file") == plan_mode.REFUSED_EDIT
    assert refusal(mcp.name).startswith(
        "not called: you are in plan mode, and mcp__fs__write is not marked read-only"
    )


def test_a_plan_mode_run_is_ready_when_the_model_ended_its_turn_with_a_plan():
    plan = [TodoItem("1", "Read", "pending")]
    assert plan_mode.stop_reason("end_turn", plan) == "planReady"
    assert plan_mode.stop_reason("end_turn", []) == "end_turn"  # a question answered, no plan
    assert plan_mode.stop_reason("cancelled", plan) == "cancelled"


def test_a_revised_plan_is_diffed_by_id():
    before = [PlanItem("1", "Read"), PlanItem("2", "Change it", edited=True), PlanItem("3", "Test")]
    after = [TodoItem("2", "Change it in app.py", "pending"), TodoItem("4", "Run", "pending")]
    after.insert(1, TodoItem("3", "Test", "pending"))
    assert plan_mode.plan_diff(before, after) == {
        "items": [
            {"id": "2", "change": "reworded", "previousText": "Change it"},
            {"id": "3", "change": "unchanged"},
            {"id": "4", "change": "new"},
        ],
        "removed": [{"id": "1", "text": "Read"}],
    }


def test_a_plan_that_cannot_be_approved_says_what_to_do():
    assert plan_mode.check_plan([]) == plan_mode.EMPTY
    many = [PlanItem(str(n), f"step {n}") for n in range(21)]
    assert plan_mode.check_plan(many) == (
        "the plan has 21 items, at most 20 fit a todo list: merge or delete some, then approve"
    )
    assert plan_mode.check_plan(many[:20]) is None
