"""The seam between the bash tool and the sandbox: whether a command is confined, and if
so the argv, environment and inherited fds it is started with.

`confinement` decides from the `sandbox.mode` setting, the availability probe and the
model's request to leave the sandbox:
- `off`: unsandboxed (as is a command the model asked to run outside the sandbox, which
  tools/bash.py asks the user about every time);
- `auto`: sandboxed where it can start, else unsandboxed with the reason (commands are
  then asked about as before: approvals never relax for an unsandboxed command);
- `required`: sandboxed, or the command is refused with the reason.

Each session has its own temp dir (the jail's /tmp and the package caches), kept for the
session's commands and removed when the program ends.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .policy import MountPoints, SandboxPolicy, bwrap_argv, sandbox_env
from .probe import Availability, availability

MODES = ("auto", "required", "off")


@dataclass(frozen=True)
class Confinement:
    sandboxed: bool
    refusal: str | None = None
    """Set when the command must not run at all (mode `required`, no sandbox)."""
    reason: str | None = None
    """Why a command runs unsandboxed although the mode wanted a sandbox."""
    availability: Availability | None = None


async def confinement(mode: str, root: Path) -> Confinement:
    if mode == "off":
        return Confinement(False)
    state = await availability(root)
    if state.ok:
        return Confinement(True, availability=state)
    if mode == "required":
        return Confinement(
            False,
            refusal=f"not run: sandbox.mode is `required` and the sandbox cannot start here: "
            f"{state.describe()}",
            availability=state,
        )
    return Confinement(False, reason=state.describe(), availability=state)


@dataclass
class Launch:
    argv: list[str]
    env: dict[str, str]
    pass_fds: tuple[int, ...] = ()
    policy: SandboxPolicy | None = None
    _after: list[Callable[[], None]] = field(default_factory=list)

    def started(self) -> None:
        """bwrap has its copy of the fds: ours can go."""
        for fd in self.pass_fds:
            os.close(fd)
        self.pass_fds = ()

    def finished(self) -> None:
        self.started()
        for step in self._after:
            step()


def sandboxed_launch(
    bwrap: str,
    root: Path,
    session_id: str,
    command: list[str],
    env: dict[str, str],
    extra_masks: tuple[str, ...] = (),
) -> Launch:
    from .seccomp import filter_fd

    policy = SandboxPolicy(
        workspace=Path(os.path.realpath(root)),
        temp_dir=session_temp_dir(session_id),
        home=env.get("HOME") or os.path.expanduser("~"),
        extra_masks=extra_masks,
    )
    mount_points = MountPoints()
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
            mount_points,
        )
    except BaseException:
        os.close(fd)
        raise
    return Launch(argv, sandbox_env(env), (fd,), policy, [mount_points.remove])


_base: Path | None = None


def _base_dir() -> Path:
    global _base
    if _base is None or not _base.is_dir():
        _base = Path(tempfile.mkdtemp(prefix="workspace-agent-sandbox-"))
        atexit.register(shutil.rmtree, _base, True)
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
