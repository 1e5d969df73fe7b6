"""Rows 17 and 18: what MCP support costs.

Row 17, the first model request: the real server over LSP runs a one-answer prompt in a
workspace with no MCP server (the baseline) and in one whose user config names a server
that takes 5 s to start (`sh -c 'sleep 5; exec mcp-server-time'`). The run must not wait
for it: the first request's bytes must be the same, and the times from `workspaceAgent/run`
to the first request reaching the model and to the run's answer no more than 1.2x. The
run is sent right after `initialize`, the worst case: the server's start-up imports (the
anthropic SDK's, and with the server the MCP SDK's) are still under way.

Row 18, one MCP tool call through the agent's dispatch map entry (approval policy allow,
the result rendered and capped) against a direct `Client.call_tool` of the SDK, each on
its own connection to server-everything's `echo`, interleaved.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import Any

from workspace_agent.testing.scripted_model import reply, text

from .harness import ScriptedModelProcess, lsp_agent, run_prompt, temp_dir
from .report import Row

FIRST_WHAT = "first model request with a slow MCP server configured"
FIRST_TARGET = (
    "same bytes; time to the first request and to the answer <= 1.2x the run without servers"
)
CALL_WHAT = "MCP tool call through the agent against a direct SDK call_tool"
CALL_TARGET = "<= 1.2x"
LIMIT = 1.2
SERVERS = Path(__file__).resolve().parents[1] / "tests" / "mcp_servers"
TIME = SERVERS / ".venv" / "bin" / "mcp-server-time"
EVERYTHING = SERVERS / "node_modules" / ".bin" / "mcp-server-everything"


def _need(path: Path) -> None:
    if not path.exists():
        raise RuntimeError(f"{path} is missing: run `make mcp-test-servers`")


async def _first_run(slow_server: bool, base: Path) -> tuple[float, float, float, bytes]:
    """A fresh server's first run: (ms to its first request reaching the model, ms to its
    answer, ms of a second run, the first request's body)."""
    workspace, user = base / f"ws-{slow_server}", base / f"user-{slow_server}"
    workspace.mkdir(exist_ok=True)
    user.mkdir(exist_ok=True)
    if slow_server:
        slow = {"command": "sh", "args": ["-c", f"sleep 5; exec {TIME}"]}
        (user / "mcp.json").write_text(json.dumps({"mcpServers": {"slow": slow}}))
    script = {"conversations": [{"replies": [reply(text("Hi."))]}], "on_exhausted": "repeat"}
    with ScriptedModelProcess(script) as model:
        async with lsp_agent(workspace, model.url, WORKSPACE_AGENT_CONFIG_DIR=str(user)) as (
            client,
            _,
        ):
            start = time.monotonic_ns()  # CLOCK_MONOTONIC, as the model's received_ns
            await run_prompt(client, "hello")
            answer = (time.monotonic_ns() - start) / 1e6
            second_start = time.perf_counter()
            await run_prompt(client, "hello")
            second = (time.perf_counter() - second_start) * 1000
        first = model.requests()[0]
    request = (first["received_ns"] - start) / 1e6
    body = first["body"]
    body.pop("system", None)  # holds the temporary workspace's path
    return request, answer, second, json.dumps(body, sort_keys=True).encode()


Runs = dict[bool, list[tuple[float, float, float, bytes]]]


async def _first_requests(rounds: int) -> Runs:
    found: Runs = {False: [], True: []}
    with temp_dir("bench-mcp-") as base:
        for _ in range(rounds):  # interleaved: the machine's load hits both alike
            for slow in (False, True):
                found[slow].append(await _first_run(slow, base))
    return found


def _ms(values: list[float]) -> str:
    return ", ".join(f"{v:.0f}" for v in values)


