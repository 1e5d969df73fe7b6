"""What a hook gets on stdin and in its environment, as Claude Code gives it, so scripts
written for Claude Code work unchanged.

stdin: one JSON object with `session_id`, `transcript_path`, `cwd`, `hook_event_name`
and the event's own fields: `tool_name`, `tool_input`, `tool_use_id` (and after the call
`tool_response`), `prompt`, `stop_hook_active`, `source` (SessionStart), `trigger`
(PreCompact), `message` (Notification), `agent_type` and `agent_id` (SubagentStop: the
agent's name, the `task` call's id), and for TaskCompleted the plan item's `task_id`,
`task_subject` and `task_description`. `tool_name` is Claude Code's name for the tool when
it has one (`Bash`, `Edit`), else ours. `tool_input` holds our fields and Claude Code's
names for them (`file_path`, absolute; `old_string`, `new_string`), so
`jq -r .tool_input.file_path | xargs prettier --write` works as it does there.

Environment: `CLAUDE_PROJECT_DIR` and `WORKSPACE_AGENT_PROJECT_DIR`, the workspace root.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..shared.observers import CallReport, RunScope, ToolCall

TRANSCRIPTS = Path(".workspace-agent") / "sessions"
"""Where the session store keeps a session's JSONL file (agent/store.py)."""
CLAUDE_FIELDS = {"old_text": "old_string", "new_text": "new_string"}


def common(scope: RunScope, event: str) -> dict[str, Any]:
    session = scope.session.id
    return {
        "session_id": session,
        "transcript_path": str(scope.root / TRANSCRIPTS / f"{session}.jsonl"),
        "cwd": str(scope.root),
        "hook_event_name": event,
        "permission_mode": "default",
    }


def tool_fields(call: ToolCall, root: Path) -> dict[str, Any]:
    """`tool_name`, `tool_input` (ours, and Claude Code's names), `tool_use_id`."""
    tool_input: dict[str, Any] = dict(call.input)
    raw = call.input.get("path")
    if isinstance(raw, str) and "file_path" not in tool_input:
        tool_input["file_path"] = os.path.normpath(root / raw)
    for ours, theirs in CLAUDE_FIELDS.items():
        if ours in call.input and theirs not in tool_input:
            tool_input[theirs] = call.input[ours]
    return {
        "tool_name": call.aliases[0] if call.aliases else call.name,
        "tool_input": tool_input,
        "tool_use_id": call.tool_use_id,
    }


def tool_response(report: CallReport, root: Path) -> dict[str, Any]:
    """How the call ended: its text as the model got it, whether it succeeded, a command's
    exit status, the file it wrote."""
    outcome = report.outcome
    response: dict[str, Any] = {"output": outcome.text, "success": outcome.ok}
    if outcome.exit_code is not None:
        response["exit_code"] = outcome.exit_code
    raw = report.call.input.get("path")
    if isinstance(raw, str):
        response["filePath"] = os.path.normpath(root / raw)
    return response


def encoded(fields: dict[str, Any]) -> bytes:
    return json.dumps(fields, ensure_ascii=False, default=str).encode("utf-8")


def environment(base: dict[str, str], root: Path) -> dict[str, str]:
    env = dict(base)
    env["CLAUDE_PROJECT_DIR"] = env["WORKSPACE_AGENT_PROJECT_DIR"] = str(root)
    return env
