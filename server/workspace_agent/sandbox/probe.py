"""Can the sandbox start here? Tried once per bwrap binary, the failure classified so the
user gets the reason and the fix rather than a silent fallback.

The probe runs bwrap with the very flags commands get (policy.hardening), so a kernel or
AppArmor policy that refuses one of them is found before a command runs, not as a
confusing command failure. A bwrap found inside the workspace is never used (a repository
could ship a fake one that runs commands unconfined, and a command could plant one).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from ..shared import host_programs
from .policy import hardening

PROBE_TIMEOUT_SECONDS = 10.0
APPARMOR_SYSCTL = "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"
APPARMOR_FIX = (
    "allow bwrap to create user namespaces: put `abi <abi/4.0>, include <tunables/global> "
    "profile bwrap /usr/bin/bwrap flags=(unconfined) { userns, }` in /etc/apparmor.d/bwrap "
    "and run `apparmor_parser -r /etc/apparmor.d/bwrap` (or set the sysctl "
    "kernel.apparmor_restrict_unprivileged_userns=0)"
)


@dataclass(frozen=True)
class Availability:
    ok: bool
    bwrap: str | None = None
    reason: str = ""
    """Why the sandbox cannot start (empty when it can)."""
    fix: str = ""
    """What the user can do about it."""

    def describe(self) -> str:
        if self.ok:
            return "commands run in a bubblewrap sandbox"
        return f"{self.reason}; to fix: {self.fix}" if self.fix else self.reason


_cache: dict[str, Availability] = {}


def find_bwrap(workspace: Path | None) -> str | None:
    """bwrap on PATH, never from a folder inside the workspace or another place sandboxed
    commands may write (shared/host_programs.py)."""
    if workspace is not None:
        host_programs.protect(workspace)
    return host_programs.find("bwrap")


async def availability(workspace: Path | None) -> Availability:
    """Whether bubblewrap can sandbox commands here (Linux), probed once per bwrap binary.
    Which backend a system uses is sandbox/backend.py's choice."""
    if _wsl1():
        return Availability(
            False, reason="WSL 1 has no user namespaces", fix="use WSL 2 (`wsl --set-version`)"
        )
    bwrap = find_bwrap(workspace)
    if bwrap is None:
        return Availability(
            False,
            reason="bubblewrap (bwrap) is not installed",
            fix="install it (`apt-get install bubblewrap`, `dnf install bubblewrap`, "
            "`pacman -S bubblewrap`)",
        )
    known = _cache.get(bwrap)
    if known is None:
        known = _cache[bwrap] = await _probe(bwrap)
    return known


def forget() -> None:
    """Probe again next time (tests; a user who just installed bwrap restarts anyway)."""
    _cache.clear()


async def _probe(bwrap: str) -> Availability:
    from .seccomp import SeccompUnavailable, filter_program

    try:
        filter_program()
    except SeccompUnavailable as exc:
        return Availability(
            False,
            bwrap,
            reason=f"the seccomp filter cannot be built ({exc})",
            fix="install libseccomp (`apt-get install libseccomp2`)",
        )
    argv = [bwrap, *hardening(), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            "--",
            "true",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            env={"PATH": "/usr/bin:/bin"},
        )
        _, err = await asyncio.wait_for(proc.communicate(), PROBE_TIMEOUT_SECONDS)
    except (OSError, asyncio.TimeoutError) as exc:
        return Availability(False, bwrap, reason=f"bwrap could not be started ({exc})")
    if proc.returncode == 0:
        return Availability(True, bwrap)
    return classify(err.decode("utf-8", "replace"), bwrap)


def classify(stderr: str, bwrap: str | None = None) -> Availability:
    """The reason and the fix for a bwrap that failed to set up the sandbox."""
    message = " ".join(stderr.split())[:300] or "no message"
    lowered = message.lower()
    if "uid map" in lowered or "rtm_newaddr" in lowered or _apparmor_restricts():
        return Availability(
            False,
            bwrap,
            reason=f"unprivileged user namespaces are refused ({message})",
            fix=APPARMOR_FIX,
        )
    if "mount proc" in lowered or "creating new namespace failed" in lowered:
        return Availability(
            False,
            bwrap,
            reason=f"this looks like a container that does not allow nested namespaces ({message})",
            fix="run the agent outside the container, or start the container with user "
            "namespaces and /proc mounting allowed",
        )
    if "no permissions to creat" in lowered or "operation not permitted" in lowered:
        return Availability(
            False,
            bwrap,
            reason=f"the kernel refuses the namespaces the sandbox needs ({message})",
            fix="enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 "
            "or user.max_user_namespaces > 0)",
        )
    return Availability(False, bwrap, reason=f"bwrap failed: {message}")


def _wsl1() -> bool:
    try:
        version = Path("/proc/version").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return "Microsoft" in version and "microsoft-standard" not in version.lower()


def _apparmor_restricts() -> bool:
    try:
        return Path(APPARMOR_SYSCTL).read_text().strip() == "1"
    except OSError:
        return False
