"""`workspace-agent changes | revert | undo-revert` as a user runs them after a headless
run (real subprocesses, the scripted model over HTTP)."""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from workspace_agent.checkpoints.preparing import HOLD_ENV
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.cli import CLI, cli_env
from tests.support.many_files import FILES, many_files
from tests.support.unwritable import LATIN1, LATIN1_SHOWN, unwritable


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
    """The issue's tree: a Latin-1 name, a file a step turns into a folder, a read-only
    file; the run ends, `changes` names them readably, a revert meets a file it cannot
    write (said, the rest reverted), undo puts everything back."""
    (workspace / "config.ini").write_text("level = 1\n")
    latin1 = workspace / os.fsdecode(LATIN1)
    latin1.write_bytes(b"latin\n")
    (workspace / "becomes-dir").write_text("module\n")
    (workspace / "locked").mkdir()
    (workspace / "locked/ro.txt").write_text("ro\n")
    os.chmod(workspace / "locked/ro.txt", 0o444)
    command = (
        "sed -i s/1/2/ config.ini && echo x >> notes.md"
        " && printf 'more\\n' >> \"$(printf 'caf\\351.txt')\""
        " && rm becomes-dir && mkdir becomes-dir && echo y > becomes-dir/x.py"
        " && chmod 644 locked/ro.txt && echo z >> locked/ro.txt"
    )
    model.load(
        script_of(
            reply(
                tool("todo", plan(1)), tool("write_file", {"path": "notes.md", "content": "# N\n"})
            ),
            reply(tool("todo", plan(2)), tool("bash", {"command": command})),
            reply(text("Done.")),
        )
    )
    ran = cli(workspace, model, "run", "Do it", "--yes")
    assert ran.returncode == 0, ran.stderr
    assert "files: A notes.md +1 −0" in ran.stdout  # shown under the call's result
    assert "internal error" not in ran.stdout + ran.stderr
    session_id = re.search(r"session (\w+)", ran.stdout).group(1)

    shown = cli(workspace, model, "changes", "--session", session_id)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[:3] == ['Plan item #1 "Step 1"', "   A notes.md +1 −0", 'Plan item #2 "Step 2"']
    assert sorted(lines[3:-1]) == [
        "   A becomes-dir/x.py +1 −0",
        "   D becomes-dir +0 −1",
        f"   M {LATIN1_SHOWN} +1 −0",
        "   M config.ini +1 −1",
        "   M locked/ro.txt +1 −0",
        "   M notes.md +1 −0",
    ]
    assert lines[-1] == f"   $ {command}  (exit 0)"
    as_json = json.loads(cli(workspace, model, "changes", "--session", session_id, "--json").stdout)
    assert [item["todoId"] for item in as_json["items"]] == ["1", "2"]
    latin1_row = next(f for f in as_json["items"][1]["files"] if f["path"] == LATIN1_SHOWN)
    assert base64.b64decode(latin1_row["pathBytes"]) == LATIN1

    only = cli(workspace, model, "revert", "--session", session_id, "--item", "1", "--only")
    assert only.returncode == 1, only.stderr  # step 2 appended to step 1's new file
    assert "conflict: notes.md (created by this step and changed after it)" in only.stdout
    assert "nothing was changed" in only.stdout and (workspace / "notes.md").exists()

    (workspace / "config.ini").write_text("level = 3  # mine\n")  # the user's own change
    with unwritable(workspace / "locked/ro.txt"):
        reverted = cli(workspace, model, "revert", "--session", session_id, "--item", "1")
    assert reverted.returncode == 1, reverted.stdout  # something was skipped
    assert f"restored: becomes-dir, {LATIN1_SHOWN}" in reverted.stdout
    assert "deleted: becomes-dir/x.py, notes.md" in reverted.stdout
    assert "skipped: config.ini (changed after the agent's last change to it)" in reverted.stdout
    assert "skipped: locked/ro.txt (cannot be written: " in reverted.stdout
    assert not (workspace / "notes.md").exists()
    assert (workspace / "becomes-dir").read_text() == "module\n"  # a file again
    assert latin1.read_bytes() == b"latin\n"
    assert (workspace / "locked/ro.txt").read_text() == "ro\nz\n"  # left as it was
    assert (workspace / "config.ini").read_text() == "level = 3  # mine\n"
    undo_id = re.search(r"--undo (\w+)", reverted.stdout).group(1)

    undone = cli(workspace, model, "undo-revert", "--session", session_id, "--undo", undo_id)
    assert undone.returncode == 0, undone.stdout
    assert (workspace / "notes.md").read_text() == "# N\nx\n"
    assert (workspace / "becomes-dir/x.py").read_text() == "y\n"  # a folder again
    assert latin1.read_bytes() == b"latin\nmore\n"

    missing = cli(workspace, model, "revert", "--session", "nope", "--item", "1")
    assert missing.returncode == 2 and "there is no session 'nope'" in missing.stdout


