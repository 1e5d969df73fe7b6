"""The sandbox's state as front ends show it: once, up front (the CLI banner, the LSP
`initialize` result and status notification, the ACP session), so the user knows whether
commands are confined and, if not, why and what would fix it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .backend import backend


@dataclass(frozen=True)
class SandboxStatus:
    mode: str
    """The `sandbox.mode` setting: auto | required | off."""
    active: bool
    """Commands run in the sandbox."""
    reason: str = ""
    """Why not, when the mode wanted it."""
    fix: str = ""

    def line(self) -> str:
        if self.active:
            return (
                "sandbox: on (bubblewrap: writes only in the workspace and /tmp; network "
                "through a proxy that asks about each host)"
            )
        if self.mode == "off":
            return "sandbox: off (sandbox.mode is off); commands are asked about"
        then = "commands are refused" if self.mode == "required" else "commands are asked about"
        fix = f"; to fix: {self.fix}" if self.fix else ""
        return f"sandbox: unavailable ({self.reason}){fix}; {then}"

    def to_wire(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "active": self.active,
            "reason": self.reason or None,
            "fix": self.fix or None,
            "message": self.line(),
        }


async def sandbox_status(mode: str, root: Path | None) -> SandboxStatus:
    if mode == "off":
        return SandboxStatus(mode, False)
    state = await backend().availability(root)
    return SandboxStatus(mode, state.ok, state.reason, state.fix)
