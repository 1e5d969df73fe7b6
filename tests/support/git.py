"""git as a user runs it in a test's repository: their identity, none of the agent's
GIT_* variables."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def git(cwd: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_AUTHOR_NAME="User",
        GIT_AUTHOR_EMAIL="user@example.com",
        GIT_COMMITTER_NAME="User",
        GIT_COMMITTER_EMAIL="user@example.com",
    )
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout
