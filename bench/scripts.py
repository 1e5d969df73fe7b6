"""Scripts for the scripted Messages API and the workspaces they work on.

A script drives the same tool calls whatever runs it (the server or the bare loop), so
every variant of a benchmark does exactly the same work.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workspace_agent.testing.scripted_model import reply, text, tool

WARMUP = "warmup: read the readme"
"""A short first run on every server and loop: imports, SDK client, connection."""

TOOL_MIX = ("todo", "read_file", "edit_file", "write_file", "bash")
FILE_TOOLS = ("todo", "read_file", "edit_file", "write_file")
READ_ONLY_TOOLS = ("read_file", "search", "find_files")
"""How the model mostly explores: nothing changes, no checkpoint, no sandbox."""

APP_LINES = 250


def make_workspace(root: Path) -> None:
    """A small project: a README and src/app.py with one `value_NNN = 0` line per turn."""
    (root / "src").mkdir(parents=True, exist_ok=True)
    (root / "README.md").write_text("# bench project\n\nA workspace for benchmarks.\n")
    lines = ['"""Values the benchmark edits one by one."""', ""]
    lines += [f"value_{n:03d} = 0  # a setting the agent may change" for n in range(APP_LINES)]
    (root / "src" / "app.py").write_text("\n".join(lines) + "\n")


def warmup_conversation() -> dict[str, Any]:
    return {
        "match": WARMUP,
        "replies": [reply(tool("read_file", {"path": "README.md"})), reply(text("Read it."))],
    }


def tool_call(name: str, turn: int) -> dict[str, Any]:
    """The `turn`-th call of a tool in a long run (turn < APP_LINES)."""
    if name == "todo":
        items = [
            {"id": str(k), "text": f"step {k}", "status": status}
            for k, status in ((1, "completed"), (2, "in_progress"), (3, "pending"))
        ]
        items[1]["text"] = f"step 2 (turn {turn})"
        return tool("todo", {"items": items})
    if name == "read_file":
        return tool("read_file", {"path": "src/app.py", "offset": 1 + turn % 200, "limit": 40})
    if name == "edit_file":
        return tool(
            "edit_file",
            {
                "path": "src/app.py",
                "old_text": f"value_{turn:03d} = 0",
                "new_text": f"value_{turn:03d} = 1",
            },
        )
    if name == "write_file":
        return tool(
            "write_file",
            {"path": f"notes/note_{turn:03d}.txt", "content": f"note for turn {turn}\n" * 5},
        )
    if name == "bash":
        return tool("bash", {"command": f"echo turn {turn}"})
    if name == "search":
        return tool("search", {"pattern": f"value_{turn % APP_LINES:03d} = ", "glob": "src/*.py"})
    if name == "find_files":
        return tool("find_files", {"pattern": "**/*.py"})
    raise ValueError(name)


def tool_run_script(prompt: str, turns: int, mix: tuple[str, ...]) -> dict[str, Any]:
    """`turns` replies with one tool call each (cycling through `mix`), then a closing
    text; plus the warm-up conversation."""
    replies = [reply(tool_call(mix[n % len(mix)], n)) for n in range(turns)]
    replies.append(reply(text("All done.")))
    return {
        "conversations": [warmup_conversation(), {"match": prompt, "replies": replies}],
        "on_exhausted": "error",
    }
