"""`workspace-agent changes | revert | undo-revert` as a user runs them after a headless
run (real subprocesses, the scripted model over HTTP)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from workspace_agent.checkpoints.preparing import HOLD_ENV
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.cli import CLI, cli_env
from tests.support.many_files import FILES, many_files


def plan(active: int) -> dict:
    return {
        "items": [
            {
                "id": str(n),
                "text": f"Step {n}",
                "status": "in_progress" if n == active else "pending",
            }
            for n in (1, 2)
        ]
    }


def cli(
    workspace: Path, model: ScriptedModelServer, *args: str, held: bool = False
) -> subprocess.CompletedProcess:
    """The CLI's `args` on `workspace`; `held`: its first checkpoint scan waits at its first
    report until a call waits for it (HOLD_ENV), whatever this machine's speed."""
    return subprocess.run(
        [*CLI, *args, "--workspace", str(workspace)],
        env={**cli_env(model), **({HOLD_ENV: "1"} if held else {})},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_changes_revert_and_undo_in_a_terminal(model: ScriptedModelServer, workspace: Path):
    (workspace / "config.ini").write_text("level = 1\n")
    model.load(
        script_of(
            reply(
                tool("todo", plan(1)), tool("write_file", {"path": "notes.md", "content": "# N\n"})
            ),
            reply(
                tool("todo", plan(2)),
                tool("bash", {"command": "sed -i s/1/2/ config.ini && echo x >> notes.md"}),
            ),
            reply(text("Done.")),
        )
    )
    ran = cli(workspace, model, "run", "Do it", "--yes")
    assert ran.returncode == 0, ran.stderr
    assert "files: A notes.md +1 −0" in ran.stdout  # shown under the call's result
    session_id = re.search(r"session (\w+)", ran.stdout).group(1)

    shown = cli(workspace, model, "changes", "--session", session_id)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == (
        'Plan item #1 "Step 1"\n'
        "   A notes.md +1 −0\n"
        'Plan item #2 "Step 2"\n'
        "   M config.ini +1 −1\n"
        "   M notes.md +1 −0\n"
        "   $ sed -i s/1/2/ config.ini && echo x >> notes.md  (exit 0)\n"
    )
    as_json = json.loads(cli(workspace, model, "changes", "--session", session_id, "--json").stdout)
    assert [item["todoId"] for item in as_json["items"]] == ["1", "2"]

    (workspace / "config.ini").write_text("level = 3  # mine\n")  # the user's own change
    reverted = cli(workspace, model, "revert", "--session", session_id, "--item", "1")
    assert reverted.returncode == 1  # something was skipped
    assert "deleted: notes.md" in reverted.stdout
    assert "skipped: config.ini (changed after the agent's last change to it)" in reverted.stdout
    assert not (workspace / "notes.md").exists()
    assert (workspace / "config.ini").read_text() == "level = 3  # mine\n"
    undo_id = re.search(r"--undo (\w+)", reverted.stdout).group(1)

    undone = cli(workspace, model, "undo-revert", "--session", session_id, "--undo", undo_id)
    assert undone.returncode == 0, undone.stdout
    assert (workspace / "notes.md").read_text() == "# N\nx\n"

    missing = cli(workspace, model, "revert", "--session", "nope", "--item", "1")
    assert missing.returncode == 2 and "there is no session 'nope'" in missing.stdout


def test_revert_only_in_a_terminal(model: ScriptedModelServer, workspace: Path):
    (workspace / "config.ini").write_text("level = 1\nname = alpha\n")
    model.load(
        script_of(
            reply(
                tool("todo", plan(1)),
                tool("write_file", {"path": "notes.md", "content": "# N\n"}),
                tool("bash", {"command": "sed -i s/alpha/beta/ config.ini"}),
            ),
            reply(
                tool("todo", plan(2)),
                tool("bash", {"command": "sed -i s/1/2/ config.ini && echo x >> notes.md"}),
            ),
            reply(text("Done.")),
        )
    )
    ran = cli(workspace, model, "run", "Do it", "--yes")
    assert ran.returncode == 0, ran.stderr
    session_id = re.search(r"session (\w+)", ran.stdout).group(1)

    refused = cli(workspace, model, "revert", "--session", session_id, "--item", "1", "--only")
    assert refused.returncode == 1, refused.stderr
    assert "conflict: notes.md (created by this step and changed after it)" in refused.stdout
    assert "nothing was changed" in refused.stdout
    assert (workspace / "config.ini").read_text() == "level = 2\nname = beta\n"  # untouched
    assert (workspace / "notes.md").read_text() == "# N\nx\n"

    done = cli(workspace, model, "revert", "--session", session_id, "--item", "2", "--only")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "restored: config.ini, notes.md" in done.stdout
    assert (workspace / "config.ini").read_text() == "level = 1\nname = beta\n"  # step 1's kept
    assert (workspace / "notes.md").read_text() == "# N\n"
    assert "undo with: workspace-agent undo-revert" in done.stdout


def test_revert_after_the_user_prunes_what_the_steps_started_from(
    model: ScriptedModelServer, workspace: Path
):
    """A git work tree (the store seeded from the user's index): the user rewrites
    history and prunes the original blobs, and the terminal's revert still restores them."""
    from tests.support.seeded_repository import (
        ORIGINAL,
        TASK,
        dot_git_facts,
        make_repository,
        rewrite_history_and_prune,
    )

    make_repository(workspace)
    before = dot_git_facts(workspace)
    model.load(TASK)
    ran = cli(workspace, model, "run", "Change things", "--yes")
    assert ran.returncode == 0, ran.stderr
    assert dot_git_facts(workspace) == before
    session_id = re.search(r"session (\w+)", ran.stdout).group(1)
    rewrite_history_and_prune(workspace)

    only = cli(workspace, model, "revert", "--session", session_id, "--item", "1", "--only")
    assert only.returncode == 0, only.stdout + only.stderr
    assert (workspace / "a.txt").read_bytes() == ORIGINAL["a.txt"].encode()
    assert (workspace / "c.txt").read_text() == "GAMMA\n"
    reverted = cli(workspace, model, "revert", "--session", session_id, "--item", "1")
    assert reverted.returncode == 0, reverted.stdout + reverted.stderr
    for name, content in ORIGINAL.items():
        assert (workspace / name).read_bytes() == content.encode(), name
    assert not (workspace / "new.txt").exists()


def test_a_big_first_scan_is_a_line_when_it_starts_when_a_write_waits_and_when_done(
    model: ScriptedModelServer, workspace: Path
):
    many_files(workspace)
    model.load(
        script_of(
            reply(tool("write_file", {"path": "src/pkg000/mod00.py", "content": "value = -1\n"})),
            reply(text("Done.")),
        )
    )
    ran = cli(workspace, model, "run", "Change the first module", "--yes", held=True)
    assert ran.returncode == 0, ran.stderr
    shown = [line.strip() for line in ran.stdout.splitlines()]
    lines = [line for line in shown if "heckpoints" in line]
    assert len(lines) == 2, ran.stdout  # the wait (the scan is held until then), and the end
    assert lines[0].startswith("… Preparing checkpoints: ")
    assert lines[0].endswith("(write_file waits for it)")
    assert re.fullmatch(rf"… Checkpoints ready: {FILES:,} files stored in \d+ s", lines[-1])
    called = next(n for n, line in enumerate(shown) if line.startswith("→ write_file"))
    assert called < shown.index(lines[0])
    assert (workspace / "src/pkg000/mod00.py").read_text() == "value = -1\n"
