"""Which files `search` and `find_files` may look at, and why others were left out.

In a git repository: `git ls-files` (tracked, and untracked not ignored), run with no
fsmonitor and git found outside what commands may write (shared/host_programs.py).
Elsewhere: walk.py. Then every listed file is looked at once (`lstat`): a symlink is
listed by find_files but never followed, nor read by search; a file over `maxFileBytes`
is skipped with a note (git grep would read a 2 GB file whole: in a repository the
untracked files are looked at, the tracked ones git greps as they are; a multi-GB file
committed to git is the one case left); a file that is gone (a
tracked file deleted in the work tree) is dropped. The agent's own folder and the
credential locations the sandbox hides are never listed.
"""

from __future__ import annotations

import os
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ..config import SECRET_LOCATIONS, expand_folder
from ..shared import host_programs
from ..shared.errors import ToolError
from . import globs as glob_rules

AGENT_FOLDER = ".workspace-agent"
"""The agent's own folder (checkpoints, sessions): never searched."""


@dataclass
class Candidate:
    path: str
    """Relative to the workspace, with `/`, as the OS names it (os.fsdecode)."""
    size: int
    mtime: float
    link: bool
    large: bool = False
    """Over maxFileBytes: listed by find_files, not read by search."""


@dataclass
class Listing:
    files: list[Candidate]
    how: str
    """`git` or `walk`: who listed them (said in the result's header)."""
    specs: list[str] = field(default_factory=list)
    """The git pathspecs of the globs ([] for all files)."""
    hidden: list[str] = field(default_factory=list)
    """Folders never listed (hidden_folders)."""
    too_large: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    """Every path listed, looked at or not."""

    def readable(self) -> list[Candidate]:
        """The files search reads: no symlinks (never followed), none too large."""
        return [c for c in self.files if not c.link and not c.large]


def hidden_folders(root: Path, masks: tuple[str, ...] = ()) -> list[str]:
    """The credential locations (and the user's extra sandbox masks) inside the workspace,
    relative to it: hidden here as the sandbox hides them."""
    home = os.path.expanduser("~")
    found = [AGENT_FOLDER]
    real_root = root.resolve()
    for raw in (*SECRET_LOCATIONS, *masks):
        folder = expand_folder(os.path.expandvars(raw), home)
        if folder is None:
            continue
        try:
            relative = folder.resolve().relative_to(real_root)
        except ValueError:
            continue
        if relative.parts:
            found.append(relative.as_posix())
    return found


def git_root(root: Path) -> bool:
    """Whether the workspace is (inside) a git work tree."""
    host_programs.protect(root)
    try:
        done = git(root, "rev-parse", "--is-inside-work-tree")
    except ToolError:
        return False
    return done.strip() == b"true"


def git_env() -> dict[str, str]:
    """Our environment without any GIT_* variable a hook or a shell may have left (a
    GIT_DIR would point git at another repository), with the PATH of host programs."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["PATH"] = host_programs.host_path()
    return env


def git(root: Path, *args: str) -> bytes:
    """stdout of git ARGS in the workspace; ToolError when git fails or is missing."""
    try:
        done = subprocess.run(
            git_command(root, *args),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            env=git_env(),
            check=False,
        )
    except (OSError, host_programs.ProgramNotFound) as exc:
        raise ToolError(f"git cannot run: {exc}") from None
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip()
        raise ToolError(f"git {args[0]} failed: {said}")
    return done.stdout


def git_command(root: Path, *args: str) -> list[str]:
    """git ARGS in the workspace: no fsmonitor (a program the repository's config names),
    paths never quoted."""
    return [
        host_programs.program("git"),
        "-C",
        str(root),
        "-c",
        "core.fsmonitor=false",
        "-c",
        "core.quotePath=false",
        *args,
    ]


def exclusions(hidden: list[str]) -> list[str]:
    return [f":(exclude,literal){folder}" for folder in hidden]


def list_files(
    root: Path,
    globs: list[str] | None,
    max_bytes: int,
    masks: tuple[str, ...] = (),
    *,
    untracked_only: bool = False,
    look: bool = True,
    in_git: bool | None = None,
) -> Listing:
    """The files the tools may show, under `globs` (None: all). `untracked_only`: in a git
    repository, only those git does not track (search greps the tracked ones with git).
    `look`: lstat each (else `names` holds them unlooked, for look_at)."""
    hidden = hidden_folders(root, masks)
    if git_root(root) if in_git is None else in_git:
        specs = glob_rules.pathspecs(globs) if globs else []
        which = ["--others"] if untracked_only else ["--cached", "--others"]
        out = git(
            root,
            "ls-files",
            "-z",
            *which,
            "--exclude-standard",
            "--",
            *(specs or ["."]),
            *exclusions(hidden),
        )
        names = list(dict.fromkeys(os.fsdecode(raw) for raw in out.split(b"\0") if raw))
        listing = Listing([], "git", specs, hidden, names=names)
    else:
        from .walk import walk

        listing = Listing([], "walk", [], hidden, names=list(walk(root, hidden, globs)))
    if look:
        look_at(root, listing, listing.names, max_bytes)
    return listing


def look_at(root: Path, listing: Listing, names: list[str], max_bytes: int, limit: int = 0) -> None:
    """lstat `names` into `listing.files` (at most `limit` of them, 0: all): symlinks and
    files over `max_bytes` marked, what is gone or no regular file dropped."""
    for name in names:
        if limit and len(listing.files) >= limit:
            return
        try:
            info = os.lstat(root / name)
        except OSError:
            continue  # deleted in the work tree, or gone since it was listed
        link = stat.S_ISLNK(info.st_mode)
        if not link and not stat.S_ISREG(info.st_mode):
            continue  # a submodule's folder, a socket
        large = info.st_size > max_bytes and not link
        if large:
            listing.too_large.append(name)
        if link:
            listing.links.append(name)
        listing.files.append(Candidate(name, info.st_size, info.st_mtime, link, large))
