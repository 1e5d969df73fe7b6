"""Git as a library of plumbing commands, pointed at the checkpoint store, never at the
user's repository.

Every command runs with the store's own GIT_DIR and index and the workspace as work tree,
in an environment stripped of the user's GIT_* variables and of the system and global git
configuration (so `core.autocrlf`, filters such as LFS or a global fsmonitor cannot change
what is stored). Git itself still reads the work tree's `.gitignore` files; the store's
`info/exclude` carries the default excludes and the user's own exclude files.

git is the one found outside every folder a sandboxed command may write
(shared/host_programs.py), started by its absolute path with that same PATH: a `bin/git`
a command planted in the workspace is never what the store runs.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import IO

from ..shared import host_programs

MIN_VERSION = (2, 33)
"""GIT_CONFIG_GLOBAL (2.32) and `repack --geometric` (2.33)."""

IDENTITY = {
    "GIT_AUTHOR_NAME": "Workspace Agent",
    "GIT_AUTHOR_EMAIL": "checkpoints@workspace-agent.invalid",
    "GIT_COMMITTER_NAME": "Workspace Agent",
    "GIT_COMMITTER_EMAIL": "checkpoints@workspace-agent.invalid",
}


class GitError(RuntimeError):
    """A git command failed or git cannot be used; the message says which and why."""


@cache
def git_problem() -> str | None:
    """Why checkpoints cannot use git on this machine, or None when they can."""
    git = host_programs.find("git")
    if git is None:
        return "git is not installed (checkpoints need git 2.33 or newer)"
    try:
        out = subprocess.run(
            [git, "--version"], capture_output=True, text=True, check=True, env=bare_env()
        ).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        return f"git does not run: {exc}"
    match = re.search(r"(\d+)\.(\d+)", out)
    if not match or (int(match[1]), int(match[2])) < MIN_VERSION:
        return f"{out.strip()} is too old (checkpoints need git 2.33 or newer)"
    return None


def git_program() -> str:
    """The absolute path of the git checkpoints run (GitError when there is none)."""
    try:
        return host_programs.program("git")
    except host_programs.ProgramNotFound as exc:
        raise GitError(str(exc)) from None


def bare_env() -> dict[str, str]:
    """Our environment without any GIT_* variable a hook or a shell may have left, and with
    the PATH of host programs."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["PATH"] = host_programs.host_path()
    return env


