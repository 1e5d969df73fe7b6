"""`workspace-agent run TASK --workspace DIR`: one task, headless, same core as the server.

Ctrl-C cancels the run cleanly (the running command is killed, the run ends as
"cancelled"); a second Ctrl-C exits at once.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

from ..agent.sessions import SessionError, SessionManager
from ..config import resolve_settings
from ..protocol import RunParams
from .asker import TerminalAsker
from .terminal import TerminalRenderer

EXIT_CODES = {"end_turn": 0, "error": 1, "max_turns": 3, "budget": 4, "cancelled": 130}


async def run_task(
    root: Path, task: str, overrides: dict[str, Any], allow_all: bool, session_id: str | None = None
) -> int:
    """Run `task` in the (already resolved) workspace `root`; return the exit status.
    Approval questions are asked on the terminal unless `allow_all` (--yes)."""
    renderer = TerminalRenderer()
    if allow_all:
        overrides = {**overrides, "approvals": {"bash": "allow", "write": "allow"}}
    agent = SessionManager(
        renderer,
        root=lambda: root,
        settings=lambda r: resolve_settings(r, overrides),
        asker=TerminalAsker(),
    )
    try:
        session = agent.get(session_id) if session_id else agent.new_session()
    except SessionError as exc:
        print(f"workspace-agent: {exc}")
        return 2
    print(f"session {session.id}", flush=True)
    loop = asyncio.get_running_loop()
    interrupted = False

    def on_interrupt() -> None:
        nonlocal interrupted
        if interrupted:
            raise SystemExit(130)
        interrupted = True
        agent.cancel(session.id)

    loop.add_signal_handler(signal.SIGINT, on_interrupt)
    try:
        result = await agent.run(RunParams(task, session.id))
        await agent.checkpoints.idle()  # the store's upkeep after the run, before exiting
    finally:
        loop.remove_signal_handler(signal.SIGINT)
    return EXIT_CODES[result.stop_reason]
