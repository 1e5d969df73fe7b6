"""`workspace-agent run --plan TASK` as a user runs it: the plan printed, then `Run this
plan? [y]es / [n]o / [e]dit` on the terminal (a pseudo-terminal here). `y` runs it as it
is, `e` runs what the user left in $EDITOR (a markdown checklist), and without a terminal
the plan is printed and nothing runs or changes (exit status 0)."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path
from typing import Any

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.cli import CLI, cli_env

PLAN = {
    "items": [
        {"id": "1", "text": "Read the greeting module", "status": "pending"},
        {"id": "2", "text": "Change the greeting to hello", "status": "pending"},
        {"id": "3", "text": "Add a test for the greeting", "status": "pending"},
    ]
}
PRINTED = (
    "Plan:\n"
    "- [ ] Read the greeting module\n"
    "- [ ] Change the greeting to hello\n"
    "- [ ] Add a test for the greeting\n"
)
RUN_IT = (
    "The user approved this plan, as shown below. Your todo list is already set to it (the "
    "same ids, every item pending): carry it out in this order, marking each item "
    "in_progress and then completed with the todo tool as you go. Items marked as edited "
    "by the user are in their words; follow the user's comments.\n"
    "\n"
    "The plan:\n"
)


def load_plan_then_work(model: ScriptedModelServer) -> None:
    model.load(
        script_of(
            reply(tool("write_file", {"path": "early.txt", "content": "no"}), tool("todo", PLAN)),
            reply(text("The approach: one constant.")),
            reply(tool("write_file", {"path": "done.txt", "content": "ok"})),
            reply(text("Done.")),
        )
    )


def run_plan(
    model: ScriptedModelServer, workspace: Path, answer: str | None, **env: str
) -> subprocess.CompletedProcess[str]:
    """`run --plan` with `answer` typed on a terminal (None: no terminal at all)."""
    command = [*CLI, "run", "--plan", "Say hello", "-w", str(workspace)]
    if answer is None:
        stdin: Any = subprocess.DEVNULL
        master = None
    else:
        master, stdin = pty.openpty()
        os.write(master, answer.encode())
    try:
        return subprocess.run(
            command,
            env=cli_env(model, **env),
            stdin=stdin,
            capture_output=True,
            text=True,
            timeout=90,
        )
    finally:
        if master is not None:
            os.close(master)
            os.close(stdin)


def user_text(body: dict[str, Any]) -> str:
    return "\n".join(b["text"] for b in body["messages"][-1]["content"] if b["type"] == "text")


def test_yes_runs_the_plan_as_it_is(model: ScriptedModelServer, workspace: Path):
    load_plan_then_work(model)

    done = run_plan(model, workspace, "y\n")

    assert done.returncode == 0, done.stdout + done.stderr
    assert PRINTED in done.stdout
    assert "Run this plan? [y]es / [n]o / [e]dit: " in done.stdout
    assert "▶ Ran the plan (3 items)\n" in done.stdout  # what the user did; the model got:
    assert "▶ The user approved" not in done.stdout
    assert not (workspace / "early.txt").exists()  # refused while planning
    assert (workspace / "done.txt").read_text() == "ok"
    assert user_text(model.requests[2].body) == RUN_IT + (
        "- [#1] Read the greeting module\n"
        "- [#2] Change the greeting to hello\n"
        "- [#3] Add a test for the greeting"
    )


def test_edit_runs_what_the_user_left_in_the_editor(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path
):
    edited = (
        "- [ ] Change the greeting to hello there\n"
        "> keep it short\n"
        "- [ ] Read the greeting module\n"
        "- [ ] Update the README\n"
    )
    editor = tmp_path / "editor.py"
    editor.write_text(
        f"#!{sys.executable}\n"
        "import pathlib, sys\n"
        "path = pathlib.Path(sys.argv[1])\n"
        "pathlib.Path(sys.argv[0]).with_name('seen.md').write_text(path.read_text())\n"
        f"path.write_text({edited!r})\n"
    )
    editor.chmod(0o755)
    load_plan_then_work(model)

    done = run_plan(model, workspace, "e\n", EDITOR=str(editor), VISUAL="")

    assert done.returncode == 0, done.stdout + done.stderr
    seen = (tmp_path / "seen.md").read_text()  # what the editor opened
    assert seen.startswith("# The plan: one `- [ ] text` line")
    assert seen.endswith(PRINTED.removeprefix("Plan:\n"))
    assert (workspace / "done.txt").read_text() == "ok"
    assert user_text(model.requests[2].body) == RUN_IT + (
        "- [#2] Change the greeting to hello there (edited by the user)\n"
        "  > user comment: keep it short\n"
        "- [#1] Read the greeting module\n"
        "- [#user-1] Update the README (edited by the user)\n"
        "\n"
        "Left out by the user (do not do them):\n"
        "- [#3] Add a test for the greeting"
    )


def test_no_runs_nothing(model: ScriptedModelServer, workspace: Path):
    load_plan_then_work(model)

    done = run_plan(model, workspace, "n\n")

    assert done.returncode == 0, done.stdout + done.stderr
    assert "The plan was not run; nothing was changed." in done.stdout
    assert len(model.requests) == 2 and not (workspace / "done.txt").exists()


def test_without_a_terminal_the_plan_is_printed_and_nothing_runs(
    model: ScriptedModelServer, workspace: Path
):
    (workspace / "app.py").write_text("GREETING = 'hi'\n")
    load_plan_then_work(model)

    done = run_plan(model, workspace, None)

    assert done.returncode == 0, done.stdout + done.stderr
    assert PRINTED in done.stdout
    assert "No terminal to ask on: the plan was not run and nothing was changed." in done.stdout
    assert "Run this plan?" not in done.stdout
    assert len(model.requests) == 2  # the plan's run only
    files = sorted(p.name for p in workspace.iterdir() if p.name != ".workspace-agent")
    assert files == ["app.py"]
