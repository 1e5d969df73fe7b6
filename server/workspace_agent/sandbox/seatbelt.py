"""The sandbox policy as a macOS Seatbelt profile (`sandbox-exec -p PROFILE`), on paper.

Generated from the same SandboxPolicy as the bwrap command line, so the two platforms
cannot drift apart; unit-tested as text (tests/unit/sandbox/test_sandbox_seatbelt.py) but not run:
no macOS machine runs this project's tests, so the probe still reports macOS as
unsandboxed and commands there are asked about.

SBPL evaluates the last matching rule, so the order is: deny everything, allow what a
process needs to run, allow reads, deny the masked credential locations, allow writes
to the workspace (not in plan mode) and the session temp dir, then deny writes (and
unlinks, so a protected folder cannot be renamed away and replaced) to the protected
paths inside. There is no network at all: on macOS there is no private loopback, so
localhost would be the host's.
"""

from __future__ import annotations

from pathlib import Path

from .policy import SandboxPolicy

PREAMBLE = """(version 1)
(deny default)
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow sysctl-read)
(allow mach-lookup)
(allow ipc-posix-shm)
(allow file-ioctl)
(allow pseudo-tty)
"""
DEVICES = ("/dev/null", "/dev/zero", "/dev/tty", "/dev/stdout", "/dev/stderr", "/dev/dtracehelper")
"""Device files commands write to all the time."""


def profile(policy: SandboxPolicy) -> str:
    lines = [PREAMBLE.rstrip("\n"), "(allow file-read*)"]
    masked = policy.masked_paths()
    if masked:
        lines.append(f"(deny file-read* {_any(masked)})")
    workspace = [] if policy.read_only else [policy.workspace]  # plan mode: read-only
    writable = [*workspace, policy.temp_dir, *policy.extra_writable]
    lines.append(
        "(allow file-write* "
        + " ".join([*(_subpath(p) for p in writable), *(_literal(Path(d)) for d in DEVICES)])
        + ")"
    )
    protected = [path for path, _ in policy.protected_paths()]
    if protected:
        lines.append(f"(deny file-write* {_any(protected)})")
        lines.append(f"(deny file-write-unlink {' '.join(_literal(p) for p in protected)})")
    lines.append("(deny network*)")
    return "\n".join(lines) + "\n"


def command_line(policy: SandboxPolicy, command: list[str]) -> list[str]:
    return ["/usr/bin/sandbox-exec", "-p", profile(policy), *command]


def _any(paths: list[Path]) -> str:
    """Each path, and everything under it."""
    return " ".join(f"{_literal(p)} {_subpath(p)}" for p in paths)


def _subpath(path: Path) -> str:
    return f"(subpath {_string(str(path))})"


def _literal(path: Path) -> str:
    return f"(literal {_string(str(path))})"


def _string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'