class Git:
    """Runs git with the store's repository, index and work tree."""

    def __init__(self, git_dir: Path, work_tree: Path, index: Path | None = None) -> None:
        host_programs.protect(work_tree)
        self.git_dir = git_dir
        self.work_tree = work_tree
        self.index = index or git_dir / "index"
        self.env = {
            **bare_env(),
            **IDENTITY,
            "GIT_DIR": str(git_dir),
            "GIT_WORK_TREE": str(work_tree),
            "GIT_INDEX_FILE": str(self.index),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_TERMINAL_PROMPT": "0",
            "LC_ALL": "C",
        }
        self.alternates: list[Path] = []
        """The user's object folders (a store seeded from the user's index, seed.py):
        seen only by commands that read objects, never by one that writes them (git
        would touch the user's files of objects it finds instead of writing them)."""

    def reading_env(self) -> dict[str, str]:
        if not self.alternates:
            return self.env
        alternates = os.pathsep.join(str(p) for p in self.alternates)
        return {**self.env, "GIT_ALTERNATE_OBJECT_DIRECTORIES": alternates}

    def run(
        self,
        *args: str,
        stdin: bytes | None = None,
        reading: bool = False,
        env: dict[str, str] | None = None,
    ) -> bytes:
        """stdout of `git ARGS`; GitError with git's message when it fails. `reading`:
        the user's objects are visible (for commands that write no object); `env`: instead
        of the store's environment."""
        try:
            done = subprocess.run(
                [git_program(), "-c", "safe.directory=*", *args],
                input=stdin,
                capture_output=True,
                env=env or (self.reading_env() if reading else self.env),
                cwd=self.work_tree,
            )
        except OSError as exc:
            raise GitError(f"git {args[0]} could not start: {exc}") from None
        if done.returncode != 0:
            message = done.stderr.decode("utf-8", "replace").strip() or f"exit {done.returncode}"
            raise GitError(f"git {args[0]} failed: {message}")
        return done.stdout

    def popen(self, *args: str) -> subprocess.Popen[bytes]:
        """A long-running git process with pipes (cat-file --batch), which reads objects
        only: it sees the user's objects too."""
        return subprocess.Popen(
            [git_program(), "-c", "safe.directory=*", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=self.reading_env(),
            cwd=self.work_tree,
        )

    def writer(self, *args: str, stderr: IO[bytes]) -> subprocess.Popen[bytes]:
        """A long-running git process fed on stdin that writes objects (fast-import): it
        sees only the store's objects, as every writing command does."""
        return subprocess.Popen(
            [git_program(), "-c", "safe.directory=*", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            env=self.env,
            cwd=self.work_tree,
        )


def append_config(git_dir: Path, settings: Sequence[tuple[str, str]]) -> None:
    """Add `section.key = value` settings to a repository's config file in one write, as
    `git config` would have, one process per key (11 of them before a first request). A
    later value of a key wins over an earlier one (`core.bare` of `git init --bare`)."""
    sections: dict[str, list[str]] = {}
    for key, value in settings:
        section, _, name = key.rpartition(".")
        if not section or "." in section or not name.isalnum() or "\n" in value:
            raise ValueError(f"not a plain config setting: {key} = {value!r}")
        sections.setdefault(section, []).append(f"\t{name} = {value}\n")
    text = "".join(f"[{section}]\n" + "".join(lines) for section, lines in sections.items())
    with open(git_dir / "config", "a", encoding="utf-8") as config:
        config.write(text)


def init_repository(git_dir: Path, work_tree: Path) -> Git:
    """Create the store's repository (once) and return a Git bound to it."""
    git = Git(git_dir, work_tree)
    if (git_dir / "HEAD").is_file():
        return git
    git_dir.parent.mkdir(parents=True, exist_ok=True)
    # Two processes starting on a fresh workspace at once (two windows, a terminal run):
    # one makes the store, the other waits and uses it.
    fd = os.open(git_dir.parent / "create.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        if not (git_dir / "HEAD").is_file():
            _create(git_dir)
    finally:
        os.close(fd)
    return git


def _create(git_dir: Path) -> None:
    shutil.rmtree(git_dir, ignore_errors=True)  # a store left half-made: start it again
    tmp = git_dir.with_name(git_dir.name + ".creating")
    shutil.rmtree(tmp, ignore_errors=True)
    env = {**bare_env(), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    done = subprocess.run(
        [git_program(), "init", "--quiet", "--bare", "--template=", str(tmp)],
        capture_output=True,
        env=env,
    )
    if done.returncode != 0:
        raise GitError(f"git init failed: {done.stderr.decode('utf-8', 'replace').strip()}")
    append_config(
        tmp,
        [
            ("core.bare", "false"),
            ("core.autocrlf", "false"),
            ("core.safecrlf", "false"),
            ("core.symlinks", "true"),
            ("core.fileMode", "true"),
            ("core.untrackedCache", "true"),
            # Writing the index writes the entries that changed, beside one shared file of
            # the rest: 45 ms instead of 130 for an index of 200,000 files (every scan that
            # finds a change, every tree, writes it).
            ("core.splitIndex", "true"),
            # No reflog: an old HEAD must not keep old workspace states (or, in a store
            # seeded from the user's index, the user's blobs) alive.
            ("core.logAllRefUpdates", "false"),
            ("core.looseCompression", "1"),
            ("gc.auto", "0"),
            ("index.version", "4"),
            ("pack.writeBitmaps", "false"),
            # Long delta chains: a hundred edits of a big file stay one base and deltas.
            ("pack.depth", "250"),
        ],
    )
    # Content is stored byte for byte: no end-of-line conversion, no clean/smudge filters
    # (LFS), whatever the work tree's .gitattributes say (info/attributes wins over them).
    (tmp / "info").mkdir(exist_ok=True)  # no templates: no sample hooks, no description
    (tmp / "info" / "attributes").write_text(
        "* -text -eol -filter -ident -working-tree-encoding\n", encoding="utf-8"
    )
    os.replace(tmp, git_dir)
