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
import sys
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..shared import host_programs
from .policy import Missing, SandboxPolicy, bwrap_argv, real_cache_dirs, sandbox_env
from .probe import Availability, availability

if TYPE_CHECKING:
    from .proxy import Ask, NetworkProxy

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
    pass_fds: tuple[int, ...] = ()
    policy: SandboxPolicy | None = None
    proxy: NetworkProxy | None = None
    missing: Missing | None = None
    _notes: list[str] = field(default_factory=list)

    def started(self) -> None:
        """bwrap has its copy of the fds: ours can go."""
        for fd in self.pass_fds:
            os.close(fd)
        self.pass_fds = ()

    async def finished(self) -> None:
        self.started()
        if self.proxy is not None:
            await self.proxy.close()
            blocked = self.proxy.describe_blocked()
            if blocked:
                self._notes.append(blocked)
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
    ask: Ask | None = None,
    writable: tuple[Path, ...] = (),
    real_caches: bool = False,
) -> Launch:
    """The launch of `command` in the sandbox. With `allowed_domains`, a network proxy runs
    for the command's lifetime (sandbox/proxy.py; `ask` decides hosts not on the list)."""
    from .seccomp import filter_fd

    policy = _policy(root, session_id, env, extra_masks, writable)
    if real_caches:
        policy = replace(
            policy, extra_writable=(*policy.extra_writable, *real_cache_dirs(policy.home))
        )
    # What this command may write is never where the agent looks for its own programs.
    host_programs.protect(policy.workspace, *policy.extra_writable)
    inside = sandbox_env(env, real_caches)
    proxy = None
    if allowed_domains:
        policy = replace(policy, proxy_dir=proxy_dir(session_id))
        proxy = await _proxy(policy, session_id, allowed_domains, ask)
        command = _behind_bridge(command)
        inside.update(_proxy_env())
    missing = Missing()
    fd = filter_fd()
    try:
        if proxy is not None:  # the bridge applies the filter itself, after it forked
            command = [arg if arg != _FD else str(fd) for arg in command]
        argv = bwrap_argv(
            bwrap,
            policy,
            command,
            policy.workspace,
            _empty_dir(),
            _empty_file(),
            None if proxy is not None else fd,
            missing,
        )
    except BaseException:
        os.close(fd)
        if proxy is not None:
            await proxy.close()
        raise
    return Launch(argv, inside, (fd,), policy, proxy, missing)


def _policy(
    root: Path,
    session_id: str,
    env: dict[str, str],
    extra_masks: tuple[str, ...],
    writable: tuple[Path, ...],
) -> SandboxPolicy:
    return SandboxPolicy(
        workspace=Path(os.path.realpath(root)),
        temp_dir=session_temp_dir(session_id),
        home=env.get("HOME") or os.path.expanduser("~"),
        extra_masks=extra_masks,
        extra_writable=writable,
    )


_FD = "{seccomp-fd}"


def _behind_bridge(command: list[str]) -> list[str]:
    """The command started by bridge.py (its seccomp fd filled in once it exists)."""
    from .policy import PROXY_INSIDE
    from .proxy import PROXY_PORT, SOCKET_NAME

    bridge = Path(__file__).with_name("bridge.py")
    inside_socket = f"{PROXY_INSIDE}/{SOCKET_NAME}"
    return [
        sys.executable,
        "-I",
        "-S",
        str(bridge),
        _FD,
        inside_socket,
        str(PROXY_PORT),
        "--",
        *command,
    ]


def _proxy_env() -> dict[str, str]:
    from .proxy import PROXY_PORT

    url = f"http://127.0.0.1:{PROXY_PORT}"
    names = ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")
    return {
        **{name: url for name in names},
        "NO_PROXY": "localhost,127.0.0.1,::1",
        "no_proxy": "localhost,127.0.0.1,::1",
    }


async def _proxy(
    policy: SandboxPolicy, session_id: str, allowed: tuple[str, ...], ask: Ask | None
) -> NetworkProxy:
    from .proxy import SOCKET_NAME, NetworkProxy

    async def refuse(host: str) -> bool:
        return False

    assert policy.proxy_dir is not None
    proxy = NetworkProxy(policy.proxy_dir / SOCKET_NAME, allowed, session_id, ask or refuse)
    await proxy.start()
    return proxy


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


def proxy_dir(session_id: str) -> Path:
    """The host folder holding the session's proxy socket: outside the jail's /tmp, and
    bound read-only in, so a command cannot swap the socket the bridge connects to."""
    safe = "".join(c for c in session_id if c.isalnum() or c in "-_") or "session"
    path = _base_dir() / "proxy" / safe
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
