"""`workspace-agent acp`: the ACP agent on stdin/stdout until the client goes away.

stdout carries the protocol (nothing else may be printed there); logs go to stderr, which
ACP clients show in their agent log. When stdin closes, or on SIGTERM, SIGHUP or SIGINT,
every run is cancelled first, so no command the agent started outlives it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
from typing import cast

from acp import stdio_streams
from acp.agent.connection import AgentSideConnection
from acp.interfaces import Agent

from ..agent import preload
from ..agent.front_end import StartOptions
from .agent import WorkspaceAgent
from .framing import JsonRpcLines

STDIN_CHUNK = 1024 * 1024
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


def configure_logging(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    logging.getLogger("workspace_agent").setLevel(level.upper())


async def serve(options: StartOptions | None = None) -> int:
    """`options`: --yes and its kin (agent/front_end.py)."""
    reader, writer = await stdio_streams(limit=STDIN_CHUNK)
    agent = WorkspaceAgent(lambda message: lines.post(message), options or StartOptions())
    lines = JsonRpcLines(reader, writer, cancel_prompt=agent.cancel_now)
    # The SDK routes to the methods an agent has; those it lacks (modes, authentication,
    # forks) answer "method not found". Hence the cast: the Protocol lists them all.
    connection = AgentSideConnection(cast(Agent, agent), lines, listening=False)
    preload.start()  # the SDK's import while the client sets up (preload.py)

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for number in STOP_SIGNALS:
        loop.add_signal_handler(number, stop.set)
    listening = asyncio.ensure_future(connection.listen())
    stopping = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({listening, stopping}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        await agent.shutdown()  # runs cancelled, their commands killed
        for task in (listening, stopping):
            task.cancel()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(connection.close(), 5)
    return 0