def test_two_runs_at_once_on_one_folder_each_keep_their_own_files(
    model: ScriptedModelServer, workspace: Path
):
    """Two `workspace-agent run` processes on one checkout, each writing 30 files with bash
    and write_file: the second's first call waits for the first's command (and says so),
    each session's changes are exactly its own files, and reverting one run leaves every
    file of the other."""
    (workspace / ".gitignore").write_text(".signal/\n")
    signal = workspace / ".signal"
    signal.mkdir()

    def script(tag: str, wait: bool) -> dict:
        held = (
            "touch .signal/started && until [ -e .signal/go ]; do sleep 0.05; done; "
            if wait
            else ""
        )
        files = f"for i in $(seq 1 15); do echo {tag}$i > {tag}_sh_$i.txt; done"
        writes = [
            tool("write_file", {"path": f"{tag}_w_{i}.txt", "content": f"{tag}{i}\n"})
            for i in range(1, 16)
        ]
        return script_of(
            reply(tool("bash", {"command": held + files})), reply(*writes), reply(text("Done."))
        )

    with ScriptedModelServer({"conversations": []}) as other:
        model.load(script("a", wait=True))
        other.load(script("b", wait=False))
        first = _start(workspace, model)
        _wait_for(lambda: (signal / "started").exists(), first)
        second = _start(workspace, other)
        waited = []
        for line in second.stdout:  # its first call waits for the first run's command
            waited.append(line)
            if "waits for another task on this folder" in line:
                break
        (signal / "go").touch()
        out_a, err_a = first.communicate(timeout=120)
        _, err_b = second.communicate(timeout=120)
    assert first.returncode == 0 and second.returncode == 0, err_a + err_b
    assert "… bash waits for another task on this folder" in "".join(waited)
    sessions = [re.search(r"session (\w+)", out).group(1) for out in (out_a, "".join(waited))]
    mine = {
        tag: {f"{tag}_{kind}_{i}.txt" for kind in ("sh", "w") for i in range(1, 16)} for tag in "ab"
    }
    for session_id, tag in zip(sessions, "ab", strict=True):
        changes = json.loads(
            cli(workspace, model, "changes", "--session", session_id, "--json").stdout
        )
        assert {f["path"] for item in changes["items"] for f in item["files"]} == mine[tag]

    reverted = cli(workspace, model, "revert", "--session", sessions[0], "--last-run")
    assert reverted.returncode == 0, reverted.stdout
    assert not any((workspace / name).exists() for name in mine["a"])
    for name in mine["b"]:
        assert (workspace / name).read_text() == f"b{name.rsplit('_', 1)[1].split('.')[0]}\n"


def _start(workspace: Path, model: ScriptedModelServer) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*CLI, "run", "Write your files", "--yes", "--workspace", str(workspace)],
        env={**cli_env(model), "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for(done: Callable[[], bool], process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while not done():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the first run's command did not start"
        time.sleep(0.05)


def test_revert_after_the_user_prunes_what_the_steps_started_from(
    model: ScriptedModelServer, workspace: Path
):
    """A git work tree (the store seeded from the user's index): the user rewrites
    history and prunes the original blobs, and the terminal's revert still restores them;
    not one file of the user's `.git` is written, by the run or the reverts."""
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
    pruned = dot_git_facts(workspace)

    only = cli(workspace, model, "revert", "--session", session_id, "--item", "1", "--only")
    assert only.returncode == 0, only.stdout + only.stderr
    assert "undo with: workspace-agent undo-revert" in only.stdout
    assert (workspace / "a.txt").read_bytes() == ORIGINAL["a.txt"].encode()
    assert (workspace / "c.txt").read_text() == "GAMMA\n"
    reverted = cli(workspace, model, "revert", "--session", session_id, "--item", "1")
    assert reverted.returncode == 0, reverted.stdout + reverted.stderr
    for name, content in ORIGINAL.items():
        assert (workspace / name).read_bytes() == content.encode(), name
    assert not (workspace / "new.txt").exists()
    assert dot_git_facts(workspace) == pruned  # reverts never touch the user's .git either


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
