"""Asking for approval in a headless `workspace-agent run`.

- On a terminal, the question is asked there (for a command that destroys work, with a
  line saying how; No is the default answer anyway).
- With `--yes` the user allowed every command up front: questions the command guard
  raises are answered "allow", and each is printed so the user sees what ran unasked.
- With no terminal and no `--yes` there is no one to ask: the action is refused with a
  message that says how to allow it.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from typing import Any

from ..guard.approvals import Question, Reply
from ..shared.errors import ToolError

ANSWERS = {
    "y": "allow",
    "yes": "allow",
    "t": "allow_tool_session",
    "tool": "allow_tool_session",
    "a": "allow_session",
    "always": "allow_session",
}


class TerminalAsker:
    def __init__(self, out: Any = None) -> None:
        self._out = out or sys.stdout

    async def ask(self, kind: str, action: str, reason: str | None = None) -> Any:
        return await self._ask(action, reason, None)

    async def ask_in_detail(self, question: Question) -> Reply:
        if question.kind == "network":  # about one host: the command stays in the sandbox
            self._out.write(
                f"\n? {question.message}\n"
                "  Allow? [y]es, for this command / [a]lways in this session, this host / [N]o: "
            )
            self._out.flush()
            line = await read_line()
            return Reply(ANSWERS.get(line.strip().lower(), "deny" if line else None))  # type: ignore[arg-type]
        per_tool = "allow_tool_session" in question.options
        answer = await self._ask(
            question.action, question.reason, question.details.destructive, per_tool
        )
        return Reply(answer)

    async def _ask(
        self, action: str, reason: str | None, destructive: str | None, per_tool: bool = False
    ) -> Any:
        self._out.write(f"\n? The agent wants to {action}.\n")
        if destructive:
            self._out.write(f"  Careful: this {destructive}.\n")
        if reason:
            self._out.write(f"  Asked because {reason}.\n  Allow? [y]es / [N]o: ")
        elif per_tool:
            self._out.write(
                "  Allow? [y]es / [t]his tool in this session / [a]ll of this server's tools "
                "in this session / [N]o: "
            )
        else:
            self._out.write("  Allow? [y]es / [a]lways in this session / [N]o: ")
        self._out.flush()
        line = await read_line()
        return ANSWERS.get(line.strip().lower(), "deny" if line else None)


class AllowEverything:
    """`--yes`: the user allowed every command explicitly, those the guard asks about too."""

    def __init__(self, out: Any = None) -> None:
        self._out = out or sys.stdout

    async def ask(self, kind: str, action: str, reason: str | None = None) -> Any:
        why = f" (asked because {reason})" if reason else ""
        self._out.write(f"  ! allowed by --yes: {action}{why}\n")
        self._out.flush()
        return "allow"


class NoTerminal:
    """No terminal and no `--yes`: nothing that needs approval may happen."""

    async def ask(self, kind: str, action: str, reason: str | None = None) -> Any:
        why = f" (asked because {reason})" if reason else ""
        raise ToolError(
            f"not allowed: the agent may {action} only with the user's approval{why}, and "
            "there is no terminal to ask on (standard input is not a terminal); run "
            "workspace-agent with --yes to allow every command"
        )


def read_line() -> asyncio.Future[str]:
    """input() in a daemon thread: a cancelled run must not wait for a key press to exit."""
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[str] = loop.create_future()

    def read() -> None:
        line = sys.stdin.readline()  # "" at end of input

        def deliver() -> None:
            if not answer.done():  # a cancelled run may have given up on the answer
                answer.set_result(line)

        loop.call_soon_threadsafe(deliver)

    threading.Thread(target=read, name="approval-input", daemon=True).start()
    return answer
