"""Row 15: `textDocument/codeAction` latency on a 5,000-line buffer with 50 diagnostics.

Editors ask for code actions on every cursor move, so the answer must be quick. The
real server (`python -m workspace_agent`) answers from the open buffer and settings it
already has; the baseline (`python -m bench.naive_code_actions`) builds the same actions
after reading the file from disk and resolving settings and paths per request.

Both servers run at once and get the same requests, alternately, over raw JSON-RPC
framing on their stdio pipes (the client is the same few lines for both, so the clock
measures the servers). Each request carries all 50 diagnostics in its context and a
30-line selection that moves through the file like a cursor, so every answer holds 50
quick fixes and one Ask action. The clock runs from writing a request to reading its
answer.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import time
from pathlib import Path
from typing import Any

from .harness import PY, temp_dir
from .report import Row, percentile
from .startup import _answer, _cpu_seconds, _frame, initialize_params, spawn_on_stdio

NUMBER = 15
WHAT = "`textDocument/codeAction` on a 5,000-line buffer with 50 diagnostics"
TARGET = "p99 <= 5 ms"
LIMIT_MS = 5.0
LINES = 5000
DIAGNOSTICS = 50
SELECTED_LINES = 30

COMMANDS = {
    "ours": [PY, "-m", "workspace_agent"],
    "naive": [PY, "-m", "bench.naive_code_actions"],
}


def document_text() -> str:
    """5,000 lines of plausible Python, about 40 characters each."""
    return "".join(
        f"def handler_{n}(value):\n" if n % 5 == 0 else f"    total_{n} = value * {n} + {n % 7}\n"
        for n in range(LINES)
    )


def diagnostics() -> list[dict[str, Any]]:
    step = LINES // DIAGNOSTICS
    return [
        {
            "range": {
                "start": {"line": n * step + 1, "character": 4},
                "end": {"line": n * step + 1, "character": 14},
            },
            "severity": 1 + n % 2,
            "source": "Pyright",
            "code": "reportUndefinedVariable",
            "message": f'"total_{n * step + 1}" is not accessed; the value computed here is unused',
        }
        for n in range(DIAGNOSTICS)
    ]


class Server:
    """One server on stdio, spoken to with raw JSON-RPC framing."""

    def __init__(self, name: str, proc: asyncio.subprocess.Process) -> None:
        self.name = name
        self.proc = proc
        self.next_id = 1
        self.answer_bytes = 0

    @classmethod
    async def start(cls, name: str, workspace: Path) -> Server:
        server = cls(name, await spawn_on_stdio(COMMANDS[name], workspace))
        await server.request("initialize", initialize_params(workspace))
        server.notify("initialized", {})
        return server

    def notify(self, method: str, params: Any) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(_frame({"jsonrpc": "2.0", "method": method, "params": params}))

    async def request(self, method: str, params: Any) -> Any:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        request_id, self.next_id = self.next_id, self.next_id + 1
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        self.proc.stdin.write(_frame(message))
        await self.proc.stdin.drain()
        answer = await _answer(self.proc.stdout, request_id)
        if "error" in answer:
            raise RuntimeError(f"{self.name}: {method} failed: {answer['error']}")
        return answer.get("result")

    async def stop(self) -> None:
        await self.request("shutdown", None)
        self.notify("exit", None)
        try:
            await asyncio.wait_for(self.proc.wait(), 10)
        except asyncio.TimeoutError:
            self.proc.kill()
            await self.proc.wait()


async def idle(server: Server, deadline: float = 60.0) -> None:
    """Wait until the server uses no CPU for a quarter of a second (its start-up work,
    such as loading the SDK in a thread, is over), at most `deadline` seconds."""
    give_up = time.monotonic() + deadline
    while time.monotonic() < give_up:
        before = _cpu_seconds(server.proc.pid)
        await asyncio.sleep(0.25)
        if _cpu_seconds(server.proc.pid) - before < 0.011:  # at most one clock tick
            return
    raise RuntimeError(f"{server.name} kept the CPU busy for {deadline:.0f} s after start")


def action_params(uri: str, n: int, problems: list[dict[str, Any]]) -> dict[str, Any]:
    first = (n * 97) % (LINES - SELECTED_LINES)
    return {
        "textDocument": {"uri": uri},
        "range": {
            "start": {"line": first, "character": 0},
            "end": {"line": first + SELECTED_LINES, "character": 0},
        },
        "context": {"diagnostics": problems, "triggerKind": 2},
    }


async def timed(server: Server, params: dict[str, Any]) -> float:
    started = time.perf_counter()
    result = await server.request("textDocument/codeAction", params)
    elapsed = time.perf_counter() - started
    if not isinstance(result, list) or len(result) != DIAGNOSTICS + 1:
        raise RuntimeError(f"{server.name} answered {str(result)[:300]}")
    server.answer_bytes = len(json.dumps(result))
    return elapsed * 1000


async def floor(server: Server, uri: str) -> float:
    """Round trip (ms) of a code action request that the server answers with null."""
    params = {
        "textDocument": {"uri": uri},
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
        "context": {"diagnostics": []},
    }
    started = time.perf_counter()
    result = await server.request("textDocument/codeAction", params)
    elapsed = time.perf_counter() - started
    if result is not None:
        raise RuntimeError(f"{server.name} offered actions for an empty request: {result}")
    return elapsed * 1000


async def measure(
    requests: int, warmup: int
) -> tuple[dict[str, list[float]], dict[str, int], dict[str, float]]:
    """Round-trip times (ms) per server, the answer's size (bytes) and the CPU time each
    server used per measured request (ms)."""
    # The measuring client is a Python process too: keep its own garbage collections out
    # of the numbers (as the latency rows do).
    gc.collect()
    gc.freeze()
    with temp_dir("bench-code-actions-") as workspace:
        path = workspace / "app.py"
        text = document_text()
        path.write_text(text, encoding="utf-8")
        uri = path.as_uri()
        problems = diagnostics()
        servers = [await Server.start(name, workspace) for name in COMMANDS]
        try:
            for server in servers:
                server.notify(
                    "textDocument/didOpen",
                    {
                        "textDocument": {
                            "uri": uri,
                            "languageId": "python",
                            "version": 1,
                            "text": text,
                        }
                    },
                )
            for n in range(warmup):
                for server in servers:
                    await timed(server, action_params(uri, n, problems))
            for server in servers:  # the real server loads the SDK after initialize
                await idle(server)
            times: dict[str, list[float]] = {name: [] for name in COMMANDS}
            cpu_before = {server.name: _cpu_seconds(server.proc.pid) for server in servers}
            for n in range(requests):
                order = servers if n % 2 == 0 else servers[::-1]
                for server in order:
                    times[server.name].append(await timed(server, action_params(uri, n, problems)))
            cpu = {
                server.name: (_cpu_seconds(server.proc.pid) - cpu_before[server.name])
                * 1000
                / requests
                for server in servers
            }
            sizes = {server.name: server.answer_bytes for server in servers}
            # The floor: the same server answering a request that offers nothing (no
            # diagnostics, an empty range), which is pygls's reading and writing alone.
            ours = next(server for server in servers if server.name == "ours")
            times["floor"] = [await floor(ours, uri) for _ in range(max(requests // 4, 20))]
        finally:
            for server in servers:
                await server.stop()
    return times, sizes, cpu


def _dist(values: list[float]) -> str:
    return (
        f"p50 {percentile(values, 50):.2f} ms, p90 {percentile(values, 90):.2f} ms, "
        f"p99 {percentile(values, 99):.2f} ms, max {max(values):.2f} ms (n={len(values)})"
    )


def run(quick: bool) -> Row:
    requests, warmup = (100, 30) if quick else (2000, 200)
    times, sizes, cpu = asyncio.run(measure(requests, warmup))
    ours, naive = times["ours"], times["naive"]
    ours99, naive99 = percentile(ours, 99), percentile(naive, 99)
    ratio = naive99 / ours99
    return Row(
        NUMBER,
        WHAT,
        f"naive handler (disk read per request): p99 {naive99:.2f} ms",
        f"p50 {percentile(ours, 50):.2f} ms, p99 {ours99:.2f} ms",
        f"{ratio:.1f}x faster (p99)",
        TARGET,
        ours99 <= LIMIT_MS,
        [
            f"- Workspace Agent (`python -m workspace_agent`): {_dist(ours)}",
            f"- naive handler (`python -m bench.naive_code_actions`): {_dist(naive)}",
            f"- the floor, Workspace Agent answering a request with nothing to offer (pygls "
            f"reading and writing the messages, the machine's scheduling): {_dist(times['floor'])}",
            f"- ratio of p99s (naive / ours): {ratio:.2f}; of medians: "
            f"{percentile(naive, 50) / percentile(ours, 50):.2f}",
            f"- CPU time (user + system) per request, which load on the machine disturbs "
            f"less than wall time: ours {cpu['ours']:.2f} ms, naive {cpu['naive']:.2f} ms "
            f"(ratio {cpu['naive'] / cpu['ours']:.2f}); clock ticks of "
            f"{1000 / os.sysconf('SC_CLK_TCK'):.0f} ms, summed over all requests.",
            f"- Each answer: {DIAGNOSTICS} quick fixes and one Ask action, "
            f"{sizes['ours']:,} bytes of JSON (naive: {sizes['naive']:,}).",
            f"- {LINES:,}-line document opened with didOpen; every request carries all "
            f"{DIAGNOSTICS} diagnostics and a {SELECTED_LINES}-line selection at a new place. "
            f"Both servers run at once and take turns, {requests} measured requests each after "
            f"{warmup} warm-up requests each, once each server has used no CPU for 0.25 s "
            "(the real server loads the agent core and the SDK after initialize). Raw "
            "JSON-RPC framing on stdio, the same client for both; clock from writing the "
            "request to reading its answer (and parsing it, as an editor does); the client "
            "freezes its own garbage collector first so its pauses are not counted.",
        ],
    )
