"""A sandboxed command's launch: the argv, environment and inherited fds it is started
with in bubblewrap (sandbox/backend.py chooses the backend and whether a command is
confined at all), and the per-session state behind it.

Each session has its own temp dir (the jail's /tmp and the package caches), kept for the
session's commands and removed when the program ends.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..shared import host_programs
from .policy import Missing, SandboxPolicy, bwrap_argv, real_cache_dirs, sandbox_env

if TYPE_CHECKING:
    from .network import CommandNetwork
    from .proxy import Decide, Verdict

_told: set[str] = set()
"""Sessions whose model was told why their commands run outside the sandbox."""


def tell_once(session_id: str) -> bool:
    """True the first time for a session: the reason goes into that command's result only
    (the front ends show it all along; the model needs it once)."""
    if session_id in _told:
        return False
    _told.add(session_id)
    return True


@dataclass
class Launch:
    argv: list[str]
    env: dict[str, str]
    own_fds: tuple[int, ...] = ()
    """fds for bwrap that are this launch's to close (the seccomp filter)."""
    policy: SandboxPolicy | None = None
    network: CommandNetwork | None = None
    missing: Missing | None = None
    _notes: list[str] = field(default_factory=list)

    @property
    def pass_fds(self) -> tuple[int, ...]:
        return (*self.own_fds, *(self.network.child_fds() if self.network else ()))

    def started(self) -> None:
        """bwrap has its copy of the fds: ours can go."""
        for fd in self.own_fds:
            os.close(fd)
        self.own_fds = ()
        if self.network is not None:
            self.network.started()

    async def running(self) -> None:
        """bwrap started: its jail gets its network, then the command runs."""
        if self.network is not None:
            await self.network.open()

    async def finished(self) -> None:
        self.started()
        if self.network is not None:
            await self.network.close()
            self._notes.extend(self.network.notes())
        if self.missing is not None and self.policy is not None:
            taken = self.missing.take_back(self.policy.temp_dir)
            self.missing = None
            if taken:
                self._notes.append(
                    f"blocked by the sandbox: {'; '.join(taken)} (it is read-only inside the "
                    "sandbox: editors, git or the agent would run what it holds)"
                )

    def notes(self) -> list[str]:
        """What the sandbox has to say about the command once it is over."""
        return list(self._notes)


async def sandboxed_launch(
    bwrap: str,
    root: Path,
    session_id: str,
    command: list[str],
    env: dict[str, str],
    extra_masks: tuple[str, ...] = (),
    allowed_domains: tuple[str, ...] = (),
    decide: Decide | None = None,
    writable: tuple[Path, ...] = (),
    real_caches: bool = False,
    read_only: bool = False,
) -> Launch:
    """The launch of `command` in the sandbox, with a network proxy for its lifetime
    (sandbox/network.py): hosts on `allowed_domains` are reached, `decide` asks about
    others (None: every other host is refused). `read_only` (plan mode): the workspace is
    read-only and nothing outside /tmp is writable (no widening, no real caches)."""
    from .network import CommandNetwork, proxy_env
    from .seccomp import filter_fd

    policy = command_policy(root, session_id, env, extra_masks, writable, real_caches, read_only)
    real_caches = real_caches and not read_only
    # What this command may write is never where the agent looks for its own programs.
    host_programs.protect(policy.workspace, *policy.extra_writable)
    inside = {**sandbox_env(env, real_caches), **proxy_env()}
    missing = Missing()
    network = CommandNetwork(allowed_domains, decide or _refuse)
    fd = filter_fd()
    try:
        argv = bwrap_argv(
            bwrap,
            policy,
            command,
            policy.workspace,
            _empty_dir(),
            _empty_file(),
            fd,
            missing,
            network.bwrap_args(),
        )
    except BaseException:
        os.close(fd)
        network.started()
        await network.close()
        raise
    return Launch(argv, inside, (fd,), policy, network, missing)


async def _refuse(host: str) -> Verdict:
    return "unasked"


def command_policy(
    root: Path,
    session_id: str,
    env: dict[str, str],
    extra_masks: tuple[str, ...],
    writable: tuple[Path, ...],
    real_caches: bool,
    read_only: bool,
) -> SandboxPolicy:
    """What a command of this session may write and read, whichever backend confines it.
    `read_only` (plan mode) drops the widening and the real caches."""
    if read_only:
        writable, real_caches = (), False
    home = env.get("HOME") or os.path.expanduser("~")
    return SandboxPolicy(
        workspace=Path(os.path.realpath(root)),
        temp_dir=session_temp_dir(session_id),
        home=home,
        extra_masks=extra_masks,
        extra_writable=(*writable, *(real_cache_dirs(home) if real_caches else ())),
        read_only=read_only,
    )


_base: Path | None = None


def _base_dir() -> Path:
    global _base
    if _base is None or not _base.is_dir():
        _base = Path(tempfile.mkdtemp(prefix="workspace-agent-sandbox-"))
        atexit.register(shutil.rmtree, _base, True)
        host_programs.protect(_base)  # each session's /tmp inside
    return _base


def session_temp_dir(session_id: str) -> Path:
    """The host folder that is /tmp inside this session's sandbox (mode 0700)."""
    safe = "".join(c for c in session_id if c.isalnum() or c in "-_") or "session"
    path = _base_dir() / "sessions" / safe
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


def _empty_file() -> Path:
    path = _base_dir() / "empty-file"
    if not path.is_file():
        path.touch(mode=0o444)
    return path


def _empty_dir() -> Path:
    path = _base_dir() / "empty"
    if not path.is_dir():
        path.mkdir(mode=0o500)
    return path
