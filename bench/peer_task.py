"""The scripted 8-turn task of rows 19-21, once per agent with its own tool names.

The task: make a 3-item plan, read a file, tick the plan, edit one line, tick the plan, run
`grep`, close the plan, answer. Eight model calls. Our agent gets it with our tools (todo,
read_file, edit_file, bash); Claude Code with its own (TaskCreate / TaskUpdate, Read,
Edit, Bash), the way it would call them for the same steps. Both end with the same file
on disk, which `check_workspace` verifies.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workspace_agent.testing.scripted_model import reply, text, tool

TASK = "peer task: set value_007 to 1 in src/app.py and check it with grep"
TURNS = 8
OLD, NEW = "value_007 = 0", "value_007 = 1"
GREP = "grep -n value_007 src/app.py"
DONE = "Done: value_007 is 1 now."
STEPS = ("Read src/app.py", "Set value_007 to 1", "Check it with grep")


def _plan(done: int) -> dict[str, Any]:
    """Our todo call with the first `done` items completed and the next one in progress."""
    items = []
    for n, step in enumerate(STEPS):
        status = "completed" if n < done else "in_progress" if n == done else "pending"
        items.append({"id": str(n + 1), "text": step, "status": status})
    return tool("todo", {"items": items})


def ours_script() -> dict[str, Any]:
    replies = [
        reply(_plan(0)),
        reply(tool("read_file", {"path": "src/app.py"})),
        reply(_plan(1)),
        reply(tool("edit_file", {"path": "src/app.py", "old_text": OLD, "new_text": NEW})),
        reply(_plan(2)),
        reply(tool("bash", {"command": GREP})),
        reply(_plan(3)),
        reply(text(DONE)),
    ]
    return {"conversations": [{"match": TASK, "replies": replies}], "on_exhausted": "error"}


def _task_update(task_id: int, status: str) -> dict[str, Any]:
    return tool("TaskUpdate", {"taskId": str(task_id), "status": status})


def claude_code_script(workspace: Path) -> dict[str, Any]:
    """The same steps with Claude Code's tools (absolute paths, as its tools want them)."""
    app = str(workspace / "src" / "app.py")
    creates = [
        tool("TaskCreate", {"subject": step, "description": step, "activeForm": step})
        for step in STEPS
    ]
    replies = [
        reply(*creates, _task_update(1, "in_progress")),
        reply(tool("Read", {"file_path": app})),
        reply(_task_update(1, "completed"), _task_update(2, "in_progress")),
        reply(tool("Edit", {"file_path": app, "old_string": OLD, "new_string": NEW})),
        reply(_task_update(2, "completed"), _task_update(3, "in_progress")),
        reply(tool("Bash", {"command": GREP, "description": "Check the new value"})),
        reply(_task_update(3, "completed")),
        reply(text(DONE)),
    ]
    return {"conversations": [{"match": TASK, "replies": replies}], "on_exhausted": "error"}


APP_LINES = 20


def prepare_workspace(root: Path) -> None:
    """A README and a small src/app.py (one `value_NN = 0` line each): the file read is
    about a kilobyte, so the requests' sizes are mostly each agent's own prompt and tools."""
    (root / "src").mkdir(parents=True, exist_ok=True)
    (root / "README.md").write_text("# peer task\n\nA workspace for the side-by-side run.\n")
    lines = ['"""Values the task edits."""', ""]
    lines += [f"value_{n:03d} = 0  # a setting the agent may change" for n in range(APP_LINES)]
    (root / "src" / "app.py").write_text("\n".join(lines) + "\n")


def check_workspace(root: Path) -> None:
    """The edit landed: RuntimeError if the agent did not do the task."""
    source = (root / "src" / "app.py").read_text()
    if NEW not in source or OLD in source:
        raise RuntimeError(f"the task was not done in {root}: {OLD!r} is still there")
