"""The MCP SDK's import waits for the anthropic SDK's (mcp/sdk.py): the two at once shared
the GIL and the first run, which waits for the anthropic SDK, waited for most of the MCP
import too (the slow-MCP-server benchmark, bench/mcp_cost.py). A server's startup timeout
counts from the MCP SDK's import.
And a run cancelled while the anthropic SDK still loads does not break the later ones.

Each case runs in a fresh interpreter: the imports are once per process."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support.mcp import TIME, require_servers

# Tests that start the real MCP servers share one pytest-xdist worker: some count those
# servers' processes machine-wide.
pytestmark = pytest.mark.xdist_group("mcp-servers")

WAITS_FOR_THE_MODEL_SDK = """
import asyncio, json, sys
from workspace_agent.shared import background_imports
from workspace_agent.mcp.config import ServerConfig
from workspace_agent.mcp.servers import McpServers

async def main():
    held = background_imports.under_way()  # as the anthropic SDK's import, still going on
    servers = McpServers(None)
    config = ServerConfig("time", "stdio", command=sys.argv[1], startup_timeout=float(sys.argv[2]))
    (connection,) = servers.configure([config])
    await asyncio.sleep(float(sys.argv[2]) + 1)  # longer than the startup timeout
    before = {"mcp loaded": "mcp" in sys.modules, "state": connection.state}
    held.set_result(None)
    await connection.settled(30)
    after = {"state": connection.state, "tools": len(servers.tools())}
    await servers.shutdown()
    print(json.dumps([before, after]))

asyncio.run(main())
"""


def test_the_mcp_sdk_loads_after_the_model_sdk_and_the_startup_timeout_after_it():
    require_servers()
    # 10 s to start: the server is a Python program, slow to start on a loaded machine
    # (5 s was not enough at a load of 14 on 2 cores).
    done = subprocess.run(
        [sys.executable, "-c", WAITS_FOR_THE_MODEL_SDK, str(TIME), "10"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    before, after = json.loads(done.stdout)
    assert before == {"mcp loaded": False, "state": "starting"}
    assert after == {"state": "ready", "tools": 2}


CANCELLED_WAITER = """
import asyncio
from workspace_agent.agent import preload
from workspace_agent.shared import background_imports

async def main():
    waiter = asyncio.ensure_future(preload.sdk())
    await asyncio.sleep(0.01)  # the import is under way
    waiter.cancel()
    try:
        await waiter
    except asyncio.CancelledError:
        pass
    sdk = await preload.sdk()
    await background_imports.ended()
    print(sdk.__name__, sdk.AsyncAnthropic.__name__)

asyncio.run(main())
"""


def test_a_run_cancelled_while_the_model_sdk_loads_leaves_it_loading_for_the_next():
    done = subprocess.run(
        [sys.executable, "-c", CANCELLED_WAITER], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["anthropic", "AsyncAnthropic"]
