"""Rows 10 and 11: the agent over the Agent Client Protocol (`workspace-agent acp`).

The agent runs as an editor starts it (`python -m workspace_agent acp --yes`, settings from
the environment) and is driven over stdio by the ACP package's own client
(`acp.spawn_agent_process`), with the scripted model in its own process as in rows 2, 6, 7.

- Row 10: per-turn overhead, the same scripted runs as row 2 (warm-up, then N tool turns on
  a fresh workspace), against the same bare SDK loop (bench/bare_loop.py) in the same
  invocation. Time per turn = wall time of `session/prompt` / turns.
- Row 11: from the SSE event that completes the model's todo tool_use block (stamped by the
  scripted model after flushing it) to the ACP client receiving the `plan` update with
  that plan (stamped when the client's session_update handler runs); CLOCK_MONOTONIC in
  both processes. The same script as row 6.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections import defaultdict
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from .harness import PY, ScriptedModelProcess, child_env, settled, temp_dir
from .latency import PROMPT as LATENCY_PROMPT
from .latency import script as latency_script
from .overhead import LIMIT, PROMPT, _bare
from .report import Row, median, ms, percentile
from .scripts import TOOL_MIX, WARMUP, make_workspace, tool_run_script

OVERHEAD_WHAT = "agent overhead per tool round trip over ACP ({turns}-turn scripted run)"
PLAN_WHAT = "latency: model's todo tool call → ACP client receives the `plan` update"
PLAN_TARGET = "p50 <= 5 ms"


class Recorder:
    """The client's side: every session/update with the time it reached the handler."""

    def __init__(self) -> None:
        self.updates: list[tuple[int, Any]] = []

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((time.monotonic_ns(), update))

    async def request_permission(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the benchmark runs with --yes: nothing should ask")


@contextlib.asynccontextmanager
async def acp_agent(workspace: Path, model_url: str) -> AsyncIterator[tuple[Any, Recorder, Any]]:
    """The real agent (`python -m workspace_agent acp --yes`) on stdio, initialized;
    yields (connection, recorder, process)."""
    from acp import spawn_agent_process

    recorder = Recorder()
    env = child_env(
        ANTHROPIC_BASE_URL=model_url,
        WORKSPACE_AGENT_MAX_TURNS="250",
        WORKSPACE_AGENT_MAX_RETRIES="0",
    )
    async with spawn_agent_process(
        recorder,  # type: ignore[arg-type]  # a client with no capabilities: updates only
        PY,
        "-m",
        "workspace_agent",
        "acp",
        "--yes",
        env=env,
        cwd=workspace,
        transport_kwargs={"stderr": None},
    ) as (conn, process):
        await conn.initialize(protocol_version=1)
        yield conn, recorder, process


async def run_prompt(conn: Any, session_id: str, prompt: str) -> str:
    from acp import text_block

    answer = await conn.prompt(session_id=session_id, prompt=[text_block(prompt)])
    return str(answer.stop_reason)


async def _ours(turns: int, mix: tuple[str, ...]) -> dict[str, Any]:
    with (
        temp_dir("bench-acp-") as workspace,
        ScriptedModelProcess(tool_run_script(PROMPT, turns, mix)) as model,
    ):
        make_workspace(workspace)
        async with acp_agent(workspace, model.url) as (conn, recorder, agent):
            warm = await conn.new_session(cwd=str(workspace))
            assert await run_prompt(conn, warm.session_id, WARMUP) == "end_turn"
            await settled()  # the checkpoint store's upkeep after it is not timed
            session = await conn.new_session(cwd=str(workspace))
            cpu_started = _cpu(agent)
            started = time.perf_counter()
            stop = await run_prompt(conn, session.session_id, PROMPT)
            seconds = time.perf_counter() - started
            cpu = _cpu(agent) - cpu_started
        failed = [
            u
            for _, u in recorder.updates
            if getattr(u, "session_update", "") == "tool_call_update" and u.status == "failed"
        ]
        if stop != "end_turn" or failed:
            raise RuntimeError(f"the ACP run went wrong: {stop} {failed[:3]}")
        return {"seconds": seconds, "cpu": cpu, "turns": turns}


def _cpu(process: Any) -> float:
    """User + system seconds the agent process has used (not its commands')."""
    import psutil

    times = psutil.Process(process.pid).cpu_times()
    return float(times.user + times.system)


def measure_overhead(turns: int, repeats: int) -> dict[str, list[float]]:
    """Wall seconds per turn of each variant ("bare", "ours") and CPU seconds per turn
    ("bare cpu", "ours cpu"), `repeats` runs each, alternating."""
    per_turn: dict[str, list[float]] = defaultdict(list)
    for n in range(repeats):
        for name in ("bare", "ours") if n % 2 == 0 else ("ours", "bare"):
            if name == "ours":
                result = asyncio.run(_ours(turns, TOOL_MIX))
            else:
                result = _bare(turns, TOOL_MIX)
            per_turn[name].append(result["seconds"] / turns)
            per_turn[f"{name} cpu"].append(result["cpu"] / turns)
    return per_turn


def run_overhead(quick: bool) -> Row:
    turns = 20 if quick else 200
    repeats = 1 if quick else 5
    per_turn = measure_overhead(turns, repeats)
    bare, ours = median(per_turn["bare"]), median(per_turn["ours"])
    ratio = ours / bare
    fastest = min(per_turn["ours"]) / min(per_turn["bare"])
    bare_cpu, ours_cpu = median(per_turn["bare cpu"]), median(per_turn["ours cpu"])
    details = [
        f"- mix **all five tools** (cycle {' → '.join(TOOL_MIX)}): bare loop {ms(bare)}/turn, "
        f"ours over ACP {ms(ours)}/turn, ratio of medians {ratio:.2f}x (of the fastest runs "
        f"{fastest:.2f}x), overhead {ms(ours - bare)}/turn; runs per turn: bare "
        f"{', '.join(ms(v) for v in per_turn['bare'])}; ours "
        f"{', '.join(ms(v) for v in per_turn['ours'])}",
        f"- CPU time per turn (user + system of the agent process, resp. the bare loop's, "
        f"without the commands they ran), which load on the machine disturbs less than wall "
        f"time: bare {ms(bare_cpu)}, ours {ms(ours_cpu)}, ratio of medians "
        f"{ours_cpu / bare_cpu:.2f}x.",
        f"- {turns} tool turns + 1 closing text turn per run, {repeats} run(s) per variant, "
        "alternating; fresh workspace and scripted-model process per run; a 2-turn warm-up "
        "prompt first in another session of the same agent process.",
        "- The agent's run includes what the bare loop leaves out: a `session/update` for "
        "every event (tool_call, tool_call_update with diffs and output, plan), built as "
        "the SDK's pydantic models; input validation; redaction; the session saved after "
        "every turn. The client (the ACP package's, Python) validates every update.",
    ]
    return Row(
        10,
        OVERHEAD_WHAT.format(turns=turns),
        f"bare SDK loop: {ms(bare)}/turn",
        f"{ms(ours)}/turn",
        f"{ratio:.2f}x",
        "<= 1.25x the bare loop",
        ratio <= LIMIT,
        details,
    )


async def measure_plan_latency(turns: int) -> list[float]:
    gc.collect()
    gc.freeze()  # the measuring client's own collections are not the agent's latency
    with (
        temp_dir("bench-acp-latency-") as workspace,
        ScriptedModelProcess(latency_script(turns), timestamps=True) as model,
    ):
        make_workspace(workspace)
        async with acp_agent(workspace, model.url) as (conn, recorder, _):
            warm = await conn.new_session(cwd=str(workspace))
            await run_prompt(conn, warm.session_id, WARMUP)
            await settled()  # the checkpoint store's upkeep after it is not measured
            skip = len(model.requests())
            session = await conn.new_session(cwd=str(workspace))
            stop = await run_prompt(conn, session.session_id, LATENCY_PROMPT)
        stamps = model.timestamps()
    if stop != "end_turn":
        raise RuntimeError(f"the ACP latency run went wrong: {stop}")
    by_message: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for stamp in stamps:
        by_message[stamp["message"]].append(stamp)
    sent: dict[str, int] = {}
    for turn, message in enumerate(sorted(by_message)[skip:][:turns]):
        done = next(
            e for e in by_message[message] if e["name"] == "content_block_stop" and e["index"] == 1
        )
        sent[f"step {turn:03d}"] = done["t"]
    got: dict[str, int] = {}
    for at, update in recorder.updates:
        if getattr(update, "session_update", "") == "plan" and update.entries:
            got.setdefault(update.entries[0].content, at)
    latencies = [(got[key] - t) / 1e6 for key, t in sent.items() if key in got]
    if len(latencies) != turns:
        raise RuntimeError(f"matched {len(latencies)} plans of {turns}")
    return latencies


def run_plan_latency(quick: bool) -> Row:
    turns = 30 if quick else 200
    values = asyncio.run(measure_plan_latency(turns))
    p50, p90, p99 = (percentile(values, q) for q in (50, 90, 99))
    return Row(
        11,
        PLAN_WHAT,
        "—",
        f"p50 {p50:.2f} ms, p99 {p99:.2f} ms",
        "—",
        PLAN_TARGET,
        p50 <= 5,
        [
            f"- p50 {p50:.2f} ms, p90 {p90:.2f} ms, p99 {p99:.2f} ms, max {max(values):.2f} ms "
            f"(n={len(values)})",
            f"- One run of {turns} replies (text, then a todo call that changes the plan) after "
            "a warm-up prompt, the script of row 6; zero-delay scripted model in its own "
            "process with TCP_NODELAY. In the window: the rest of the stream, the SDK's final "
            "message, input validation, the todo handler, the `plan` update as a pydantic "
            "model, its JSON line on the pipe, and the client's parsing and validation.",
            "- Clock: CLOCK_MONOTONIC in both processes (model: after the SSE event is "
            "flushed; client: when the ACP package hands the update to its handler). The "
            "client freezes its own garbage collector first.",
        ],
    )