def run_first(quick: bool) -> Row:
    _need(TIME)
    found = asyncio.run(_first_requests(1 if quick else 7))

    def median(slow: bool, field: int) -> float:
        return statistics.median(float(run[field]) for run in found[slow])  # type: ignore[arg-type]

    base_req, slow_req = median(False, 0), median(True, 0)
    base, slow = median(False, 1), median(True, 1)
    bodies = {run[3] for runs in found.values() for run in runs}
    same = len(bodies) == 1
    size = len(next(iter(bodies)))
    ratio_req, ratio = slow_req / base_req, slow / base
    return Row(
        17,
        FIRST_WHAT,
        f"no MCP server: first request after {base_req:.0f} ms ({size:,} bytes), "
        f"answer after {base:.0f} ms",
        f"first request after {slow_req:.0f} ms, answer after {slow:.0f} ms",
        f"{ratio_req:.2f}x / {ratio:.2f}x, first request bytes "
        f"{'identical' if same else 'DIFFERENT'}",
        FIRST_TARGET,
        same and ratio_req <= LIMIT and ratio <= LIMIT,
        [
            f"- {len(found[False])} fresh servers each, interleaved; medians; the run is sent "
            "right after `initialize` (the start-up imports still under way: the worst case)",
            f"- `workspaceAgent/run` → first request at the model, without MCP (ms): "
            f"{_ms([r[0] for r in found[False]])}; with the slow server: "
            f"{_ms([r[0] for r in found[True]])}",
            f"- → the run's answer, without MCP (ms): {_ms([r[1] for r in found[False]])}; "
            f"with the slow server: {_ms([r[1] for r in found[True]])}",
            f"- second runs, medians: {median(False, 2):.1f} ms without, "
            f"{median(True, 2):.1f} ms with",
            "- the first request is compared without its system prompt (it holds the "
            "temporary workspace's path); the slow server (`sleep 5`, then mcp-server-time) "
            "is still starting when the first run ends, so its tools are not in it",
        ],
    )


async def _calls(count: int) -> tuple[list[float], list[float]]:
    from mcp import Client, StdioServerParameters

    from workspace_agent.config import AgentSettings
    from workspace_agent.guard.approvals import Approvals
    from workspace_agent.mcp.config import ServerConfig
    from workspace_agent.mcp.servers import McpServers
    from workspace_agent.tools.base import ToolContext

    with temp_dir("bench-mcp-call-") as root:
        servers = McpServers(root)
        config = ServerConfig("everything", "stdio", command=str(EVERYTHING), args=("stdio",))
        (connection,) = servers.configure([config])
        await connection.settled(20)
        tool = servers.tools()["mcp__everything__echo"]
        settings = AgentSettings()
        ctx = ToolContext(
            root=root,
            settings=settings,
            todos=None,  # type: ignore[arg-type]  # not used by MCP tools
            approvals=Approvals({"mcp": "allow"}),
        )
        ours: list[float] = []
        direct: list[float] = []
        params = StdioServerParameters(command=str(EVERYTHING), args=["stdio"])
        try:
            async with Client(params) as client:
                for n in range(count):
                    arguments: dict[str, Any] = {"message": f"ping {n}"}
                    start = time.perf_counter()
                    await client.call_tool("echo", arguments)
                    direct.append((time.perf_counter() - start) * 1000)
                    start = time.perf_counter()
                    tool.validate(arguments)
                    await tool.handler(ctx, arguments)
                    ours.append((time.perf_counter() - start) * 1000)
        finally:
            await servers.shutdown()
    return ours, direct


def run_call(quick: bool) -> Row:
    _need(EVERYTHING)
    ours, direct = asyncio.run(_calls(50 if quick else 500))
    ours50, direct50 = statistics.median(ours), statistics.median(direct)
    ratio = ours50 / direct50
    return Row(
        18,
        CALL_WHAT,
        f"direct Client.call_tool: {direct50:.3f} ms",
        f"{ours50:.3f} ms",
        f"{ratio:.2f}x",
        CALL_TARGET,
        ratio <= LIMIT,
        [
            f"- {len(ours)} calls each of server-everything's `echo`, interleaved, medians",
            "- ours: Tool.validate + the handler (approval policy allow, Connection.call, "
            "the result through the output cap)",
        ],
    )
