"""Row 2: agent overhead per tool round trip.

A scripted run of N tool turns (zero-delay scripted model in its own process, loopback
HTTP) done twice: by the real server driven over LSP, and by the bare loop
(bench/bare_loop.py: the SDK and the same tool handlers, no LSP). Both do exactly the
same tool calls on a fresh copy of the same workspace, after the same warm-up run.
Time per turn = wall time of the run / turns; ours is timed by the LSP client from
sending `workspaceAgent/run` to reading the result, the bare loop times itself.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
from typing import Any

from .harness import (
    PY,
    REPO,
    ScriptedModelProcess,
    child_env,
    lsp_agent,
    run_prompt,
    settled,
    temp_dir,
)
from .report import Row, median, ms
from .scripts import (
    FILE_TOOLS,
    READ_ONLY_TOOLS,
    TOOL_MIX,
    WARMUP,
    make_workspace,
    tool_run_script,
)

WHAT = "agent overhead per tool round trip ({turns}-turn scripted run, zero-delay model)"
TARGET = "<= 1.25x the bare loop"
LIMIT = 1.25
PROMPT = "bench run: do the scripted steps"
READ_ONLY_LABEL = "read-only: read_file, search, find_files (40 turns)"
READ_ONLY_TURNS = 40
READ_ONLY_LIMIT = 1.25


async def _ours(turns: int, mix: tuple[str, ...]) -> dict[str, Any]:
    with (
        temp_dir("bench-overhead-") as workspace,
        ScriptedModelProcess(tool_run_script(PROMPT, turns, mix)) as model,
    ):
        make_workspace(workspace)
        async with lsp_agent(workspace, model.url) as (client, received):
            warm = await run_prompt(client, WARMUP)
            assert warm["stopReason"] == "end_turn", warm
            await settled()
            started = time.perf_counter()
            result = await run_prompt(client, PROMPT)
            seconds = time.perf_counter() - started
        failed = [
            e for _, e in received.events if e.get("kind") == "toolResult" and not e.get("ok")
        ]
        if result["stopReason"] != "end_turn" or failed:
            raise RuntimeError(f"the server's run went wrong: {result} {failed[:3]}")
        return {"seconds": seconds, "turns": turns}


def _bare(turns: int, mix: tuple[str, ...]) -> dict[str, Any]:
    with (
        temp_dir("bench-overhead-") as workspace,
        ScriptedModelProcess(tool_run_script(PROMPT, turns, mix)) as model,
    ):
        make_workspace(workspace)
        done = subprocess.run(
            [
                *(PY, "-m", "bench.bare_loop", "--base-url", model.url),
                *("--workspace", str(workspace), "--prompt", WARMUP, "--prompt", PROMPT),
            ],
            capture_output=True,
            text=True,
            timeout=600,
            env=child_env(),
            cwd=REPO,
        )
        if done.returncode != 0:
            raise RuntimeError(f"bare loop failed: {done.stderr[-2000:]}")
        result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        if result["stop"] != "end_turn" or result["turns"] != turns + 1:
            raise RuntimeError(f"bare loop went wrong: {result}")
        return {"seconds": result["seconds"], "cpu": result["cpu"], "turns": turns}


def measure(turns: int, repeats: int, mix: tuple[str, ...]) -> dict[str, list[float]]:
    """Seconds per turn of each variant, `repeats` runs each, alternating."""
    per_turn: dict[str, list[float]] = {"bare": [], "ours": []}
    for n in range(repeats):
        for name in ("bare", "ours") if n % 2 == 0 else ("ours", "bare"):
            result = asyncio.run(_ours(turns, mix)) if name == "ours" else _bare(turns, mix)
            per_turn[name].append(result["seconds"] / turns)
    return per_turn


def run(quick: bool) -> Row:
    turns = 20 if quick else 200
    mixes: dict[str, tuple[tuple[str, ...], int]] = {
        "all five tools": (TOOL_MIX, 1 if quick else 5)
    }
    if not quick:
        mixes["file tools and todo (no bash)"] = (FILE_TOOLS, 3)
        # Nothing but reads: no command or write hides the agent's own cost per turn.
        mixes[READ_ONLY_LABEL] = (READ_ONLY_TOOLS, 7)
    results = {
        label: measure(READ_ONLY_TURNS if label == READ_ONLY_LABEL else turns, n, mix)
        for label, (mix, n) in mixes.items()
    }
    details = []
    ratios = {}
    for label, per_turn in results.items():
        bare, ours = median(per_turn["bare"]), median(per_turn["ours"])
        ratios[label] = ours / bare
        fastest = min(per_turn["ours"]) / min(per_turn["bare"])
        details.append(
            f"- mix **{label}** (cycle {' → '.join(mixes[label][0])}): bare loop {ms(bare)}/turn, "
            f"ours {ms(ours)}/turn, ratio of medians {ours / bare:.2f}x (of the fastest runs "
            f"{fastest:.2f}x), overhead {ms(ours - bare)}/turn; runs per turn: bare "
            f"{', '.join(ms(v) for v in per_turn['bare'])}; ours "
            f"{', '.join(ms(v) for v in per_turn['ours'])}"
        )
    if READ_ONLY_LABEL in ratios:
        details.append(
            f"- read-only target (<= {READ_ONLY_LIMIT}x the bare loop): "
            + ("met" if ratios[READ_ONLY_LABEL] <= READ_ONLY_LIMIT else "**missed**")
            + f" ({ratios[READ_ONLY_LABEL]:.2f}x)."
        )
    headline = "all five tools"
    per_turn = results[headline]
    bare, ours = median(per_turn["bare"]), median(per_turn["ours"])
    strict = ratios.get("file tools and todo (no bash)")
    details += [
        "- The table shows the mix with all five tools (one call each of todo, read_file, "
        "edit_file, write_file, bash per 5 turns)"
        + (
            f"; with the file tools and todo only (no bash) the ratio is {strict:.2f}x."
            if strict is not None
            else "."
        ),
        f"- {turns} tool turns (read-only mix: {READ_ONLY_TURNS}) + 1 closing text turn per run, "
        + " and ".join(f"{n} run(s) per variant for {label}" for label, (_, n) in mixes.items())
        + ", alternating; median of the runs; fresh workspace and fresh scripted-model process "
        "per run; a 2-turn warm-up run first in the same server / loop process.",
        "- The server's run includes what the bare loop leaves out: LSP notifications for "
        "every event (toolCall, toolResult, todos), JSON-schema validation of tool input, "
        "secret redaction, and the session saved to disk (JSONL append + fsync) after every "
        "turn.",
    ]
    ratio = ours / bare
    return Row(
        2,
        WHAT.format(turns=turns),
        f"bare SDK loop: {ms(bare)}/turn",
        f"{ms(ours)}/turn",
        f"{ratio:.2f}x",
        TARGET,
        ratio <= LIMIT,
        details,
    )
