"""What a session manager holds of the hooks between runs: the trust records, the answers
of this process (a hook the user declined is not asked about again until it changes),
the problems already told (each once), and the sessions whose SessionStart ran.

A hook that must be trusted (trust.py) and is not yet is asked about through the run's
approvals, once per fingerprint and process: the exact command, where it is configured,
the scripts it runs. Allowed, the trust is recorded and it runs; declined, it is skipped.
With no person to ask (no terminal, or `--yes`, which never trusts on the user's behalf)
it is skipped with one line that says how to trust it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from .. import protocol as p
from ..guard.approvals import Details
from ..shared.errors import ToolError
from .trust import Candidate, HookTrust

if TYPE_CHECKING:
    from ..shared.observers import RunScope
    from .observer import HookObserver
    from .sources import Found

TRUST_HINT = "trust it when asked, or with `workspace-agent hooks trust --workspace {root}`"
WORKSPACE_REASON = (
    "a repository's settings run this command at the agent's events (in the sandbox, which "
    "writes only the workspace)"
)
SCRIPT_REASON = (
    "it runs a script a command in the sandbox may have written or changed, on your machine"
)


class HookService:
    def __init__(self, user_dir: Path) -> None:
        self.trust = HookTrust(user_dir)
        self._declined: set[str] = set()
        self._told: set[str] = set()
        self._started: set[str] = set()
        self._deciding: asyncio.Lock | None = None

    def observer(self, scope: RunScope, found: Found) -> HookObserver:
        """The hooks of one run; the problems of their files are told once per process."""
        from .observer import HookObserver

        for problem in found.problems:
            if problem not in self._told:
                self._told.add(problem)
                scope.events.emit(p.EVENT_NOTICE, message=f"Hooks: {problem}")
        return HookObserver(self, scope, found.hooks)

    def first_run(self, session_id: str) -> bool:
        """True once per session and process: its SessionStart hooks run then."""
        if session_id in self._started:
            return False
        self._started.add(session_id)
        return True

    async def may_run(self, found: Candidate, scope: RunScope) -> str | None:
        """None when the hook may run (trusted now, or the user trusts it when asked);
        otherwise why it is skipped, with how to trust it."""
        if self.trust.trusted(found):
            return None
        hint = TRUST_HINT.format(root=scope.root)
        fingerprint = found.fingerprint()
        questions = scope.questions
        if fingerprint in self._declined:
            return f"not trusted (declined in this session of the agent); {hint}"
        if questions is None or questions.unattended:
            return f"not trusted yet (no one was asked: --yes never trusts a hook); {hint}"
        if self._deciding is None:
            self._deciding = asyncio.Lock()
        async with self._deciding:  # the same hook twice side by side: one question
            if self.trust.trusted(found):
                return None
            if fingerprint in self._declined:
                return f"not trusted; {hint}"
            hook = found.hook
            reason = WORKSPACE_REASON if hook.source == "workspace" else SCRIPT_REASON
            try:
                await questions.require(
                    "hook",
                    f"run the hook {found.describe()}",
                    must_ask_reason=reason,
                    details=Details(command=hook.command),
                )
            except ToolError as exc:
                self._declined.add(fingerprint)
                declined = "declined" in str(exc)
                why = "you declined it" if declined else "no one could be asked"
                return f"not trusted ({why}); {hint}"
            self.trust.trust(found)
        return None
