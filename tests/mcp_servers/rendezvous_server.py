"""An MCP server built on the official SDK's MCPServer for the parallel-calls tests: it
tells whether the agent's calls overlapped, without timing them.

`look` (readOnlyHint) may wait until a number of calls have started: run one after the
other, the first would wait for a call that never starts (it gives up after WAIT_SECONDS
and says so). `change` (no hint: it could change something) gives a call beside it
OVERLAP_SECONDS to start, then answers. Every
answer says the call's place: how many calls had started and ended when it began, and
how many were in flight at its end."""

from __future__ import annotations

import asyncio

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

WAIT_SECONDS = 30.0
OVERLAP_SECONDS = 0.5
"""How long `change` gives a call beside it to show up; it passes as fast without one."""

server = MCPServer("rendezvous")
started = 0
ended = 0
moved = asyncio.Condition()


async def _begin() -> tuple[int, int]:
    global started
    async with moved:
        started += 1
        moved.notify_all()
        return started, ended


async def _end() -> int:
    global ended
    async with moved:
        ended += 1
        moved.notify_all()
        return started - ended


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
async def look(name: str, until: int = 0) -> str:
    """Read nothing; with `until`, wait until that many calls have started."""
    number, before = await _begin()
    met = True
    if until:
        try:
            async with moved:
                await asyncio.wait_for(moved.wait_for(lambda: started >= until), WAIT_SECONDS)
        except TimeoutError:
            met = False
    in_flight = await _end()
    waited = f", {'met' if met else 'waited alone for'} call {until}" if until else ""
    return f"{name}: call {number}, {before} ended before{waited}, {in_flight} in flight at its end"


@server.tool()
async def change(name: str) -> str:
    """Change nothing, but say so only as a tool that could."""
    number, before = await _begin()
    try:  # a call running beside this one would start meanwhile (not waited for in order)
        async with moved:
            await asyncio.wait_for(moved.wait_for(lambda: started > number), OVERLAP_SECONDS)
    except TimeoutError:
        pass
    in_flight = await _end()
    return f"{name}: call {number}, {before} ended before, {in_flight} in flight at its end"


if __name__ == "__main__":
    server.run()
