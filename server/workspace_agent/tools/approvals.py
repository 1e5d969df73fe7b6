"""User approval for what the agent does: a policy per kind of action, and a way to ask.

Kinds: "bash" (running a command) and "write" (changing a file). Each is "ask", "allow"
or "deny" by the workspaceAgent.approvals setting; "Allow for this session" stops the
asking for that kind until the session ends. "bash" may also be "sandboxed" (its
default): a command that runs in the sandbox (sandbox/) goes ahead, any other is asked
about as under "ask".

An action can come with a reason it must be asked about (the command guard could not read
a command with confidence): it is then asked about even under "allow" or after "Allow for
this session", every time, with the reason in the question; "deny" still denies it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol

from .errors import ToolError

Answer = Literal["allow", "allow_session", "deny"]
POLICIES = ("ask", "allow", "deny", "sandboxed")
DEFAULT_POLICY: Mapping[str, str] = {"bash": "sandboxed", "write": "allow"}
NOUNS = {"bash": "running commands", "write": "changing files"}


class Asker(Protocol):
    async def ask(self, kind: str, action: str, reason: str | None = None) -> Answer | None:
        """Ask whether the agent may do `action`; None when the user dismissed the question.
        `reason` (a clause) says why this action is asked about although its kind may be
        allowed; such a question offers no "for this session" answer."""


@dataclass
class Approvals:
    policy: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_POLICY))
    asker: Asker | None = None
    allowed_for_session: set[str] = field(default_factory=set)
    unanswered: str | None = None
    """The question that was open when the run was cancelled (it counts as declined)."""

    async def require(
        self,
        kind: str,
        action: str,
        must_ask_reason: str | None = None,
        sandboxed: bool = False,
    ) -> None:
        """Return when `action` ("run `make`", "edit a.py ...") may go ahead; raise
        ToolError saying why not. With `must_ask_reason`, the user is asked even where
        `kind` is allowed (only "deny" answers without asking). `sandboxed`: the action is
        confined by the sandbox, which is what the "sandboxed" policy allows."""
        mode = self.policy.get(kind, DEFAULT_POLICY.get(kind, "ask"))
        allowed = (
            mode == "allow"
            or (mode == "sandboxed" and sandboxed)
            or kind in self.allowed_for_session
        )
        if allowed and must_ask_reason is None:
            return
        noun = NOUNS.get(kind, kind)
        if mode == "deny":
            raise ToolError(
                f"not allowed: the workspaceAgent.approvals setting denies {noun} ({kind}: deny)"
            )
        why = f" (asked because {must_ask_reason})" if must_ask_reason else ""
        if self.asker is None:
            raise ToolError(f"{noun} needs the user's approval{why}, and there is no one to ask")
        try:
            answer = await self.asker.ask(kind, action, must_ask_reason)
        except asyncio.CancelledError:
            self.unanswered = action
            raise
        if answer == "allow_session" and must_ask_reason is None:
            self.allowed_for_session.add(kind)
        elif answer not in ("allow", "allow_session"):
            raise ToolError(f"the user declined to let the agent {action}{why}")
