"""Row 27: what a plan-mode turn costs against an act-mode turn.

Row 2's scripted run (its tool mix, zero-delay model in its own process) through the real
server over LSP, once with `mode: "plan"` and once in act mode (row 2's "ours"), on a fresh
workspace and a fresh server each time after the same warm-up run, interleaved in the
same invocation. The script is the same in both modes, so the model asks for the same
tool calls; in plan mode write_file and edit_file are refused (agent/plan_mode.py), bash
runs in the sandbox with the whole workspace read-only, and the run ends `planReady`.
Time per turn = wall time of the run (sending `workspaceAgent/run` to reading its result)
/ turns. A second mix (full run only) keeps to the tools that do the same work in both
modes (todo, read_file, bash): what plan mode's own machinery costs per turn.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from .harness import ScriptedModelProcess, lsp_agent, run_prompt, settled, temp_dir
from .report import Row, median, ms
from .scripts import TOOL_MIX, WARMUP, make_workspace, tool_run_script

NUMBER = 27
WHAT = "per-turn time of a plan-mode run against the same run in act mode"
TARGET = "<= 1.05x act mode (row 2's per-turn time)"
LIMIT = 1.05
PROMPT = "bench run: do the scripted steps"
SAME_WORK = ("todo", "read_file", "bash")
SAME_WORK_LABEL = "todo, read_file, bash (the same work in both modes)"
REFUSED = "not done: you are in plan mode"
"""How a refused write_file / edit_file result starts (the only failures plan mode may have)."""
STOPS = {"act": "end_turn", "plan": "planReady"}


async def _timed(turns: int, mix: tuple[str, ...], mode: str) -> dict[str, Any]:
    with (
        temp_dir("bench-plan-mode-") as workspace,
        ScriptedModelProcess(tool_run_script(PROMPT, turns, mix)) as model,
    ):
        make_workspace(workspace)
        before = (workspace / "src" / "app.py").read_text()
        async with lsp_agent(workspace, model.url) as (client, received):
            warm = await run_prompt(client, WARMUP)
            assert warm["stopReason"] == "end_turn", warm
            await settled()
            warm_events = len(received.events)
            started = time.perf_counter()
            result = await run_prompt(client, PROMPT, mode=mode)
            seconds = time.perf_counter() - started
        timed = received.events[warm_events:]
        results = [e for _, e in timed if e.get("kind") == "toolResult"]
        failed = [e for e in results if not e.get("ok") and not _refused(e, mode)]
        if result["stopReason"] != STOPS[mode] or failed or len(results) != turns:
            raise RuntimeError(f"the {mode}-mode run went wrong: {result} {failed[:3]}")
        if mode == "plan" and (workspace / "src" / "app.py").read_text() != before:
            raise RuntimeError("the plan-mode run changed the workspace")
        return {"seconds": seconds, "turns": turns}


def _refused(event: dict[str, Any], mode: str) -> bool:
    return mode == "plan" and str(event.get("output", "")).startswith(REFUSED)


def measure(turns: int, repeats: int, mix: tuple[str, ...]) -> dict[str, list[float]]:
    """Seconds per turn in each mode, `repeats` runs each, alternating which goes first."""
    per_turn: dict[str, list[float]] = {"act": [], "plan": []}
    for n in range(repeats):
        for mode in ("act", "plan") if n % 2 == 0 else ("plan", "act"):
            result = asyncio.run(_timed(turns, mix, mode))
            per_turn[mode].append(result["seconds"] / turns)
    return per_turn


def run(quick: bool) -> Row:
    turns = 20 if quick else 200
    mixes: dict[str, tuple[tuple[str, ...], int]] = {
        "all five tools": (TOOL_MIX, 1 if quick else 5)
    }
    if not quick:
        mixes[SAME_WORK_LABEL] = (SAME_WORK, 3)
    results = {label: measure(turns, n, mix) for label, (mix, n) in mixes.items()}
    details = []
    for label, per_turn in results.items():
        act, plan = median(per_turn["act"]), median(per_turn["plan"])
        details.append(
            f"- mix **{label}** (cycle {' → '.join(mixes[label][0])}): act mode {ms(act)}/turn, "
            f"plan mode {ms(plan)}/turn, ratio of medians {plan / act:.2f}x; runs per turn: "
            f"act {', '.join(ms(v) for v in per_turn['act'])}; plan "
            f"{', '.join(ms(v) for v in per_turn['plan'])}"
        )
    per_turn = results["all five tools"]
    act, plan = median(per_turn["act"]), median(per_turn["plan"])
    details += [
        f"- {turns} tool turns + 1 closing text turn per run, "
        + " and ".join(f"{n} run(s) per mode for {label}" for label, (_, n) in mixes.items())
        + ", alternating; median of the runs; fresh workspace, server and scripted-model "
        "process per run; a 2-turn warm-up run (act mode) first in the same server.",
        "- The same script in both modes: in plan mode the model's write_file and edit_file "
        "calls are refused (their result tells it it is planning), bash runs in the sandbox "
        "with the workspace mounted read-only, and the run ends with `planReady` (its plan is "
        "the todo list); the workspace is checked unchanged after each plan-mode run.",
        "- Act mode here is row 2's *ours* (the same server, settings and mix), measured again "
        "in this run so both modes share the machine's state.",
    ]
    ratio = plan / act
    return Row(
        NUMBER,
        f"{WHAT} ({turns}-turn scripted run of row 2)",
        f"act mode: {ms(act)}/turn",
        f"{ms(plan)}/turn",
        f"{ratio:.2f}x",
        TARGET,
        ratio <= LIMIT,
        details,
    )
