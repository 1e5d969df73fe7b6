"""Skills and subagents in a terminal: `workspace-agent commands` lists a skill of the
workspace's `.agents/skills` with its file, and a malformed one as a problem naming its
file, line and rule; `workspace-agent run "/tidy app.py"` sends the skill with its argument,
and the explore subagent the model starts prints its start, plan, calls and end indented
under its task call."""

from __future__ import annotations

import subprocess
from pathlib import Path

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, text, tool

from tests.support.cli import CLI, cli_env


def cli(
    model: ScriptedModelServer, workspace: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args, "-w", str(workspace)],
        env=cli_env(model),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_skill_is_listed_and_run_and_a_subagent_is_indented_under_its_task(
    model: ScriptedModelServer, workspace: Path
):
    skills = workspace / ".agents" / "skills"
    (skills / "tidy").mkdir(parents=True)
    (skills / "tidy" / "SKILL.md").write_text(
        "---\nname: tidy\ndescription: Tidy a module.\nargument-hint: FILE\n---\nTidy $1.\n"
    )
    (skills / "Bad").mkdir()
    (skills / "Bad" / "SKILL.md").write_text("---\nname: Bad\ndescription: d\n---\nx\n")
    (workspace / "app.py").write_text("import os\n")
    model.load(
        {
            "conversations": [
                {
                    "match": "what does app.py import",
                    "match_system": '"explore" subagent',
                    "replies": [
                        reply(
                            tool(
                                "todo",
                                {
                                    "items": [
                                        {"id": "1", "text": "Read app.py", "status": "in_progress"}
                                    ]
                                },
                            )
                        ),
                        reply(tool("read_file", {"path": "app.py"})),
                        reply(text("It imports os, unused.")),
                    ],
                },
                {
                    "replies": [
                        reply(
                            tool(
                                "task",
                                {
                                    "description": "Look at app.py",
                                    "prompt": "what does app.py import?",
                                    "agent": "explore",
                                },
                            )
                        ),
                        reply(text("Nothing to tidy but an unused import.")),
                    ]
                },
            ]
        }
    )

    listed = cli(model, workspace, "commands")
    done = cli(model, workspace, "run", "/tidy app.py")

    assert listed.returncode == 1, listed.stdout  # a problem was found
    assert "/tidy FILE" in listed.stdout and f"[{skills / 'tidy' / 'SKILL.md'}]" in listed.stdout
    bad = skills / "Bad" / "SKILL.md"
    assert (
        f"problem: {bad}:2: `name` 'Bad' must be lowercase letters, digits and single hyphens"
        in listed.stdout
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        model.requests[0]
        .body["messages"][0]["content"][-1]["text"]
        .startswith('<skill name="tidy" folder=".agents/skills/tidy">\nTidy app.py.\n</skill>')
    )
    lines = done.stdout.splitlines()
    start = lines.index("    │ ▶ subagent explore: Look at app.py")
    assert lines[start - 1] == "  → task explore: Look at app.py"
    assert lines[start + 1 : start + 5] == [
        "    │  → todo 1 items, 0 completed",
        "    │   plan 0/1",
        "    │     [>] #1 Read app.py",
        "    │  → read_file app.py",
    ]
    assert any(line.startswith("    │ ■ explore: end_turn · ") for line in lines)
    assert "Nothing to tidy but an unused import." in done.stdout
