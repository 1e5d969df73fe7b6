"""Row 1: from starting the server process to the `initialize` answer, against a bare
pygls server that only answers initialize.

Each start is a fresh process (a cold interpreter; the OS page cache and the .pyc files
are warm, as for an editor that starts the server a second time). The client is a few
lines of raw JSON-RPC framing over the child's pipes, the same for both servers, so the
clock measures the servers and not a client library. Starts alternate between the two
servers; one discarded start of each comes first.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

from .harness import BENCH_SETTINGS, PY, child_env, temp_dir
from .report import Row, median, ms, spread

WHAT = "server start to `initialize` answered (median of cold starts)"
TARGET = "<= 1.3x the bare server"
LIMIT = 1.3

COMMANDS = {
    "bare": [PY, "-m", "bench.bare_server"],
    "ours": [PY, "-m", "workspace_agent"],
}


def _frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


async def _read_message(reader: asyncio.StreamReader) -> dict[str, Any]:
    length = 0
    while True:
        line = await reader.readline()
        if not line:
            raise RuntimeError("the server closed stdout before answering")
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    message: dict[str, Any] = json.loads(await reader.readexactly(length))
    return message


async def _answer(reader: asyncio.StreamReader, request_id: int) -> dict[str, Any]:
    while True:  # skip notifications (window/logMessage, ...)
        message = await _read_message(reader)
        if message.get("id") == request_id and "method" not in message:
            return message


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used so far (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def spawn_on_stdio(command: list[str], workspace: Path) -> asyncio.subprocess.Process:
    """The server in `workspace` with the benchmarks' environment, its stdin and stdout the
    raw client's pipes. Its log is discarded: a stderr pipe nobody reads would fill up and
    block the server mid-measurement."""
    return await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        cwd=workspace,
        env=child_env(),
    )


def initialize_params(workspace: Path) -> dict[str, Any]:
    """The `initialize` params every server of these rows gets, ours and the baselines alike
    (no client capabilities, the benchmarks' settings), so they start from the same place."""
    return {
        "processId": os.getpid(),
        "rootUri": workspace.as_uri(),
        "capabilities": {},
        "initializationOptions": {"workspaceAgent": BENCH_SETTINGS},
    }


async def one_start(command: list[str], workspace: Path) -> tuple[float, float]:
    """Seconds from spawning the server to reading its initialize answer, and the CPU
    seconds the server used by then."""
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": initialize_params(workspace),
    }
    started = time.perf_counter()
    proc = await spawn_on_stdio(command, workspace)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(_frame(initialize))
    await proc.stdin.drain()
    answer = await _answer(proc.stdout, 1)
    elapsed = time.perf_counter() - started
    cpu = _cpu_seconds(proc.pid)
    if "result" not in answer:
        raise RuntimeError(f"{command}: initialize failed: {answer}")
    proc.stdin.write(_frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
    await proc.stdin.drain()
    await _answer(proc.stdout, 2)
    proc.stdin.write(_frame({"jsonrpc": "2.0", "method": "exit"}))
    await proc.stdin.drain()
    try:
        await asyncio.wait_for(proc.wait(), 10)
    except asyncio.TimeoutError:
        proc.kill()
        await proc.wait()
    return elapsed, cpu


async def measure(starts: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    times: dict[str, list[float]] = {"bare": [], "ours": []}
    cpu: dict[str, list[float]] = {"bare": [], "ours": []}
    with temp_dir("bench-startup-") as workspace:
        for name in ("bare", "ours"):  # warm-up, discarded
            await one_start(COMMANDS[name], workspace)
        for n in range(starts):
            order = ("bare", "ours") if n % 2 == 0 else ("ours", "bare")
            for name in order:
                elapsed, used = await one_start(COMMANDS[name], workspace)
                times[name].append(elapsed)
                cpu[name].append(used)
    return times, cpu


def run(quick: bool) -> Row:
    starts = 3 if quick else 10
    times, cpu = asyncio.run(measure(starts))
    bare, ours = median(times["bare"]), median(times["ours"])
    ratio = ours / bare
    return Row(
        1,
        WHAT,
        f"bare pygls server: {ms(bare)}",
        ms(ours),
        f"{ratio:.2f}x",
        TARGET,
        ratio <= LIMIT,
        [
            f"- bare pygls server (`python -m bench.bare_server`): {spread(times['bare'])}",
            f"- Workspace Agent (`python -m workspace_agent`): {spread(times['ours'])}",
            f"- ratio of medians: {ratio:.3f} (target <= {LIMIT})",
            f"- CPU time (user + system) each server had used when it answered, which load on "
            f"the machine disturbs less than wall time: bare {spread(cpu['bare'])}, ours "
            f"{spread(cpu['ours'])}, ratio of medians "
            f"{median(cpu['ours']) / median(cpu['bare']):.2f}.",
            "- Clock: from spawning the process to reading the `initialize` response on its "
            "stdout; the request is written at once and read by the server when it is ready. "
            "Raw JSON-RPC framing, the same for both servers. Fresh process per start, "
            f"alternating order, one discarded warm-up start each; {starts} starts each.",
        ],
    )
