"""Which sandbox confines commands on this system: one place chooses, the backends are peers.

A backend answers two questions: can it start here (and if not, why, and the fix), and
what is a command's launch (argv, environment, fds). Everything else (the policy of what
is writable and masked, the network proxy, the walls a failed command ran into) is shared,
so a backend is only the mechanism.

- Linux: bubblewrap (probe.py finds and tries it; launch.py builds the jail).
- macOS: Seatbelt (`sandbox-exec` with the profile seatbelt.py generates from the same
  policy). No macOS machine runs this project's tests, so it reports itself unavailable
  and commands there are asked about as before; its launch is built and unit-tested as
  text, ready for the day it is switched on.
- Anything else: no backend; commands are asked about.
"""

from __future__ import annotations

import platform
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..shared.errors import ToolError
from . import probe
from .probe import Availability

if TYPE_CHECKING:
    from .launch import Launch
    from .proxy import Decide


@dataclass(frozen=True)
class LaunchRequest:
    """A command to start confined, with what the settings and the session add."""

    root: Path
    session_id: str
    command: list[str]
    env: dict[str, str]
    masked: tuple[str, ...] = ()
    allowed_domains: tuple[str, ...] = ()
    decide: Decide | None = None
    """Asks the user about a host that is not allowed (None: every such host is refused)."""
    writable: tuple[Path, ...] = ()
    real_caches: bool = False
    read_only: bool = False
    """Plan mode: the workspace is read-only and nothing outside the session's /tmp is writable."""


class SandboxBackend(Protocol):
    name: str

    async def availability(self, workspace: Path | None) -> Availability: ...

    async def launch(self, request: LaunchRequest) -> Launch: ...


class Bubblewrap:
    name = "bubblewrap"

    async def availability(self, workspace: Path | None) -> Availability:
        return await probe.availability(workspace)

    async def launch(self, request: LaunchRequest) -> Launch:
        from .launch import sandboxed_launch

        bwrap = probe.find_bwrap(request.root)
        if bwrap is None:  # removed since the probe
            raise ToolError("not run: bwrap is gone since the sandbox was probed")
        return await sandboxed_launch(
            bwrap,
            request.root,
            request.session_id,
            request.command,
            request.env,
            request.masked,
            request.allowed_domains,
            request.decide,
            request.writable,
            request.real_caches,
            request.read_only,
        )


class Seatbelt:
    name = "seatbelt"

    async def availability(self, workspace: Path | None) -> Availability:
        return Availability(
            False,
            reason="macOS: the Seatbelt sandbox is not in yet (its profile exists on paper only)",
            fix="none yet; commands are asked about as before",
        )

    async def launch(self, request: LaunchRequest) -> Launch:
        """`sandbox-exec` with the profile of the same policy. No network at all (macOS has
        no private loopback), and no mount namespace: the session's temp dir is TMPDIR
        under its own path."""
        from .launch import Launch, command_policy
        from .policy import sandbox_env
        from .seatbelt import command_line

        policy = command_policy(
            request.root,
            request.session_id,
            request.env,
            request.masked,
            request.writable,
            request.real_caches,
            request.read_only,
        )
        real_caches = request.real_caches and not request.read_only
        env = sandbox_env(request.env, real_caches, tmp=str(policy.temp_dir))
        return Launch(command_line(policy, request.command), env, policy=policy)


@dataclass(frozen=True)
class Unsupported:
    system: str
    name = "none"

    async def availability(self, workspace: Path | None) -> Availability:
        return Availability(
            False,
            reason=f"{self.system or 'this system'}: commands cannot be sandboxed here",
            fix="none; commands are asked about as before",
        )

    async def launch(self, request: LaunchRequest) -> Launch:
        raise ToolError(f"not run: {self.system or 'this system'} has no sandbox")


BACKENDS: dict[str, Callable[[], SandboxBackend]] = {"Linux": Bubblewrap, "Darwin": Seatbelt}
"""platform.system() → its backend."""


def backend(system: str | None = None) -> SandboxBackend:
    """The backend of `system` (this machine's by default)."""
    name = platform.system() if system is None else system
    make = BACKENDS.get(name)
    return make() if make is not None else Unsupported(name)


@dataclass(frozen=True)
class Confinement:
    sandboxed: bool
    refusal: str | None = None
    """Set when the command must not run at all (mode `required`, no sandbox)."""
    reason: str | None = None
    """Why a command runs unsandboxed although the mode wanted a sandbox."""
    availability: Availability | None = None


async def confinement(mode: str, root: Path) -> Confinement:
    """Whether a command is confined, from the `sandbox.mode` setting and the backend:
    `off` unsandboxed; `auto` sandboxed where the backend can start, else unsandboxed with
    the reason (approvals never relax for an unsandboxed command); `required` sandboxed,
    or the command is refused with the reason."""
    if mode == "off":
        return Confinement(False)
    state = await backend().availability(root)
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
