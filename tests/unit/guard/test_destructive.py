"""The command guard's destructive flag: commands that destroy work carry a reason (Deny
becomes the default of the question about them); everything else carries none. The flag
changes no verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

from workspace_agent.guard.command_policy import judge

HOME = "/home/user"

FLAGGED = [
    ("rm -rf build dist", "deletes files recursively (rm -r)"),
    ("rm -r -f build", "deletes files recursively (rm -r)"),
    ("rm --recursive build", "deletes files recursively (rm -r)"),
    ("rm -R build", "deletes files recursively (rm -r)"),
    ("make clean && rm -rf out", "deletes files recursively (rm -r)"),
    ("bash -c 'rm -rf out'", "deletes files recursively (rm -r)"),
    ("git clean -fdx", "deletes untracked files (git clean -f)"),
    ("git clean --force -d", "deletes untracked files (git clean -f)"),
    ("git reset --hard HEAD~1", "discards uncommitted changes (git reset --hard)"),
    ("git -C sub reset --hard", "discards uncommitted changes (git reset --hard)"),
    ("git push --force origin main", "rewrites the remote branch's history (git push --force)"),
    ("git push -f", "rewrites the remote branch's history (git push --force)"),
    ("git push --force-with-lease", "rewrites the remote branch's history (git push --force)"),
    ("git push origin +main", "rewrites the remote branch's history (git push --force)"),
    ("git checkout -- .", "discards uncommitted changes (git checkout -- …)"),
    ("git checkout .", "discards uncommitted changes (git checkout -- …)"),
    ("git restore src/app.py", "discards uncommitted changes (git restore)"),
    ("find out -name '*.o' -delete", "deletes the files it finds (find -delete)"),
    ("find out -name '*.o' -exec rm {} +", "deletes the files it finds (find -exec rm)"),
    ("git branch -D feature", "deletes a branch with unmerged work (git branch -D)"),
    ("git stash drop", "drops stashed changes (git stash drop)"),
    ("shred secret.txt", "destroys the files' contents (shred)"),
]

NOT_FLAGGED = [
    "ls -la",
    "rm notes.txt",
    "rm -f stale.lock",
    "echo rm -rf build",
    "grep -r 'git reset --hard' docs",
    "git clean -fdn",
    "git clean -f --dry-run",
    "git reset HEAD~1",
    "git reset --soft HEAD~1",
    "git push origin main",
    "git push -u origin feature",
    "git checkout main",
    "git checkout -b feature",
    "git restore --staged app.py",
    "git branch -d merged",
    "git stash",
    "find . -name '*.py'",
    "make test",
]


@pytest.mark.parametrize(("command", "reason"), FLAGGED)
def test_destructive_commands_say_why(command: str, reason: str, tmp_path: Path):
    assert judge(command, tmp_path, HOME).destructive == reason


@pytest.mark.parametrize("command", NOT_FLAGGED)
def test_other_commands_are_not_flagged(command: str, tmp_path: Path):
    assert judge(command, tmp_path, HOME).destructive == ""


def test_the_flag_changes_no_verdict(tmp_path: Path):
    assert judge("git reset --hard", tmp_path, HOME).kind == "run"
    assert judge("sudo rm -rf build", tmp_path, HOME).kind == "refuse"
    flagged = judge("rm -rf build dist *.egg-info && git clean -fdx -n", tmp_path, HOME)
    assert flagged.destructive == "deletes files recursively (rm -r)"
