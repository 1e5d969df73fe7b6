"""Asking for approval on the terminal (headless `workspace-agent run`)."""

from __future__ import annotations

import asyncio
import sys
import threading
from typing import Any

ANSWERS = {"y": "allow", "yes": "allow", "a": "allow_session", "always": "allow_session"}


class TerminalAsker:
    def __init__(self, out: Any = None) -> None:
        self._out = out or sys.stdout

    async def ask(self, kind: str, action: str) -> Any:
        self._out.write(f"\n? The agent wants to {action}.\n")
        self._out.write("  Allow? [y]es / [a]lways in this session / [N]o: ")
        self._out.flush()
        line = await _read_line()
        return ANSWERS.get(line.strip().lower(), "deny" if line else None)


def _read_line() -> asyncio.Future[str]:
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
