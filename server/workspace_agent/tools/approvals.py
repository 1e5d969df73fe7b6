"""User approval for what the agent does: a policy per kind of action, and a way to ask.

Kinds: "bash" (running a command) and "write" (changing a file). Each is "ask", "allow"
or "deny" by the workspaceAgent.approvals setting; "Allow for this session" stops the
asking for that kind until the session ends.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol

from .errors import ToolError

Answer = Literal["allow", "allow_session", "deny"]
POLICIES = ("ask", "allow", "deny")
DEFAULT_POLICY: Mapping[str, str] = {"bash": "ask", "write": "allow"}
NOUNS = {"bash": "running commands", "write": "changing files"}


class Asker(Protocol):
    async def ask(self, kind: str, action: str) -> Answer | None:
        """Ask whether the agent may do `action`; None when the user dismissed the question."""


@dataclass
class Approvals:
    policy: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_POLICY))
    asker: Asker | None = None
    allowed_for_session: set[str] = field(default_factory=set)
    unanswered: str | None = None
    """The question that was open when the run was cancelled (it counts as declined)."""

    async def require(self, kind: str, action: str) -> None:
        """Return when `action` ("run `make`", "edit a.py ...") may go ahead; raise
        ToolError saying why not."""
        mode = self.policy.get(kind, DEFAULT_POLICY.get(kind, "ask"))
        if mode == "allow" or kind in self.allowed_for_session:
            return
        noun = NOUNS.get(kind, kind)
        if mode == "deny":
            raise ToolError(
                f"not allowed: the workspaceAgent.approvals setting denies {noun} ({kind}: deny)"
            )
        if self.asker is None:
            raise ToolError(f"{noun} needs the user's approval, and there is no one to ask")
        try:
            answer = await self.asker.ask(kind, action)
        except asyncio.CancelledError:
            self.unanswered = action
            raise
        if answer == "allow_session":
            self.allowed_for_session.add(kind)
        elif answer != "allow":
            raise ToolError(f"the user declined to let the agent {action}")
