"""What a hook said, read as Claude Code reads it: exit codes per event, and the JSON
answers on stdout."""

from __future__ import annotations

import json
from typing import Any

import pytest

from workspace_agent.hooks.runner import Ran
from workspace_agent.hooks.said import SILENT_BLOCK, read


def said(event: str, code: int = 0, stdout: Any = "", stderr: str = "", **kw: Any) -> Any:
    out = json.dumps(stdout) if isinstance(stdout, dict) else stdout
    return read(event, Ran(exit_code=code, stdout=out, stderr=stderr), 60, **kw)


def test_exit_codes_per_event():
    assert said("PreToolUse", 2, stderr="no\nmore").reason == "no\nmore"
    assert said("PreToolUse", 2, stderr="no").message == "blocked the call: no"
    assert said("PreToolUse", 2).reason == SILENT_BLOCK
    # at events that cannot block, exit 2 is an error shown to the user
    notified = said("Notification", 2, stderr="no display")
    assert (notified.outcome, notified.message) == ("failed", "exit 2: no display")
    assert said("Stop", 1, stderr="jq: not found").message == "exit 1: jq: not found"
    assert said("Stop", 1).outcome == "failed"  # non-blocking: the run stops as it would
    # stdout is context for the model at UserPromptSubmit and SessionStart only
    assert said("UserPromptSubmit", 0, "branch main\n").context == "branch main"
    assert said("PostToolUse", 0, "formatted 1 file\n").context == ""
    # a plan item's own check: any exit but 0 fails it
    assert said("TaskCompleted", 1, "1 failed", plain=True).outcome == "blocked"
    assert said("TaskCompleted", 1, "1 failed").outcome == "failed"


@pytest.mark.parametrize(
    ("event", "answer", "expected"),
    [
        (
            "PreToolUse",
            {
                "hookSpecificOutput": {
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "no",
                }
            },
            ("blocked", "no", None, None),
        ),
        (
            "PreToolUse",
            {"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"a": 1}}},
            ("ok", "", "allow", {"a": 1}),
        ),
        ("PreToolUse", {"decision": "approve"}, ("ok", "", "allow", None)),
        (
            "PostToolUse",
            {"decision": "block", "reason": "lint: 2 errors"},
            ("blocked", "lint: 2 errors", None, None),
        ),
        (
            "Stop",
            {"decision": "block", "reason": "tests fail"},
            ("blocked", "tests fail", None, None),
        ),
        ("PreCompact", {"decision": "block", "reason": "x"}, ("failed", "", None, None)),
    ],
)
def test_json_answers(event: str, answer: dict[str, Any], expected: tuple[Any, ...]):
    got = said(event, 0, answer)
    assert (got.outcome, got.reason, got.permission, got.updated_input) == expected


def test_continue_false_ends_the_run_and_the_rest_is_read_too():
    answer = {
        "continue": False,
        "stopReason": "budget for today is spent",
        "hookSpecificOutput": {"additionalContext": "spent: $12"},
    }
    got = said("PostToolUse", 0, answer)
    assert got.halt == "budget for today is spent" and got.context == "spent: $12"
    assert got.message == "ended the run: budget for today is spent"


def test_what_is_not_json_is_text_and_a_system_message_is_the_rows():
    assert said("PostToolUse", 0, "{not json").message == "{not json"
    shown = said("PostToolUse", 0, {"systemMessage": "formatted app.py"})
    assert (shown.outcome, shown.message) == ("ok", "formatted app.py")
    context = said("SessionStart", 0, {"hookSpecificOutput": {"additionalContext": "on main"}})
    assert context.context == "on main" and context.message == "added context"
