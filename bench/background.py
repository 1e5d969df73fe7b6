"""Row 30: what 8 idle background commands cost a session's turns.

Row 2's scripted run (its tool mix, zero-delay model in its own process) through the real
server over LSP, as the second run of a session whose first run started 8 dev servers
with `run_in_background` (`python3 -m http.server 0`, in the sandbox: each listens on a
port the server forwards from the host) and left them idle; against the same second run
in a session whose first run made 8 ordinary `bash` calls instead. Fresh workspace,
server and scripted-model process per run, interleaved. Time per turn = wall time of the
second run (sending `workspaceAgent/run` to reading its result) / turns.

What the idle commands cost a turn: their port watches (two /proc reads each, every
0.25 s in a command's first 10 s, then less often), bash_output and bash_stop in every
request's tools and the commands' first answers in the conversation, and the checkpoints'
look before each `bash` call and at the run's end while background commands run (a stat
walk on the event loop in a tree this small: the scan runs only when a stat moved).
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

from workspace_agent.testing.scripted_model import reply, text, tool

from .harness import ScriptedModelProcess, lsp_agent, run_prompt, settled, temp_dir
from .report import Row, median, ms
from .scripts import TOOL_MIX, make_workspace, tool_call

NUMBER = 30
WHAT = "per-turn time of a session with 8 idle background commands"
TARGET = "<= 1.05x the same session without them (row 2's per-turn time)"
LIMIT = 1.05
IDLE = 8
PROMPT = "bench background: start the dev servers, then do the scripted steps"
GO_ON = "go on"
DEV_SERVER = "python3 -m http.server 0 --bind 127.0.0.1"


def _script(turns: int, background: bool) -> dict[str, Any]:
    """One conversation: the first run's 8 starts (background or not), then row 2's mix."""
    starts = [
        tool("bash", {"command": DEV_SERVER, "run_in_background": True})
        if background
        else tool("bash", {"command": "true"})
        for _ in range(IDLE)
    ]
    replies = [reply(*starts), reply(text("Started."))]
    replies += [reply(tool_call(TOOL_MIX[n % len(TOOL_MIX)], n)) for n in range(turns)]
    replies.append(reply(text("All done.")))
    return {"conversations": [{"match": PROMPT, "replies": replies}], "on_exhausted": "error"}


async def _timed(turns: int, background: bool) -> dict[str, Any]:
    with (
        temp_dir("bench-background-") as workspace,
        ScriptedModelProcess(_script(turns, background)) as model,
    ):
        make_workspace(workspace)
        async with lsp_agent(workspace, model.url) as (client, received):
            first = await run_prompt(client, PROMPT)
            session = first["sessionId"]
            assert first["stopReason"] == "end_turn", first
            states = _background_states(received)
            if background and (len(states) != IDLE or not all(s["ports"] for s in states.values())):
                raise RuntimeError(f"the dev servers did not all start: {states}")
            await settled()
            warm_events = len(received.events)
            server = client._server.pid
            cpu = _cpu_seconds(server)
            started = time.perf_counter()
            result = await run_prompt(client, GO_ON, session_id=session)
            seconds = time.perf_counter() - started
            cpu = _cpu_seconds(server) - cpu
            running = [s for s in _background_states(received).values() if s["state"] == "running"]
        timed = [e for _, e in received.events[warm_events:]]
        failed = [e for e in timed if e.get("kind") == "toolResult" and not e.get("ok")]
        if result["stopReason"] != "end_turn" or failed:
            raise RuntimeError(f"the run went wrong: {result} {failed[:3]}")
        if background and len(running) != IDLE:
            raise RuntimeError(f"the dev servers did not stay running: {running}")
        return {"seconds": seconds, "cpu": cpu, "turns": turns}


def _cpu_seconds(pid: int) -> float:
    """The server process's own CPU time so far (user + system), from /proc: less moved by
    the machine's other work than the wall time."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _background_states(received: Any) -> dict[str, dict[str, Any]]:
    """Each background command's latest `background` event."""
    states: dict[str, dict[str, Any]] = {}
    for _, event in received.events:
        if event.get("kind") == "background":
            states[event["id"]] = event
    return states


def measure(turns: int, repeats: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Wall seconds and the server's CPU seconds per turn, of each variant."""
    per_turn: dict[str, list[float]] = {"without": [], "with": []}
    cpu: dict[str, list[float]] = {"without": [], "with": []}
    for n in range(repeats):
        for name in ("without", "with") if n % 2 == 0 else ("with", "without"):
            result = asyncio.run(_timed(turns, name == "with"))
            per_turn[name].append(result["seconds"] / turns)
            cpu[name].append(result["cpu"] / turns)
    return per_turn, cpu


def run(quick: bool) -> Row:
    turns = 20 if quick else 200
    repeats = 1 if quick else 5
    per_turn, cpu = measure(turns, repeats)
    without, with_ = median(per_turn["without"]), median(per_turn["with"])
    cpu_without, cpu_with = median(cpu["without"]), median(cpu["with"])
    ratio = with_ / without
    details = [
        f"- {turns} tool turns (row 2's mix: {' → '.join(TOOL_MIX)}) + 1 closing text turn, as "
        f"the second run of a session; its first run started {IDLE} `{DEV_SERVER}` with "
        f"`run_in_background` (in the sandbox, each port forwarded from the host), or made "
        f"{IDLE} plain `bash` calls of `true` for the baseline. {repeats} run(s) per variant, "
        "alternating; median of the runs; fresh workspace, server and scripted-model process "
        "per run.",
        f"- runs per turn: without {', '.join(ms(v) for v in per_turn['without'])}; with "
        f"{', '.join(ms(v) for v in per_turn['with'])}",
        f"- the server process's own CPU time per turn (user + system, less moved by the "
        f"machine's other work): without {ms(cpu_without)}, with {ms(cpu_with)}, "
        f"{cpu_with / cpu_without:.2f}x; runs: without "
        f"{', '.join(ms(v) for v in cpu['without'])}; with {', '.join(ms(v) for v in cpu['with'])}",
        "- What the idle commands cost a turn: their port watches (two /proc reads each, every "
        "0.25 s in a command's first 10 s, every second until it has run a minute, every 3 s "
        "then), bash_output and bash_stop in each request's tools and the commands' first "
        "answers in the conversation, and the checkpoints' look before each `bash` call and at "
        "the run's end while background commands run (in a small tree a stat walk on the event "
        "loop; the scan, in the store's thread, only when a stat moved).",
    ]
    return Row(
        NUMBER,
        f"{WHAT} ({turns}-turn scripted run of row 2)",
        f"no background command: {ms(without)}/turn",
        f"{ms(with_)}/turn",
        f"{ratio:.2f}x",
        TARGET,
        ratio <= LIMIT,
        details,
    )
