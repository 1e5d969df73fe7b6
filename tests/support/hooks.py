"""A user's Claude Code hooks, as the end-to-end tests of each front end (LSP, ACP, CLI) use
them: a test HOME with `~/.claude/settings.json` and real shell scripts, the scripted
model's run that meets every one, and what each front end must show of it.

The hooks: UserPromptSubmit adds context (JSON `additionalContext`); PreToolUse on `Bash`
refuses `rm -rf` (exit 2, stderr to the model); PostToolUse on `Edit|Write` formats the
file it is given (`x=1` → `x = 1`, the `file_path` Claude Code's scripts read); TaskCompleted
fails once (exit 2: the item stays in progress), then passes; Stop blocks once (exit 2: one
more turn), then lets the run end.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

from workspace_agent.testing.scripted_model import reply, script_of, text, tool

GUARD = """#!/bin/sh
if grep -q 'rm -rf'; then echo "rm -rf is not allowed here (guard.sh)" >&2; exit 2; fi
"""
FORMAT = """#!/bin/sh
path=$(sed -n 's/.*"file_path": *"\\([^"]*\\)".*/\\1/p')
sed -i -E 's/ *= */ = /g' "$path"
"""
CONTEXT = """#!/bin/sh
cat > /dev/null
echo '{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "the release branch is frozen"}}'
"""
ONCE = """#!/bin/sh
# exit 2 with $2 on stderr the first time (the state file $1 does not exist yet), then 0
cat > /dev/null
if [ ! -e "$1" ]; then touch "$1"; echo "$2" >&2; exit 2; fi
echo "$3"
"""
CONTEXT_TEXT = "the release branch is frozen"
REFUSED = "rm -rf is not allowed here (guard.sh)"
CHECK_FAILED = "test_x fails: x is 0"
STOP_REASON = "run the tests before you stop"
PROMPT = "Set x to 1"
ITEM = {"id": "1", "text": "Set x", "status": "in_progress"}


def claude_home(home: Path) -> Path:
    """`home/.claude/settings.json` with the hooks above and their scripts (the scripts'
    state in `home/state`, so each runs its "once" one time per home); returns `home`."""
    scripts, state = home / "hooks", home / "state"
    for folder in (scripts, state, home / ".claude"):
        folder.mkdir(parents=True, exist_ok=True)
    for name, body in {
        "guard.sh": GUARD,
        "fmt.sh": FORMAT,
        "context.sh": CONTEXT,
        "once.sh": ONCE,
    }.items():
        (scripts / name).write_text(body)
        (scripts / name).chmod(stat.S_IRWXU)

    def run(script: str, *args: str) -> list[dict[str, Any]]:
        quoted = " ".join(f"'{arg}'" for arg in args)
        return [{"type": "command", "command": f"{scripts / script} {quoted}".strip()}]

    hooks = {
        "UserPromptSubmit": [{"hooks": run("context.sh")}],
        "PreToolUse": [{"matcher": "Bash", "hooks": run("guard.sh")}],
        "PostToolUse": [{"matcher": "Edit|Write", "hooks": run("fmt.sh")}],
        "TaskCompleted": [
            {"hooks": run("once.sh", str(state / "task"), CHECK_FAILED, "all tests pass")}
        ],
        "Stop": [{"hooks": run("once.sh", str(state / "stop"), STOP_REASON)}],
    }
    (home / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": []}, "hooks": hooks}, indent=2)
    )
    return home


def the_run() -> dict[str, Any]:
    """The model's side: plan, `rm -rf build` (refused), write `x=1` (formatted), mark the
    item completed twice (refused, then passed), stop twice (kept going once)."""
    done = {**ITEM, "status": "completed"}
    return script_of(
        reply(tool("todo", {"items": [ITEM]})),
        reply(tool("bash", {"command": "rm -rf build"})),
        reply(tool("write_file", {"path": "app.py", "content": "x=1\n"})),
        reply(tool("todo", {"items": [done]})),
        reply(tool("todo", {"items": [done]})),
        reply(text("Done.")),
        reply(text("Done, and the tests pass.")),
    )


def prepare(workspace: Path) -> None:
    (workspace / "app.py").write_text("x=0\n")
    (workspace / "build").mkdir()
    (workspace / "build" / "keep.o").write_text("object\n")


def check_what_the_model_got(requests: list[Any], workspace: Path) -> None:
    """What every front end's run must have sent the model and left on disk."""
    assert len(requests) == 7, [r.body["messages"][-1] for r in requests]
    first = requests[0].body["messages"][-1]["content"]
    assert any(CONTEXT_TEXT in block.get("text", "") for block in first)
    refused = requests[2].body["messages"][-1]["content"][0]
    assert refused["is_error"] and REFUSED in refused["content"]
    assert (workspace / "build" / "keep.o").exists()  # the command never ran
    assert (workspace / "app.py").read_text() == "x = 1\n"  # the formatter ran after the write
    told = requests[4].body["messages"][-1]["content"][0]["content"]
    assert "Plan item #1 is not done" in told and CHECK_FAILED in told
    stop = requests[6].body["messages"][-1]
    assert stop["role"] == "user" and STOP_REASON in stop["content"][0]["text"]


HOOK_ROWS = [
    ("UserPromptSubmit", "context.sh", "ok"),
    ("PreToolUse", "guard.sh", "blocked"),
    ("PostToolUse", "fmt.sh", "ok"),
    ("TaskCompleted", "once.sh", "blocked"),
    ("TaskCompleted", "once.sh", "ok"),
    ("Stop", "once.sh", "blocked"),
    ("Stop", "once.sh", "ok"),
]
"""(event, hook, outcome) of every hook run, in order."""
