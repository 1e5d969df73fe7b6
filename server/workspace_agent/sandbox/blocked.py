"""Which wall of the sandbox a failed command ran into, said plainly.

A sandboxed `pip install` that fails with "Read-only file system: '/root/.local/...'" is
told to the model as `write to ~/.local/... blocked by the sandbox`, so it can adapt (use
the workspace, a virtualenv, /tmp) or ask to run the command outside the sandbox, rather
than guess. Read from the command's output: the kernel's errors (EROFS for writes, no
route or name resolution for network, EPERM on a Unix socket) are what programs print.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from .policy import (
    PROTECTED_DIRS,
    PROTECTED_FILES,
    RC_FILES,
    REAL_CACHES,
    SandboxPolicy,
    offered_folder,
)

READ_ONLY = re.compile(r"read-only file system|device or resource busy", re.IGNORECASE)
QUOTED = re.compile(r"""['"`‘]([^'"`’\n]+)['"`’]""")
BEFORE_ERROR = re.compile(
    r"""(?:^|\s)([^\s:'"`‘]+): (?:read-only file system|device or resource busy)""", re.I
)
ABSOLUTE = re.compile(r"""(?:\s|^)(/[^\s'"`’:,)]+)""")
NETWORK = re.compile(
    r"network is unreachable|could not resolve host|temporary failure in name resolution|"
    r"name or service not known|getaddrinfo|enotfound|eai_again|no address associated",
    re.IGNORECASE,
)
HOST = re.compile(
    r"(?:could not resolve host:?\s*|host=['\"]?|getaddrinfo \w+ |resolve ['\"]?)"
    r"([A-Za-z0-9.-]+\.[A-Za-z]{2,})",
    re.IGNORECASE,
)
UNIX_SOCKET = re.compile(
    r"(socket|connect|\.sock\b|docker daemon|ssh-agent|agent)[^\n]*operation not permitted|"
    r"operation not permitted[^\n]*(socket|\.sock\b)",
    re.IGNORECASE,
)
MAX_WALLS = 4


@dataclass(frozen=True)
class Wall:
    """One thing the sandbox blocked: `clause` for the model, the rest for the user's card
    (toolResult `blocked`): `kind` write, network or socket; `target` the path (`~/...`,
    relative inside the workspace) or host, when known; `setting` the user setting that
    would let it through (`sandbox.allowedDomains`, `sandbox.realCaches`,
    `sandbox.writablePaths`), when one does; `folder` the folder that last one would add."""

    clause: str
    kind: str
    target: str | None = None
    setting: str | None = None
    folder: str | None = None

    def to_wire(self) -> dict[str, str]:
        wire = {"kind": self.kind}
        if self.target:
            wire["target"] = self.target
        if self.setting:
            wire["setting"] = self.setting
        if self.folder:
            wire["folder"] = self.folder
        return wire


def walls(output: str, policy: SandboxPolicy) -> list[str]:
    """What the sandbox blocked, one short clause each (at most a few)."""
    return [wall.clause for wall in found_walls(output, policy)]


def found_walls(output: str, policy: SandboxPolicy) -> list[Wall]:
    """What the sandbox blocked, as facts (at most a few)."""
    found: list[Wall] = []

    def add(wall: Wall) -> None:
        if all(wall.clause != other.clause for other in found) and len(found) < MAX_WALLS:
            found.append(wall)

    for line in output.splitlines():
        if READ_ONLY.search(line):
            path = _path_in(line, policy)
            add(
                _write_wall(path, policy)
                if path
                else Wall("a write outside the workspace and /tmp", "write")
            )
        elif UNIX_SOCKET.search(line):
            add(
                Wall(
                    "connecting to a Unix socket (only the network inside the sandbox is its own)",
                    "socket",
                )
            )
        elif NETWORK.search(line):
            host = HOST.search(line)
            add(
                Wall(
                    f"network access to {host.group(1)}", "network", host.group(1), ALLOWED_DOMAINS
                )
                if host
                else Wall("network access", "network")
            )
    return found


ALLOWED_DOMAINS = "sandbox.allowedDomains"
REAL_CACHES_SETTING = "sandbox.realCaches"
WRITABLE_PATHS = "sandbox.writablePaths"


def describe(found: list[str], read_only: bool = False) -> str:
    """The note appended to the command's result: the way out that keeps the sandbox
    first, leaving it last. `read_only` (plan mode): no way out, the change goes in the plan."""
    if read_only:
        return (
            f"[blocked by the sandbox: {'; '.join(found)}. You are in plan mode: the whole "
            "workspace is read-only and only /tmp is writable, so nothing changes until the "
            "user approves the plan. Do not try another way: put this change in the plan "
            "(the todo tool) and go on exploring]"
        )
    network = any(wall.startswith("network access") for wall in found)
    how = (
        " The network inside the sandbox goes through a proxy (HTTP_PROXY, HTTPS_PROXY, and "
        "ALL_PROXY as SOCKS5) that asks the user about each host by itself: this program did "
        "not use it. Make it use the proxy (its proxy option, an https:// URL for git) and "
        "run it again; only what cannot (ssh, raw sockets) needs `unsandboxed_reason`."
        if network
        else ""
    )
    return (
        f"[blocked by the sandbox: {'; '.join(found)}. Inside the sandbox only the workspace "
        "(except .git and editor/agent configs) and /tmp are writable, and hosts of the "
        f"network are asked about.{how} Work within that, or call bash again asking the user "
        "for more: `writable_paths` (a folder it must also write) or `unsandboxed_reason` "
        "(run it outside the sandbox, with the user's full access: no walls at all)]"
    )


def _write_wall(target: Path, policy: SandboxPolicy) -> Wall:
    path = str(target)
    inside = _relative(target, policy.workspace)
    if policy.read_only and inside is not None:
        return Wall(
            f"write to {inside} (plan mode: the whole workspace is read-only)", "write", inside
        )
    if policy.writable(target):
        if inside is not None:
            head = inside.split("/", 1)[0]
            if head in (*PROTECTED_DIRS, *PROTECTED_FILES, *RC_FILES):
                return Wall(
                    f"write to {inside} ({head} is read-only inside the sandbox)", "write", inside
                )
        return Wall(f"write to {path}", "write", path)
    shown = _home_relative(path, policy.home)
    cache = any(shown == root or shown.startswith(root + "/") for root in REAL_CACHES)
    if cache:
        return Wall(f"write to {shown}", "write", shown, REAL_CACHES_SETTING)
    folder = None if policy.read_only else offered_folder(target, policy.home)
    if folder is None:
        return Wall(f"write to {shown}", "write", shown)
    offer = _home_relative(str(folder), policy.home)
    return Wall(f"write to {shown}", "write", shown, WRITABLE_PATHS, offer)


def _home_relative(path: str, home: str) -> str:
    """`path` as `~/...` when it is in the home folder."""
    home = home.rstrip("/")
    if home and (path == home or path.startswith(home + "/")):
        return "~" + path[len(home) :]
    return path


def _path_in(line: str, policy: SandboxPolicy) -> Path | None:
    """The path an error line is about (relative ones are the workspace's: commands start
    there)."""
    match = QUOTED.search(line) or BEFORE_ERROR.search(line) or ABSOLUTE.search(line)
    if not match:
        return None
    raw = match.group(1).strip()
    path = Path(raw) if raw.startswith("/") else policy.workspace / raw
    return Path(os.path.normpath(path))


def _relative(path: Path, root: Path) -> str | None:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return None
